/* SPDX-License-Identifier: MIT */
#include "tests/tools/pv-impair/pvi_frame.h"

#include <errno.h>

#define ETH_HLEN_ 14
#define VLAN_HLEN_ 4
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define PROTO_TCP 6
#define PROTO_UDP 17

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The L4 header at f[l4] (ending no later than end): its payload. */
static int l4_payload(const uint8_t *f, size_t l4, size_t end, unsigned proto,
		      size_t *ret_off, size_t *ret_len)
{
	size_t hlen, stop = end;

	if (proto == PROTO_UDP) {
		hlen = 8;
		if (l4 + hlen > end)
			return -EBADMSG;
		/* RFC 768: the length covers header and data. */
		if (be16(f + l4 + 4) < hlen || l4 + be16(f + l4 + 4) > end)
			return -EBADMSG;
		stop = l4 + be16(f + l4 + 4);
	} else if (proto == PROTO_TCP) {
		if (l4 + 20 > end)
			return -EBADMSG;
		hlen = (size_t)(f[l4 + 12] >> 4) * 4;	/* RFC 9293 data offset */
		if (hlen < 20 || l4 + hlen > end)
			return -EBADMSG;
	} else {
		return -ENOENT;
	}
	if (stop <= l4 + hlen)
		return -ENOENT;
	*ret_off = l4 + hlen;
	*ret_len = stop - (l4 + hlen);
	return 0;
}

static int ipv4_payload(const uint8_t *f, size_t l3, size_t len,
			size_t *ret_off, size_t *ret_len)
{
	size_t ihl, tot;

	if (l3 + 20 > len || f[l3] >> 4 != 4)
		return -EBADMSG;
	ihl = (size_t)(f[l3] & 0xf) * 4;
	tot = be16(f + l3 + 2);
	if (ihl < 20 || tot < ihl || l3 + tot > len)
		return -EBADMSG;
	/* RFC 791: only the first fragment (offset 0) holds the L4 header. */
	if (be16(f + l3 + 6) & 0x1fff)
		return -ENOENT;
	return l4_payload(f, l3 + ihl, l3 + tot, f[l3 + 9], ret_off, ret_len);
}

static int ipv6_payload(const uint8_t *f, size_t l3, size_t len,
			size_t *ret_off, size_t *ret_len)
{
	size_t plen;

	if (l3 + 40 > len || f[l3] >> 4 != 6)
		return -EBADMSG;
	plen = be16(f + l3 + 4);
	if (l3 + 40 + plen > len)
		return -EBADMSG;
	/* Extension headers are not walked: only a UDP/TCP next header. */
	return l4_payload(f, l3 + 40, l3 + 40 + plen, f[l3 + 6], ret_off,
			  ret_len);
}

int pvi_frame_l4_payload(const uint8_t *f, size_t len, size_t *ret_off,
			 size_t *ret_len)
{
	size_t l3 = ETH_HLEN_;
	unsigned type;

	if (len < ETH_HLEN_)
		return -EBADMSG;
	type = be16(f + 12);
	for (int tags = 0; tags < 2 &&
	     (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ); tags++) {
		if (l3 + VLAN_HLEN_ > len)
			return -EBADMSG;
		type = be16(f + l3 + 2);
		l3 += VLAN_HLEN_;
	}
	if (type == ETHERTYPE_IPV4)
		return ipv4_payload(f, l3, len, ret_off, ret_len);
	if (type == ETHERTYPE_IPV6)
		return ipv6_payload(f, l3, len, ret_off, ret_len);
	return -ENOENT;
}

long pvi_frame_corrupt(uint8_t *f, size_t len, uint64_t r)
{
	size_t off, n, bit;
	int ret = pvi_frame_l4_payload(f, len, &off, &n);

	if (ret < 0)
		return ret;
	bit = (size_t)(r % ((uint64_t)n * 8));
	f[off + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	return (long)(off * 8 + bit);
}
