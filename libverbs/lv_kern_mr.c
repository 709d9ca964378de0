/* SPDX-License-Identifier: MIT */
/*
 * ibv_rereg_mr and ibv_reg_dmabuf_mr on a kernel context: the provider's
 * op, with the checks, fork-range bookkeeping and results of rdma-core
 * 44's verbs.c.  A provider without the op fails as rdma-core's dummy
 * does: ibv_rereg_mr gives IBV_REREG_MR_ERR_CMD with errno EOPNOTSUPP,
 * ibv_reg_dmabuf_mr NULL with EOPNOTSUPP.
 */
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_verbs.h"
#include "libverbs/lv_kern_mr.h"
#include "libverbs/lv_cmd_attr.h"

int lv_k_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	const struct verbs_context_ops *ops = lv_kops(mr->context);
	bool xlate = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	void *old_addr = mr->addr;
	size_t old_len = mr->length;
	int ret;

	if (((struct verbs_mr *)mr)->mr_type != LV_MR_TYPE_MR ||
	    (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    (xlate && (!length || !addr)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (xlate && ibv_dontfork_range(addr, length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;
	if (ops->rereg_mr) {
		ret = ops->rereg_mr((struct verbs_mr *)mr, flags, pd, addr,
				    length, access);
	} else {
		errno = EOPNOTSUPP;
		ret = IBV_REREG_MR_ERR_INPUT;
	}
	if (ret) {
		if (xlate && ibv_dofork_range(addr, length))
			return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (xlate) {
		mr->addr = addr;
		mr->length = length;
		if (ibv_dofork_range(old_addr, old_len))
			return IBV_REREG_MR_ERR_DO_FORK_OLD;
	}
	return 0;
}

struct ibv_mr *lv_k_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	const struct verbs_context_ops *ops = lv_kops(pd->context);
	struct ibv_mr *mr;

	if (!ops->reg_dmabuf_mr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mr = ops->reg_dmabuf_mr(pd, offset, length, iova, fd, access);
	if (!mr)
		return NULL;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = (void *)(uintptr_t)offset;
	mr->length = length;
	return mr;
}
