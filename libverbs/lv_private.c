/* SPDX-License-Identifier: MIT */
/*
 * rdma-core's provider-facing symbols (IBVERBS_PRIVATE_34) and the
 * import/shared-object verbs.  Debian's kernel providers (libmlx5, libefa,
 * libmlx4) are linked with BIND_NOW against libibverbs.so.1, and perftest
 * links them directly, so every symbol they import must exist here for
 * those binaries to load at all.  Our providers are compiled in, so these
 * entry points are never part of a working path: they fail cleanly.
 * Argument lists are irrelevant to a stub that ignores them; return types
 * match (int errno, or NULL for the pointer-returning ones).
 */
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_import.h"

#define STUB_INT(name)				\
	LV_EXPORT int name(void);		\
	LV_EXPORT int name(void) { return EOPNOTSUPP; }
#define STUB_PTR(name)				\
	LV_EXPORT void *name(void);		\
	LV_EXPORT void *name(void) { errno = EOPNOTSUPP; return NULL; }
#define STUB_VOID(name)				\
	LV_EXPORT void name(void);		\
	LV_EXPORT void name(void) { }

/* verbs_register_driver_34 and the kernel device path are in
 * lv_kern_*.c; what is still a stub here fails cleanly. */
STUB_VOID(ibv_register_driver)

STUB_INT(ibv_cmd_attach_mcast)
STUB_INT(ibv_cmd_create_cq_ex)
STUB_INT(ibv_cmd_create_qp_ex)
STUB_INT(ibv_cmd_create_qp_ex2)
STUB_INT(ibv_cmd_create_srq_ex)
STUB_INT(ibv_cmd_detach_mcast)
STUB_INT(ibv_cmd_modify_cq)
STUB_INT(ibv_cmd_modify_qp_ex)
STUB_INT(ibv_cmd_modify_srq)
STUB_INT(ibv_cmd_poll_cq)
STUB_INT(ibv_cmd_post_recv)
STUB_INT(ibv_cmd_post_send)
STUB_INT(ibv_cmd_post_srq_recv)
STUB_INT(ibv_cmd_query_context)
STUB_INT(ibv_cmd_query_qp)
STUB_INT(ibv_cmd_query_srq)
STUB_INT(ibv_cmd_resize_cq)

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
