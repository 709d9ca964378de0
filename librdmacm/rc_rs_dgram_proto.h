/* SPDX-License-Identifier: MIT */
/*
 * The datagram rsockets wire format, as rdma-core's librdmacm speaks it
 * (so either end may be Debian's library).  No I/O here: the two
 * headers' encodings and their checks, unit-tested and fuzzed.
 *
 * A datagram rsocket owns a UDP socket (its address binding) and one UD
 * QP per local source address (Q_Key RDMA_UDP_QKEY).  Until it knows the
 * destination's QPN it sends over UDP, each datagram behind a UDP header
 * (struct below, 16 bytes for IPv4, 28 for IPv6, big-endian):
 *
 *   tag 0x55555555 | version 4/6 | op | header length | reserved
 *   | QPN of the sender's UD QP (24 bits, low byte of the wire's first
 *   byte reserved: the field is QPN in the low 24 bits) | the sender's
 *   QP's IP address (4 or 16 bytes)
 *
 * op DATA carries the payload after the header; the receiver answers
 * with an op CTRL header (no payload) naming its own QPN, and both ends
 * then resolve an address handle for the other (CM route) and send over
 * UD.  Every UD message starts with the datagram header (8 bytes for
 * IPv4, 24 for IPv6): version 4/6 | header length | source port | the
 * source IPv4 address, or IPv6 flow info + address; the payload follows.
 * rrecvfrom's source address is that header's.  A UD receive buffer is
 * RC_DS_MSG_MAX bytes after the 40-byte GRH, so a payload is at most
 * RC_DS_MSG_MAX minus the header.
 */
#ifndef RC_RS_DGRAM_PROTO_H
#define RC_RS_DGRAM_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define RC_DS_UDP_TAG		0x55555555u
#define RC_DS_UDP_V4_LEN	16
#define RC_DS_UDP_V6_LEN	28
#define RC_DS_V4_LEN		8
#define RC_DS_V6_LEN		24
#define RC_DS_MSG_MAX		2048	/* rdma-core's RS_SNDLOWAT */
#define RC_DS_GRH_LEN		40
#define RC_DS_QPN_MASK		0xFFFFFFu

/* The UDP header's ops (the stream protocol's op numbers). */
enum rc_ds_op {
	RC_DS_OP_DATA = 0,
	RC_DS_OP_CTRL = 7,
};

/* What a UDP header says, decoded. */
struct rc_ds_udp {
	uint8_t version;		/* 4 or 6 */
	uint8_t op;
	uint32_t qpn;			/* 24 bits */
	uint8_t addr[16];		/* 4 used for IPv4 */
};

/* Why a header was refused (each a counter in struct rc_ds_stats). */
enum rc_ds_bad {
	RC_DS_OK = 0,
	RC_DS_BAD_SHORT,		/* shorter than its header */
	RC_DS_BAD_TAG,
	RC_DS_BAD_VERSION,		/* not 4/6, or not the sender's family */
	RC_DS_BAD_LENGTH,		/* header length not the version's */
	RC_DS_BAD_OP,			/* neither DATA nor CTRL */
	RC_DS_BAD_NR,
};

/* Encodes h into out (RC_DS_UDP_V6_LEN bytes of room); its length. */
size_t rc_ds_udp_encode(const struct rc_ds_udp *h, uint8_t *out);
/* Decodes a UDP datagram's header; family is the UDP sender's
 * (AF_INET/AF_INET6): the version must match it.  RC_DS_OK and *hlen
 * (payload at buf + *hlen) or why not. */
enum rc_ds_bad rc_ds_udp_decode(const uint8_t *buf, size_t len, int family,
				struct rc_ds_udp *h, size_t *hlen);

/* Encodes the datagram header for source address sa (AF_INET or
 * AF_INET6; its port and address) into out (RC_DS_V6_LEN bytes of
 * room); its length, 0 for another family. */
size_t rc_ds_hdr_encode(const struct sockaddr *sa, uint8_t *out);
/* Decodes the datagram header at the front of a UD message of len
 * bytes (after the GRH): the source into *src (a sockaddr_in or _in6,
 * *srclen its size) and *hlen; RC_DS_OK or why not. */
enum rc_ds_bad rc_ds_hdr_decode(const uint8_t *buf, size_t len,
				struct sockaddr_storage *src, socklen_t *srclen,
				size_t *hlen);

/* The UD payload most a datagram of this family may carry. */
size_t rc_ds_max_payload(int family);

#endif /* RC_RS_DGRAM_PROTO_H */
