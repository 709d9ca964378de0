/* SPDX-License-Identifier: MIT */
/*
 * The Global Route Header a UD receive buffer starts with (IBA 11.4.1.2:
 * 40 bytes before the payload, IBV_WC_GRH).  On RoCEv2 the "GRH" is the
 * packet's IP header: an IPv6 header as is, or for IPv4 (IPv4-mapped
 * GIDs) 20 unused bytes followed by the 20-byte IPv4 header, which is what
 * ibv_init_ah_from_wc() expects from RoCE NICs.  Pure.
 */
#include <string.h>

#include "providers/soft/engine/eng_dp.h"

#define IPPROTO_UDP_NUM	17

static bool gid_is_v4mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g, pfx, sizeof(pfx)) == 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
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

uint8_t eng_dp_grh_wc_sl(const uint8_t sgid[16], const uint8_t dgid[16])
{
	/* The same test eng_dp_grh_build() uses to pick the header. */
	if (gid_is_v4mapped(sgid) && gid_is_v4mapped(dgid))
		return ENG_DP_WC_SL_ROCE_UDP | ENG_DP_WC_SL_IPV4;
	return ENG_DP_WC_SL_ROCE_UDP | ENG_DP_WC_SL_IPV6;
}

void eng_dp_grh_build(uint8_t out[ENG_DP_GRH_BYTES], const uint8_t sgid[16],
		      const uint8_t dgid[16], uint32_t payload_len,
		      uint8_t traffic_class, uint32_t flow_label,
		      uint8_t hop_limit)
{
	memset(out, 0, ENG_DP_GRH_BYTES);
	if (gid_is_v4mapped(sgid) && gid_is_v4mapped(dgid)) {
		uint8_t *ip = out + 20;

		ip[0] = 0x45;			/* version 4, 5 words */
		ip[1] = traffic_class;
		put16(ip + 2, (uint16_t)(20 + payload_len));
		put16(ip + 6, 0x4000);		/* don't fragment */
		ip[8] = hop_limit;
		ip[9] = IPPROTO_UDP_NUM;
		memcpy(ip + 12, sgid + 12, 4);
		memcpy(ip + 16, dgid + 12, 4);
		put16(ip + 10, ip_csum(ip));
		return;
	}
	out[0] = (uint8_t)(0x60 | traffic_class >> 4);
	out[1] = (uint8_t)(traffic_class << 4 | ((flow_label >> 16) & 0xf));
	put16(out + 2, (uint16_t)flow_label);
	put16(out + 4, (uint16_t)payload_len);
	out[6] = IPPROTO_UDP_NUM;
	out[7] = hop_limit;
	memcpy(out + 8, sgid, 16);
	memcpy(out + 24, dgid, 16);
}
