/* SPDX-License-Identifier: MIT */
/*
 * Importing objects by handle on a kernel context (lv_kern_import.h):
 * mlx5's import_mr, for one, queries the MR with ibv_cmd_query_mr.
 */
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_import.h"

struct ibv_pd *lv_k_import_pd(struct ibv_context *c, uint32_t pd_handle)
{
	if (!lv_kops(c)->import_pd)
		return lv_null_errno(-EOPNOTSUPP);
	return lv_kops(c)->import_pd(c, pd_handle);
}

void lv_k_unimport_pd(struct ibv_pd *pd)
{
	if (lv_kops(pd->context)->unimport_pd)
		lv_kops(pd->context)->unimport_pd(pd);
}

struct ibv_mr *lv_k_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	if (!lv_kops(pd->context)->import_mr)
		return lv_null_errno(-EOPNOTSUPP);
	return lv_kops(pd->context)->import_mr(pd, mr_handle);
}

void lv_k_unimport_mr(struct ibv_mr *mr)
{
	if (lv_kops(mr->context)->unimport_mr)
		lv_kops(mr->context)->unimport_mr(mr);
}

struct ibv_dm *lv_k_import_dm(struct ibv_context *c, uint32_t dm_handle)
{
	if (!lv_kops(c)->import_dm)
		return lv_null_errno(-EOPNOTSUPP);
	return lv_kops(c)->import_dm(c, dm_handle);
}

void lv_k_unimport_dm(struct ibv_dm *dm)
{
	if (lv_kops(dm->context)->unimport_dm)
		lv_kops(dm->context)->unimport_dm(dm);
}
