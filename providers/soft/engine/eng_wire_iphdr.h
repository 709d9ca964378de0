/* SPDX-License-Identifier: MIT */
/*
 * The IP and UDP headers of a RoCEv2 packet, as the ICRC covers them
 * (Annex A17.3.3) and a UD receive's GRH shows them (eng_dp_grh.c),
 * without the headers themselves: the engine sends and receives through
 * an ordinary UDP socket (eng_net.h), which never shows them.
 *
 * Send: the kernel writes them, and all but the fields the ICRC masks
 * are known in advance: IPv4 version/IHL 0x45, total length, ID 0 (Linux
 * gives datagrams of an unconnected socket with DF set, IP_PMTUDISC_DO,
 * the ID 0: ip_select_ident_segs; the k-th segment of a UDP GSO send ID
 * k, inet_gso_segment counting up from the super-packet's 0), flags DF, protocol 17, the addresses;
 * IPv6 version, payload length, next header 17, the addresses.
 *
 * Receive: the same from recvmsg's source address, IP_PKTINFO and the
 * UDP length, except the IPv4 Identification, which no socket option
 * reports and which Linux's kernel rxe (and NICs) set to a hashed
 * non-zero value.  It is recovered from the ICRC itself: the CRC is
 * linear, so the difference between the stored ICRC and the one
 * computed with ID 0 is the CRC of the 16-bit ID alone, shifted through
 * the bytes that follow it; undoing the shift (a 32x32 GF(2) matrix per
 * power of two of the distance) leaves a register value that either
 * decodes to exactly one 16-bit ID or to none (then the packet is
 * corrupt).  The DF flag is assumed set (RoCE senders set it), else
 * tried clear.  What this costs: a packet with an ID other than 0 is
 * checked against 2^17 possible headers instead of one, so a corruption
 * that the ICRC alone would catch with probability 1 - 2^-32 is caught
 * with 1 - 2^-15; the Ethernet FCS and the UDP checksum (when the sender
 * sets one: the kernel verifies it before the socket sees the packet)
 * still guard the same bytes.  The alternative, a raw or packet socket
 * that shows the real header, needs CAP_NET_RAW, which the engine drops
 * (eng_caps.h); the measurements are in eng_recv.c.
 *
 * Pure: no I/O.
 */
#ifndef ENG_WIRE_IPHDR_H
#define ENG_WIRE_IPHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A packet's IP and UDP headers. */
struct eng_wire_ip {
	uint8_t ip[40];		/* IPv4: 20 bytes (no options); IPv6: 40 */
	uint32_t iplen;
	uint8_t udp[8];		/* checksum 0: the ICRC masks it */
};

/*
 * Builds the headers of a packet from sgid to dgid (GID form: IPv4 as
 * ::ffff:a.b.c.d; both of one family), UDP ports sport -> dport, with
 * udp_payload bytes after the UDP header (BTH .. ICRC).  IPv4: DF, ID
 * ip_id, header checksum set.  IPv6: flow label 0.  Returns 0 or -EINVAL
 * (families differ, length too large).
 */
int eng_wire_ip_build(struct eng_wire_ip *out, const uint8_t sgid[16],
		      const uint8_t dgid[16], uint16_t sport, uint16_t dport,
		      uint32_t udp_payload, uint8_t tos, uint8_t ttl,
		      uint16_t ip_id);

/* Sets an IPv4 header's Identification and recomputes its checksum. */
void eng_wire_ip_set_id(struct eng_wire_ip *h, uint16_t ip_id);

/* Whether a GID is IPv4-mapped (::ffff:0:0/96). */
bool eng_wire_gid_is_v4(const uint8_t gid[16]);

/*
 * Checks the ICRC of a received packet bth .. ICRC (len bytes) against
 * the headers in h (built with ip_id 0).  IPv6 and IPv4 with ID 0: an
 * exact check.  IPv4 otherwise: recovers the ID and the DF flag (above),
 * stores them in h (so h is then the header as sent) and the ID in
 * *ip_id.  Returns 0 when the
 * ICRC is right, -EBADMSG when no ID makes it right, -EINVAL when the
 * packet or headers are malformed.
 */
int eng_wire_icrc_check_rx(struct eng_wire_ip *h, const uint8_t *bth,
			   size_t len, uint16_t *ip_id);

/*
 * Send: what an IPv4 packet's ICRC changes by (XOR, as a little-endian
 * word of its trailer: eng_wire_trailer) when the header's ID is ip_id
 * instead of 0; udp_payload is the packet's UDP payload length (BTH ..
 * ICRC).  A UDP GSO send (eng_net_tx.c) gives its k-th segment ID k, so
 * each packet of it is sealed for its own ID this way without a second
 * pass over its bytes.  0 for ID 0.
 */
uint32_t eng_wire_icrc_id_delta(uint16_t ip_id, uint32_t udp_payload);

/*
 * The 16-bit value v such that the ICRC register of a stream changes by
 * diff when the two bytes at distance n bytes before its end (counted
 * from the byte after them) change from 0 to v (big-endian).  Returns
 * 0 and *v, or -ENOENT when no 16-bit change explains diff.  Exposed for
 * the unit tests.
 */
int eng_wire_crc_solve16(uint32_t diff, size_t n, uint16_t *v);

#endif /* ENG_WIRE_IPHDR_H */
