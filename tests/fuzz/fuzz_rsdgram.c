/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the datagram rsocket headers a peer can send us
 * (librdmacm's rc_rs_dgram_proto.c).  The first input byte chooses the
 * path -- bit 0: a UDP datagram (struct ds_udp_header in front) or a UD
 * message after its GRH (struct ds_header in front); bit 1: the UDP
 * sender's family -- and the rest is the datagram, in a buffer of
 * exactly its size so any read past it is ASan's.  Whatever the bytes,
 * a header is either refused with a reason or accepted with a length
 * inside the datagram and fields that encode back to the same bytes.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "librdmacm/rc_rs_dgram_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void udp(const uint8_t *b, size_t n, int family)
{
	struct rc_ds_udp h;
	uint8_t again[RC_DS_UDP_V6_LEN];
	size_t hlen = 0;
	enum rc_ds_bad bad = rc_ds_udp_decode(b, n, family, &h, &hlen);

	assert(bad >= RC_DS_OK && bad < RC_DS_BAD_NR);
	if (bad != RC_DS_OK)
		return;
	assert(hlen <= n);
	assert(hlen == (h.version == 6 ? RC_DS_UDP_V6_LEN : RC_DS_UDP_V4_LEN));
	assert((h.version == 4 && family == AF_INET) ||
	       (h.version == 6 && family == AF_INET6));
	assert(h.op == RC_DS_OP_DATA || h.op == RC_DS_OP_CTRL);
	assert(h.qpn <= RC_DS_QPN_MASK);
	/* Round trip, but for the reserved bytes (byte 7, QPN's top). */
	assert(rc_ds_udp_encode(&h, again) == hlen);
	assert(!memcmp(again, b, 7));
	assert(!memcmp(again + 9, b + 9, hlen - 9));
}

static void ud(const uint8_t *b, size_t n)
{
	struct sockaddr_storage src;
	socklen_t sl = 0;
	uint8_t again[RC_DS_V6_LEN];
	size_t hlen = 0;
	enum rc_ds_bad bad = rc_ds_hdr_decode(b, n, &src, &sl, &hlen);

	assert(bad >= RC_DS_OK && bad < RC_DS_BAD_NR);
	if (bad != RC_DS_OK)
		return;
	assert(hlen <= n);
	assert(src.ss_family == AF_INET || src.ss_family == AF_INET6);
	assert(sl == (src.ss_family == AF_INET ? sizeof(struct sockaddr_in) :
		      sizeof(struct sockaddr_in6)));
	assert(hlen == (src.ss_family == AF_INET ? RC_DS_V4_LEN : RC_DS_V6_LEN));
	assert(rc_ds_hdr_encode((struct sockaddr *)&src, again) == hlen);
	assert(!memcmp(again, b, hlen));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *b;

	if (size < 1)
		return 0;
	b = malloc(size - 1 ? size - 1 : 1);
	if (!b)
		return 0;
	memcpy(b, data + 1, size - 1);
	if (data[0] & 1)
		udp(b, size - 1, data[0] & 2 ? AF_INET6 : AF_INET);
	else
		ud(b, size - 1);
	free(b);
	return 0;
}
