/* SPDX-License-Identifier: MIT */
/* The IP/UDP headers the ICRC covers, rebuilt, and the IPv4 ID recovered
 * from the ICRC (eng_wire_iphdr.h).  Pure. */
#include "providers/soft/engine/eng_wire_iphdr.h"

#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_crc32.h"
#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_icrc.h"

#define IP_PROTO_UDP	17
#define CRC_POLY	0xedb88320u	/* reflected CRC-32 (eng_wire_crc32.h) */
/* Distances up to 2^LEVELS - 1 bytes: a 64 KiB datagram and headers. */
#define LEVELS		18

bool eng_wire_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, pfx, sizeof(pfx)) == 0;
}

/* RFC 791 header checksum over 20 bytes. */
static uint16_t ip_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void eng_wire_ip_set_id(struct eng_wire_ip *h, uint16_t ip_id)
{
	if (h->iplen != 20)
		return;
	eng_put16(h->ip + 4, ip_id);
	eng_put16(h->ip + 10, 0);
	eng_put16(h->ip + 10, ip_csum(h->ip));
}

int eng_wire_ip_build(struct eng_wire_ip *out, const uint8_t sgid[16],
		      const uint8_t dgid[16], uint16_t sport, uint16_t dport,
		      uint32_t udp_payload, uint8_t tos, uint8_t ttl,
		      uint16_t ip_id)
{
	bool v4 = eng_wire_gid_is_v4(sgid);
	uint8_t *ip = out->ip;

	if (v4 != eng_wire_gid_is_v4(dgid) || udp_payload > 65535 - 8 - 20)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (v4) {
		out->iplen = 20;
		ip[0] = 0x45;			/* version 4, 5 words */
		ip[1] = tos;
		eng_put16(ip + 2, (uint16_t)(20 + 8 + udp_payload));
		eng_put16(ip + 6, 0x4000);	/* DF (RoCE never fragments) */
		ip[8] = ttl;
		ip[9] = IP_PROTO_UDP;
		memcpy(ip + 12, sgid + 12, 4);
		memcpy(ip + 16, dgid + 12, 4);
		eng_wire_ip_set_id(out, ip_id);
	} else {
		out->iplen = 40;
		ip[0] = (uint8_t)(0x60 | tos >> 4);
		ip[1] = (uint8_t)(tos << 4);
		eng_put16(ip + 4, (uint16_t)(8 + udp_payload));
		ip[6] = IP_PROTO_UDP;
		ip[7] = ttl;
		memcpy(ip + 8, sgid, 16);
		memcpy(ip + 24, dgid, 16);
	}
	eng_put16(out->udp, sport);
	eng_put16(out->udp + 2, dport);
	eng_put16(out->udp + 4, (uint16_t)(8 + udp_payload));
	return 0;
}

/*
 * The CRC register step is r' = (r >> 8) ^ T[(r ^ byte) & 0xff].  Its
 * zero-byte form Z(r) = (r >> 8) ^ T[r & 0xff] is invertible because the
 * top bytes of T's 256 entries are all different: the top byte of r'
 * names r's low byte.  tabs holds T, that inverse, and Z^-(2^k) and
 * Z^(2^k) as matrices (m[k][b], f[k][b]: the image of bit b).
 */
struct crc_tabs {
	bool ready, ok;
	uint32_t t[256];
	uint8_t top_inv[256];
	uint32_t m[LEVELS][32];
	uint32_t f[LEVELS][32];		/* Z^(2^k): forward */
};

static struct crc_tabs tabs;

static uint32_t zinv(uint32_t r)
{
	uint8_t i = tabs.top_inv[r >> 24];

	return ((r ^ tabs.t[i]) << 8) | i;
}

static uint32_t mat_apply(const uint32_t *m, uint32_t v)
{
	uint32_t out = 0;

	for (int b = 0; v; b++, v >>= 1)
		if (v & 1)
			out ^= m[b];
	return out;
}

/* Built on first use (one loop thread; the unit tests too). */
static bool tabs_init(void)
{
	bool seen[256] = { false };

	if (tabs.ready)
		return tabs.ok;
	tabs.ready = true;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? CRC_POLY : 0);
		tabs.t[i] = c;
		if (seen[c >> 24])
			return false;	/* not this polynomial: never */
		seen[c >> 24] = true;
		tabs.top_inv[c >> 24] = (uint8_t)i;
	}
	for (int b = 0; b < 32; b++)
		tabs.m[0][b] = zinv(1u << b);
	for (int k = 1; k < LEVELS; k++)
		for (int b = 0; b < 32; b++)
			tabs.m[k][b] = mat_apply(tabs.m[k - 1],
						 tabs.m[k - 1][b]);
	/* Forward: Z itself, then Z^(2^k) by squaring. */
	for (int b = 0; b < 32; b++) {
		uint32_t r = 1u << b;

		tabs.f[0][b] = (r >> 8) ^ tabs.t[r & 0xff];
	}
	for (int k = 1; k < LEVELS; k++)
		for (int b = 0; b < 32; b++)
			tabs.f[k][b] = mat_apply(tabs.f[k - 1],
						 tabs.f[k - 1][b]);
	tabs.ok = true;
	return true;
}

/* Z^-n: the register n zero bytes earlier. */
static uint32_t zinv_n(uint32_t d, size_t n)
{
	for (int k = 0; k < LEVELS; k++)
		if (n >> k & 1)
			d = mat_apply(tabs.m[k], d);
	return d;
}

/* The two bytes b0 b1 whose register change from zero is s:
 * (T[b0] >> 8) ^ T[(T[b0] ^ b1) & 0xff]; -ENOENT when none. */
static int decode16(uint32_t s, uint16_t *v)
{
	uint8_t j = tabs.top_inv[s >> 24], b0;
	uint32_t u = s ^ tabs.t[j];	/* must be T[b0] >> 8 */

	if (u >> 24)
		return -ENOENT;
	b0 = tabs.top_inv[(u >> 16) & 0xff];
	if (tabs.t[b0] >> 8 != u)
		return -ENOENT;
	*v = (uint16_t)(b0 << 8 | (uint8_t)(j ^ tabs.t[b0]));
	return 0;
}

uint32_t eng_wire_icrc_id_delta(uint16_t ip_id, uint32_t udp_payload)
{
	uint32_t r;

	if (!ip_id || !tabs_init() || udp_payload + 18 >= (1u << LEVELS))
		return 0;
	/* The two ID bytes fed to a zero register (big-endian), then the
	 * udp_payload + 18 bytes after them (eng_wire_icrc_check_rx's
	 * stream: UDP header, packet without its ICRC, IPv4 bytes 6-19). */
	r = tabs.t[ip_id >> 8];
	r = (r >> 8) ^ tabs.t[(r ^ (ip_id & 0xff)) & 0xff];
	for (int k = 0; k < LEVELS; k++)
		if ((udp_payload + 18) >> k & 1)
			r = mat_apply(tabs.f[k], r);
	return r;
}

int eng_wire_crc_solve16(uint32_t diff, size_t n, uint16_t *v)
{
	if (!tabs_init() || n == 0 || n >= (1u << LEVELS))
		return -ENOENT;
	return decode16(zinv_n(diff, n), v);
}

/* As eng_wire_crc_solve16, also allowing the byte right after the two
 * (the IPv4 flags) to differ by 0x40 (DF): *df then says it did. */
static int solve_id_df(uint32_t diff, size_t n, uint16_t *v, bool *df)
{
	uint32_t u;

	*df = false;
	if (eng_wire_crc_solve16(diff, n, v) == 0)
		return 0;
	if (n < 2)
		return -ENOENT;
	/* Back to just after the flags byte, take the DF change out, then
	 * one byte further back to just after the ID. */
	u = zinv_n(diff, n - 1) ^ tabs.t[0x40];
	if (decode16(zinv(u), v) < 0)
		return -ENOENT;
	*df = true;
	return 0;
}

static uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int eng_wire_icrc_check_rx(struct eng_wire_ip *h, const uint8_t *bth,
			   size_t len, uint16_t *ip_id)
{
	struct iovec iov = { .iov_base = (void *)bth };
	uint32_t got, want;
	uint16_t id;
	bool df;
	int ret;

	*ip_id = 0;
	if (len < ENG_BTH_LEN + ENG_ICRC_LEN)
		return -EINVAL;
	iov.iov_len = len - ENG_ICRC_LEN;
	ret = eng_icrc_compute(h->ip, h->iplen, h->udp, &iov, 1, &want);
	if (ret < 0)
		return ret;
	got = load_le32(bth + len - ENG_ICRC_LEN);
	if (got == want)
		return 0;
	if (h->iplen != 20)
		return -EBADMSG;
	/* Stream: 8 bytes of ones, the IPv4 header (ID at its bytes 4-5),
	 * UDP, the packet without its ICRC; n bytes follow the ID. */
	if (solve_id_df(got ^ want, 8 + 20 + 8 + (len - ENG_ICRC_LEN) - 14,
			&id, &df) < 0)
		return -EBADMSG;
	if (df)
		h->ip[6] ^= 0x40;	/* sent without DF */
	eng_wire_ip_set_id(h, id);
	*ip_id = id;
	return 0;
}
