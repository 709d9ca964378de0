/* SPDX-License-Identifier: MIT */
/* Protection domains and memory regions. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/pv_usdt.h"
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"
#include "libverbs/lv_kern_mr.h"

#define pv_pd_of(p) ((struct pv_pd *)(p))
#define pv_mr_of(m) ((struct pv_mr *)(m))

LV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	if (context && lv_kern_priv(context))
		return lv_k_alloc_pd(context);
	struct pv_context *ctx;
	struct pv_pd *pd;
	int ret;

	if (!context)
		return lv_null_errno(-EINVAL);
	ctx = pv_ctx(context);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return lv_null_errno(-ENOMEM);
	pd->ibv.context = context;
	ret = ctx->ops->alloc_pd(ctx, pd);
	if (ret < 0) {
		free(pd);
		return lv_null_errno(ret);
	}
	pd->ibv.handle = pd->handle;
	return &pd->ibv;
}

LV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_dealloc_pd(pd);
	struct pv_context *ctx;
	int ret;

	if (!pd)
		return lv_errno(-EINVAL);
	if (pv_pd_of(pd)->inner)
		return lv_dealloc_parent_domain(pv_pd_of(pd));
	if (atomic_load(&pv_pd_of(pd)->users))
		return lv_errno(-EBUSY);
	ctx = pv_ctx(pd->context);
	ret = ctx->ops->dealloc_pd(ctx, pv_pd_of(pd));
	if (ret < 0)
		return lv_errno(ret);
	free(pd);
	return 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, unsigned int access)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_reg_mr(pd, addr, length, iova, access);
	struct pv_context *ctx;
	struct pv_mr *mr;
	int ret;

	if (!pd)
		return lv_null_errno(-EINVAL);
	ctx = pv_ctx(pd->context);
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return lv_null_errno(-ENOMEM);
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	ret = ctx->ops->reg_mr(ctx, pv_pd_of(pd), mr, iova, access);
	PV_USDT(podverbs, reg_mr, addr, length, access,
		ret < 0 ? 0 : mr->ibv.lkey, -ret);
	if (ret < 0) {
		free(mr);
		return lv_null_errno(ret);
	}
	mr->ibv.handle = mr->handle;
	return &mr->ibv;
}

#undef ibv_reg_mr
LV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

#undef ibv_reg_mr_iova
LV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

/* Optional access flags (IBV_ACCESS_OPTIONAL_RANGE) may be ignored by the
 * device, so they are dropped here rather than rejected. */
LV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	return reg_mr(pd, addr, length, iova,
		      access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE);
}

LV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova,
					   int fd, int access)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_reg_dmabuf_mr(pd, offset, length, iova, fd, access);
	return lv_null_errno(-EOPNOTSUPP);
}

/* ibv_rereg_mr(3), with rdma-core 44's argument checks and results:
 * IBV_REREG_MR_ERR_INPUT (bad arguments, errno EINVAL) and
 * IBV_REREG_MR_ERR_CMD (the device refused; errno says why).  Ours leaves
 * the MR as it was on ERR_CMD, which rdma-core only allows.  No fork
 * ranges change: the provider's share already keeps registered pages
 * out of children (lv_fork.c), so the _FORK_ results never happen. */
LV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	if (mr && lv_kern_priv(mr->context))
		return lv_k_rereg_mr(mr, flags, pd, addr, length, access);
	bool xlate = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	struct pv_context *ctx;
	int ret;

	if (!mr || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    (xlate && (!addr || !length)) || (!xlate && (addr || length)) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	ctx = pv_ctx(mr->context);
	if ((flags & IBV_REREG_MR_CHANGE_PD) && pd->context != mr->context) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	ret = ctx->ops->rereg_mr ?
	      ctx->ops->rereg_mr(ctx, pv_mr_of(mr), flags,
				 (flags & IBV_REREG_MR_CHANGE_PD) ?
				 pv_pd_of(pd) : NULL, addr, length,
				 (unsigned int)access) : -EOPNOTSUPP;
	if (ret < 0) {
		errno = -ret;
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (xlate) {
		mr->addr = addr;
		mr->length = length;
	}
	return 0;
}

LV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (mr && lv_kern_priv(mr->context))
		return lv_k_dereg_mr(mr);
	struct pv_context *ctx;
	int ret;

	if (!mr)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(mr->context);
	ret = ctx->ops->dereg_mr(ctx, pv_mr_of(mr));
	PV_USDT(podverbs, dereg_mr, mr->lkey, -ret);
	if (ret < 0)
		return lv_errno(ret);
	free(mr);
	return 0;
}
