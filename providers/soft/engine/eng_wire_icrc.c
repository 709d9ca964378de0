/* SPDX-License-Identifier: MIT */
/* CRC-32 (reflected 0xEDB88320, slice-by-8) and the RoCEv2 ICRC over the
 * masked IP/UDP/BTH fields (Annex A17.3.3).  Pure. */
#include "providers/soft/engine/eng_wire_icrc.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_hdr.h"

/* Slice-by-8: crc_tab[k][b] is the CRC register after byte b followed by
 * k zero bytes, so 8 input bytes fold in with 8 lookups and no carried
 * dependency between them (8 KiB of tables, in L1). */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_tab_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
		crc_tab[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			crc_tab[k][b] = (crc_tab[k - 1][b] >> 8) ^
					crc_tab[0][crc_tab[k - 1][b] & 0xff];
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The register (pre- and post-inversion left to the caller). */
static uint32_t crc_update(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = load_le32(p) ^ c, hi = load_le32(p + 4);

		c = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		    crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		    crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
		    crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
	return c;
}

uint32_t eng_crc32(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_tab_init);
	return ~crc_update(~crc, buf, len);
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
		memcpy(bth + have, iov[i].iov_base, take);
		have += take;
	}
	if (have < ENG_BTH_LEN)
		return -EINVAL;
	n = pseudo_hdr(ip, iplen, udp, bth, ph);
	if (n < 0)
		return n;
	pthread_once(&crc_once, crc_tab_init);
	c = crc_update(~0u, ph, (size_t)n);
	skip = ENG_BTH_LEN;
	for (i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t l = iov[i].iov_len, s = skip < l ? skip : l;

		skip -= s;
		c = crc_update(c, p + s, l - s);
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
