/* SPDX-License-Identifier: MIT */
/* The RoCEv2 ICRC over the masked IP/UDP/BTH fields (Annex A17.3.3),
 * with eng_wire_crc32.c's CRC-32.  Pure. */
#include "providers/soft/engine/eng_wire_icrc.h"

#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_crc32.h"
#include "providers/soft/engine/eng_wire_hdr.h"

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The 8 bytes of ones, the masked IP and UDP headers and the masked BTH
 * into ph; returns their length, or -EINVAL. */
static int pseudo_hdr(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		      const uint8_t *bth, uint8_t *ph)
{
	uint8_t *q = ph + 8;

	memset(ph, 0xff, 8);
	if (iplen >= 20 && ip[0] >> 4 == 4) {
		if (iplen != (size_t)(ip[0] & 0x0f) * 4)
			return -EINVAL;
		memcpy(q, ip, iplen);
		q[1] = 0xff;			/* TOS (DSCP, ECN) */
		q[8] = 0xff;			/* TTL */
		q[10] = q[11] = 0xff;		/* header checksum */
	} else if (iplen == 40 && ip[0] >> 4 == 6) {
		memcpy(q, ip, iplen);
		q[0] |= 0x0f;			/* traffic class ... */
		q[1] = q[2] = q[3] = 0xff;	/* ... and flow label */
		q[7] = 0xff;			/* hop limit */
	} else {
		return -EINVAL;
	}
	q += iplen;
	memcpy(q, udp, 8);
	q[6] = q[7] = 0xff;			/* UDP checksum */
	q += 8;
	memcpy(q, bth, ENG_BTH_LEN);
	q[4] = 0xff;				/* FECN, BECN, resv6 */
	return (int)(q + ENG_BTH_LEN - ph);
}

int eng_icrc_compute(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		     const struct iovec *iov, size_t iovcnt,
		     uint32_t *ret_icrc)
{
	uint8_t ph[8 + 60 + 8 + ENG_BTH_LEN], bth[ENG_BTH_LEN];
	size_t have = 0, i, skip;
	uint32_t c;
	int n;

	/* The BTH may straddle iovecs: gather its 12 bytes first. */
	for (i = 0; i < iovcnt && have < ENG_BTH_LEN; i++) {
		size_t take = iov[i].iov_len;

		if (take > ENG_BTH_LEN - have)
			take = ENG_BTH_LEN - have;
		if (take)	/* an empty iovec may have no base */
			memcpy(bth + have, iov[i].iov_base, take);
		have += take;
	}
	if (have < ENG_BTH_LEN)
		return -EINVAL;
	n = pseudo_hdr(ip, iplen, udp, bth, ph);
	if (n < 0)
		return n;
	c = eng_crc32_update(~0u, ph, (size_t)n);
	skip = ENG_BTH_LEN;
	for (i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t l = iov[i].iov_len, s = skip < l ? skip : l;

		skip -= s;
		if (l > s)
			c = eng_crc32_update(c, p + s, l - s);
	}
	*ret_icrc = ~c;
	return 0;
}

int eng_icrc_seal(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		  uint8_t *bth, size_t len)
{
	struct iovec v = { .iov_base = bth, .iov_len = len - ENG_ICRC_LEN };
	uint32_t icrc;
	int ret;

	if (len < ENG_BTH_LEN + ENG_ICRC_LEN)
		return -EINVAL;
	ret = eng_icrc_compute(ip, iplen, udp, &v, 1, &icrc);
	if (ret < 0)
		return ret;
	bth[len - 4] = (uint8_t)icrc;
	bth[len - 3] = (uint8_t)(icrc >> 8);
	bth[len - 2] = (uint8_t)(icrc >> 16);
	bth[len - 1] = (uint8_t)(icrc >> 24);
	return 0;
}

int eng_icrc_verify(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		    const uint8_t *bth, size_t len)
{
	struct iovec v = { .iov_base = (void *)bth,
			   .iov_len = len - ENG_ICRC_LEN };
	uint32_t icrc;
	int ret;

	if (len < ENG_BTH_LEN + ENG_ICRC_LEN)
		return -EINVAL;
	ret = eng_icrc_compute(ip, iplen, udp, &v, 1, &icrc);
	if (ret < 0)
		return ret;
	return icrc == load_le32(bth + len - 4) ? 0 : -EBADMSG;
}
