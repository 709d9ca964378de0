/* SPDX-License-Identifier: MIT */
/* Address handles, including the ones built from a received completion. */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

LV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
				       struct ibv_ah_attr *attr)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_create_ah(pd, attr);
	struct pv_context *ctx;
	struct pv_ah *ah;
	int ret;

	if (!pd || !attr)
		return lv_null_errno(-EINVAL);
	ctx = pv_ctx(pd->context);
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return lv_null_errno(-ENOMEM);
	ah->ibv.context = pd->context;
	ah->ibv.pd = pd;
	ret = ctx->ops->create_ah(ctx, ah, attr);
	if (ret < 0) {
		free(ah);
		return lv_null_errno(ret);
	}
	return &ah->ibv;
}

LV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (ah && lv_kern_priv(ah->context))
		return lv_k_destroy_ah(ah);
	struct pv_context *ctx;
	int ret;

	if (!ah)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(ah->context);
	ret = ctx->ops->destroy_ah(ctx, (struct pv_ah *)ah);
	if (ret < 0)
		return lv_errno(ret);
	free(ah);
	return 0;
}

/* Index of our GID the packet was addressed to, RoCEv2 for IPv4. */
static int find_sgid_index(struct ibv_context *context, uint8_t port,
			   const struct lv_grh_info *g)
{
	struct ibv_gid_entry entries[64];
	ssize_t n;

	n = _ibv_query_gid_table(context, entries, 64, 0, sizeof(entries[0]));
	if (n < 0)
		return (int)n;
	for (ssize_t i = 0; i < n; i++) {
		if (entries[i].port_num != port ||
		    memcmp(&entries[i].gid, &g->dgid, sizeof(g->dgid)))
			continue;
		if (g->ip_version == 4 &&
		    entries[i].gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		return (int)entries[i].gid_index;
	}
	return -ENOENT;
}

LV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
				  struct ibv_wc *wc, struct ibv_grh *grh,
				  struct ibv_ah_attr *ah_attr)
{
	struct lv_grh_info g;
	int ret;

	if (!context || !wc || !ah_attr)
		return lv_minus1(-EINVAL);
	if (!(wc->wc_flags & IBV_WC_GRH)) {
		lv_ah_attr_from_wc(wc, port_num, NULL, ah_attr);
		return 0;
	}
	if (!grh)
		return lv_minus1(-EINVAL);
	ret = lv_grh_parse(grh, &g);
	if (ret < 0)
		return lv_minus1(ret);
	lv_ah_attr_from_wc(wc, port_num, &g, ah_attr);
	ret = find_sgid_index(context, port_num, &g);
	if (ret < 0)
		return lv_minus1(ret);
	ah_attr->grh.sgid_index = (uint8_t)ret;
	return 0;
}

LV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
					       struct ibv_wc *wc,
					       struct ibv_grh *grh,
					       uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (!pd)
		return lv_null_errno(-EINVAL);
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

LV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					  struct ibv_ah_attr *attr,
					  uint8_t eth_mac[6], uint16_t *vid)
{
	return lv_errno(-EOPNOTSUPP);
}
