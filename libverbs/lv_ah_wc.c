/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers for ibv_init_ah_from_wc: read the GRH (or the IPv4 header
 * RoCEv2 puts in its place) that precedes a UD receive, and build the
 * address vector that answers the sender.
 */
#include <endian.h>
#include <string.h>

#include "libverbs/lv_core.h"

/* RFC 791 header checksum over the 20-byte header, host-independent. */
static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void gid_from_ipv4(union ibv_gid *gid, const uint8_t *addr)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], addr, 4);
}

/*
 * Which header the 40 bytes hold.  An IPv6 GRH starts with version 6; an
 * IPv4 header sits at offset 20 with version 4.  When both could match
 * (the first 20 bytes are undefined for IPv4 and may look like version 6),
 * a valid 20-byte IPv4 header with a correct checksum decides for IPv4.
 */
static int grh_version(const uint8_t *b)
{
	const uint8_t *ip4 = b + 20;
	bool maybe4 = (ip4[0] >> 4) == 4;
	bool maybe6 = (b[0] >> 4) == 6;

	if (!maybe6)
		return maybe4 ? 4 : -EPROTONOSUPPORT;
	if (maybe4 && (ip4[0] & 0x0f) == 5 && ipv4_csum(ip4) == 0)
		return 4;
	return 6;
}

int lv_grh_parse(const struct ibv_grh *grh, struct lv_grh_info *out)
{
	const uint8_t *b = (const uint8_t *)grh;
	int version = grh_version(b);

	if (version < 0)
		return version;
	memset(out, 0, sizeof(*out));
	out->ip_version = version;
	if (version == 4) {
		const uint8_t *ip4 = b + 20;

		out->traffic_class = ip4[1];	/* TOS */
		gid_from_ipv4(&out->sgid, ip4 + 12);
		gid_from_ipv4(&out->dgid, ip4 + 16);
	} else {
		uint32_t vtf = be32toh(grh->version_tclass_flow);

		out->traffic_class = (vtf >> 20) & 0xff;
		out->flow_label = vtf & 0xfffff;
		out->sgid = grh->sgid;
		out->dgid = grh->dgid;
	}
	return 0;
}

void lv_ah_attr_from_wc(const struct ibv_wc *wc, uint8_t port_num,
			const struct lv_grh_info *g, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = wc->slid;
	ah->sl = wc->sl;
	ah->src_path_bits = wc->dlid_path_bits;
	ah->port_num = port_num;
	if (!g)
		return;
	ah->is_global = 1;
	ah->grh.dgid = g->sgid;		/* reply goes to the sender */
	ah->grh.flow_label = g->flow_label;
	ah->grh.traffic_class = g->traffic_class;
	/* The packet's remaining hop count says nothing about the way back:
	 * allow the maximum. */
	ah->grh.hop_limit = 0xff;
}
