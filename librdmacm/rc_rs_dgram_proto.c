/* SPDX-License-Identifier: MIT */
/*
 * Datagram rsocket headers (rc_rs_dgram_proto.h): byte-exact encodings
 * of rdma-core's struct ds_udp_header and struct ds_header, and the
 * checks on what a peer sends.  Pure: no I/O, no allocation.  Every read
 * is bounded by the length given; nothing is trusted before it is
 * checked.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "librdmacm/rc_rs_dgram_proto.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

size_t rc_ds_udp_encode(const struct rc_ds_udp *h, uint8_t *out)
{
	size_t n = h->version == 6 ? RC_DS_UDP_V6_LEN : RC_DS_UDP_V4_LEN;

	put32(out, RC_DS_UDP_TAG);
	out[4] = h->version == 6 ? 6 : 4;
	out[5] = h->op;
	out[6] = (uint8_t)n;
	out[7] = 0;
	/* rdma-core: htobe32(qp_num & 0xFFFFFF). */
	put32(out + 8, h->qpn & RC_DS_QPN_MASK);
	memcpy(out + 12, h->addr, n - 12);
	return n;
}

enum rc_ds_bad rc_ds_udp_decode(const uint8_t *buf, size_t len, int family,
				struct rc_ds_udp *h, size_t *hlen)
{
	size_t want;

	if (len < RC_DS_UDP_V4_LEN)
		return RC_DS_BAD_SHORT;
	if (get32(buf) != RC_DS_UDP_TAG)
		return RC_DS_BAD_TAG;
	if (!(buf[4] == 4 && family == AF_INET) &&
	    !(buf[4] == 6 && family == AF_INET6))
		return RC_DS_BAD_VERSION;
	want = buf[4] == 6 ? RC_DS_UDP_V6_LEN : RC_DS_UDP_V4_LEN;
	if (buf[6] != want)
		return RC_DS_BAD_LENGTH;
	if (len < want)
		return RC_DS_BAD_SHORT;
	if (buf[5] != RC_DS_OP_DATA && buf[5] != RC_DS_OP_CTRL)
		return RC_DS_BAD_OP;
	memset(h, 0, sizeof(*h));
	h->version = buf[4];
	h->op = buf[5];
	h->qpn = get32(buf + 8) & RC_DS_QPN_MASK;
	memcpy(h->addr, buf + 12, want - 12);
	*hlen = want;
	return RC_DS_OK;
}

size_t rc_ds_hdr_encode(const struct sockaddr *sa, uint8_t *out)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;

		out[0] = 4;
		out[1] = RC_DS_V4_LEN;
		memcpy(out + 2, &s->sin_port, 2);	/* network order */
		memcpy(out + 4, &s->sin_addr, 4);
		return RC_DS_V4_LEN;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;

		out[0] = 6;
		out[1] = RC_DS_V6_LEN;
		memcpy(out + 2, &s->sin6_port, 2);
		/* rdma-core copies sin6_flowinfo as it is (already
		 * network order in the sockaddr). */
		memcpy(out + 4, &s->sin6_flowinfo, 4);
		memcpy(out + 8, &s->sin6_addr, 16);
		return RC_DS_V6_LEN;
	}
	return 0;
}

enum rc_ds_bad rc_ds_hdr_decode(const uint8_t *buf, size_t len,
				struct sockaddr_storage *src, socklen_t *srclen,
				size_t *hlen)
{
	if (len < RC_DS_V4_LEN)
		return RC_DS_BAD_SHORT;
	if (buf[0] != 4 && buf[0] != 6)
		return RC_DS_BAD_VERSION;
	if (buf[1] != (buf[0] == 4 ? RC_DS_V4_LEN : RC_DS_V6_LEN))
		return RC_DS_BAD_LENGTH;
	if (len < buf[1])
		return RC_DS_BAD_SHORT;
	memset(src, 0, sizeof(*src));
	if (buf[0] == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)src;

		s->sin_family = AF_INET;
		memcpy(&s->sin_port, buf + 2, 2);
		memcpy(&s->sin_addr, buf + 4, 4);
		*srclen = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)src;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_port, buf + 2, 2);
		memcpy(&s->sin6_flowinfo, buf + 4, 4);
		memcpy(&s->sin6_addr, buf + 8, 16);
		*srclen = sizeof(*s);
	}
	*hlen = buf[1];
	return RC_DS_OK;
}

size_t rc_ds_max_payload(int family)
{
	return RC_DS_MSG_MAX - (family == AF_INET6 ? RC_DS_V6_LEN :
				RC_DS_V4_LEN);
}
