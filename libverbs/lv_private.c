/* SPDX-License-Identifier: MIT */
/*
 * The import verbs (ibv_import_device/_pd/_mr/_dm, ibv_unimport_*): a
 * kernel context's go to its provider (lv_kern_import.c); our own
 * devices' objects live in the engine and are not imported.  Every
 * provider-facing IBVERBS_PRIVATE_34 command is real now (lv_cmd_*.c);
 * a stub of that set, should one be needed again, belongs here, where
 * tests/abi/kprov_stubs.sh looks for them (every exported function of
 * this object that Debian's providers import fails the check).
 */
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_import.h"

/* Sharing objects between processes through a kernel cmd_fd: our
 * contexts are engine connections, which can't be imported. */
LV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	return lv_null_errno(-EOPNOTSUPP);
}

/* Importing by handle: a kernel context's provider may (mlx5); our
 * devices' objects live in the engine and are not imported. */
LV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
				       uint32_t pd_handle)
{
	if (context && lv_kern_priv(context))
		return lv_k_import_pd(context, pd_handle);
	return lv_null_errno(-EOPNOTSUPP);
}

LV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	if (pd && lv_kern_priv(pd->context))
		lv_k_unimport_pd(pd);
}

LV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_import_mr(pd, mr_handle);
	return lv_null_errno(-EOPNOTSUPP);
}

LV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (mr && lv_kern_priv(mr->context))
		lv_k_unimport_mr(mr);
}

LV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
				       uint32_t dm_handle)
{
	if (context && lv_kern_priv(context))
		return lv_k_import_dm(context, dm_handle);
	return lv_null_errno(-EOPNOTSUPP);
}

LV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (dm && lv_kern_priv(dm->context))
		lv_k_unimport_dm(dm);
}
