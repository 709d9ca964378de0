/* SPDX-License-Identifier: MIT */
/*
 * What the RDMA CM (librdmacm over the Linux kernel's rdma_cm) adds to
 * the IB CM: the service-ID encoding of its port spaces and the header it
 * puts at the start of a REQ's / SIDR_REQ's private data carrying the IP
 * addresses (the kernel's struct cma_hdr, drivers/infiniband/core/cma.c;
 * IBTA annex A11 "RDMA IP CM Service").  Pure: no I/O.
 *
 * Wire layout of the 36-byte header (A11.6):
 *   0  cma_version   0x00
 *   1  ip_version    upper nibble: 4 or 6 (0x40 / 0x60)
 *   2  src_port      the active side's port, big-endian
 *   4  src_addr      16 bytes
 *  20  dst_addr      16 bytes
 * An IPv4 address occupies the last 4 bytes of its 16, the first 12 are
 * zero (not a v4-mapped ::ffff: address).  The destination port is not
 * in the header: it is the service ID's low 16 bits.
 */
#ifndef ENG_CM_PDATA_H
#define ENG_CM_PDATA_H

#include <stddef.h>
#include <stdint.h>

#include "providers/soft/engine/eng_cm_msg.h"

#define ENG_CM_IP_HDR_SIZE	36u
#define ENG_CM_IP_HDR_VERSION	0u

/* enum rdma_port_space values (librdmacm's rdma_cma.h). */
enum eng_cm_ps {
	ENG_CM_PS_IPOIB	= 0x0002,
	ENG_CM_PS_IB	= 0x013f,
	ENG_CM_PS_TCP	= 0x0106,
	ENG_CM_PS_UDP	= 0x0111,
};

/* The Q_Key of RDMA CM UD QPs (RDMA_UDP_QKEY). */
#define ENG_CM_UDP_QKEY		0x01234567u

struct eng_cm_ip_hdr {
	uint8_t  ip_version;		/* 4 or 6 */
	uint16_t src_port;		/* host order */
	uint8_t  src_addr[16];		/* IPv4: bytes 12..15, 0..11 zero */
	uint8_t  dst_addr[16];
};

/* Service ID of port space ps and port: ps << 16 | port (cma.c's
 * cma_get_service_id), e.g. TCP port 20001 = 0x0000000001064e21. */
uint64_t eng_cm_service_id(uint16_t ps, uint16_t port);

/* The port space and port of an RDMA CM service ID: -EINVAL if it is not
 * one (upper 32 bits set, or a port space other than the four). */
int eng_cm_service_id_parse(uint64_t service_id, uint16_t *ret_ps,
			    uint16_t *ret_port);

/* The most user private data an RDMA CM consumer may pass with message
 * attr_id (enum eng_cm_attr), after the IP header when ip_hdr is set
 * (REQ and SIDR_REQ of IP-addressed ids): REQ 56 (92 without), SIDR_REQ
 * 180 (216), REP 196, REJ 148, RTU 224, MRA 222, DREQ 220, DREP 224,
 * SIDR_REP 136.  0 for an attribute with no private data. */
size_t eng_cm_pdata_max(uint16_t attr_id, int ip_hdr);

/* Build a REQ's or SIDR_REQ's private data: the IP header, then user
 * bytes.  out must hold the attribute's field; *ret_len is the bytes
 * used.  -EINVAL for a bad ip_version or user_len over the limit. */
int eng_cm_pdata_encode(uint16_t attr_id, const struct eng_cm_ip_hdr *hdr,
			const void *user, size_t user_len, uint8_t *out,
			size_t out_size, uint8_t *ret_len);

/* Parse the IP header at the start of pd[0..len).  -EMSGSIZE if len <
 * 36, -EPROTO for a cma_version other than 0 or an IP version other than
 * 4 or 6 (the kernel rejects such a REQ).  IPv4 pad bytes are zeroed in
 * *out whatever the peer sent. */
int eng_cm_pdata_decode(const uint8_t *pd, size_t len, struct eng_cm_ip_hdr *out);

#endif /* ENG_CM_PDATA_H */
