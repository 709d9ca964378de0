/* SPDX-License-Identifier: MIT */
/*
 * The memory commands providers call (IBVERBS_PRIVATE_34): re-registering
 * an MR over the write ABI, querying, dma-buf and device-memory MRs and
 * prefetch advice over the ioctl ABI only, memory windows (allocation by
 * write, deallocation by ioctl with the write fallback) and device memory
 * (ioctl), filling the verbs objects as rdma-core 44's cmd_mr.c, cmd_mw.c,
 * cmd_dm.c and cmd.c do.  0 or a positive errno.
 */
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);

LV_EXPORT int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
			       void *addr, size_t length, uint64_t hca_va,
			       int access, struct ibv_pd *pd, void *cmd,
			       size_t cmd_size,
			       struct ib_uverbs_rereg_mr_resp *resp,
			       size_t resp_size);
LV_EXPORT int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
			       void *addr, size_t length, uint64_t hca_va,
			       int access, struct ibv_pd *pd, void *cmd,
			       size_t cmd_size,
			       struct ib_uverbs_rereg_mr_resp *resp,
			       size_t resp_size)
{
	struct ib_uverbs_rereg_mr_resp local;
	struct ib_uverbs_rereg_mr core = {
		.mr_handle = vmr->ibv_mr.handle, .flags = flags,
		.start = U64(addr), .length = length, .hca_va = hca_va,
		.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ? pd->handle : 0,
		.access_flags = (uint32_t)access,
	};
	int ret;

	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	ret = lv_cmd_write(vmr->ibv_mr.context, IB_USER_VERBS_CMD_REREG_MR,
			   cmd, cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	vmr->ibv_mr.lkey = resp->lkey;
	vmr->ibv_mr.rkey = resp->rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		vmr->ibv_mr.context = pd->context;
	return 0;
}

/* An MR of another process's context (ibv_import_mr): its keys and
 * length from the kernel; the address is not known here. */
LV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
			       uint32_t mr_handle);
LV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
			       uint32_t mr_handle)
{
	struct ibv_mr *mr = &vmr->ibv_mr;
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
	lv_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &mr->lkey,
		    sizeof(mr->lkey));
	lv_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &mr->rkey,
		    sizeof(mr->rkey));
	lv_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &mr->length,
		    sizeof(mr->length));
	ret = execute_ioctl(pd->context, &c.b);
	if (ret)
		return ret;
	mr->handle = mr_handle;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = NULL;
	vmr->mr_type = LV_MR_TYPE_IMPORTED_MR;
	return 0;
}

LV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, struct verbs_mr *vmr);
LV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, struct verbs_mr *vmr)
{
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 9,
		     NULL);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
	lv_attr_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey,
		    sizeof(lkey));
	lv_attr_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey,
		    sizeof(rkey));
	lv_attr_in_obj(&c, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd->handle);
	lv_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
	lv_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
	lv_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
	lv_attr_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_FD, (uint32_t)fd);
	lv_attr_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
		       (uint32_t)access);
	if (execute_ioctl(pd->context, &c.b))
		return errno;
	vmr->ibv_mr.handle = (uint32_t)handle->data;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = (void *)(uintptr_t)offset;
	vmr->ibv_mr.length = length;
	vmr->mr_type = LV_MR_TYPE_DMABUF_MR;
	return 0;
}

LV_EXPORT int ibv_cmd_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge);
LV_EXPORT int ibv_cmd_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd->handle);
	lv_attr_in_u64(&c, UVERBS_ATTR_ADVISE_MR_ADVICE, (uint64_t)advice);
	lv_attr_in_u32(&c, UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
	lv_attr_in(&c, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list,
		   (size_t)num_sge * sizeof(*sg_list));
	return execute_ioctl(pd->context, &c.b);
}

LV_EXPORT int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
			       struct ibv_mw *mw, void *cmd, size_t cmd_size,
			       struct ib_uverbs_alloc_mw_resp *resp,
			       size_t resp_size);
LV_EXPORT int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
			       struct ibv_mw *mw, void *cmd, size_t cmd_size,
			       struct ib_uverbs_alloc_mw_resp *resp,
			       size_t resp_size)
{
	struct ib_uverbs_alloc_mw_resp local;
	struct ib_uverbs_alloc_mw core = {
		.pd_handle = pd->handle, .mw_type = (uint8_t)type,
	};
	int ret;

	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	ret = lv_cmd_write(pd->context, IB_USER_VERBS_CMD_ALLOC_MW, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp->rkey;
	mw->handle = resp->mw_handle;
	mw->type = type;
	return 0;
}

LV_EXPORT int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
LV_EXPORT int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_MW, UVERBS_METHOD_MW_DESTROY, 1, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_MW_HANDLE, mw->handle);
	if (lv_cmd_ioctl_fallback(mw->context, LV_KOP_BIT(dealloc_mw), &c,
				  &ret) == LV_FB_WRITE) {
		struct ib_uverbs_dealloc_mw core = { .mw_handle = mw->handle };

		ret = lv_cmd_write(mw->context, IB_USER_VERBS_CMD_DEALLOC_MW,
				   NULL, 0, &core, sizeof(core), NULL, 0);
	}
	return lv_cmd_destroy_ret(ret);
}

LV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
			       const struct ibv_alloc_dm_attr *dm_attr,
			       struct verbs_dm *dm,
			       struct ibv_command_buffer *link);
LV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
			       const struct ibv_alloc_dm_attr *dm_attr,
			       struct verbs_dm *dm,
			       struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3, link);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_ALLOC_DM_HANDLE);
	lv_attr_in_u64(&c, UVERBS_ATTR_ALLOC_DM_LENGTH, dm_attr->length);
	lv_attr_in_u32(&c, UVERBS_ATTR_ALLOC_DM_ALIGNMENT,
		       dm_attr->log_align_req);
	if (execute_ioctl(ctx, &c.b))
		return errno;
	dm->handle = (uint32_t)handle->data;
	dm->dm.handle = dm->handle;
	dm->dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->dm.context = ctx;
	return 0;
}

LV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm);
LV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_FREE_DM_HANDLE, dm->handle);
	return lv_cmd_destroy_ret(execute_ioctl(dm->dm.context, &c.b));
}

/* Device memory MRs are zero based: the DM has no address of its own. */
LV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access, struct verbs_mr *vmr,
				struct ibv_command_buffer *link);
LV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access, struct verbs_mr *vmr,
				struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	struct lv_cmdb c;

	if (!(access & IBV_ACCESS_ZERO_BASED)) {
		errno = EINVAL;
		return EINVAL;
	}
	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8, link);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_REG_DM_MR_HANDLE);
	lv_attr_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &lkey, sizeof(lkey));
	lv_attr_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &rkey, sizeof(rkey));
	lv_attr_in_obj(&c, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, pd->handle);
	lv_attr_in_obj(&c, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, dm->handle);
	lv_attr_in_u64(&c, UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
	lv_attr_in_u64(&c, UVERBS_ATTR_REG_DM_MR_LENGTH, length);
	lv_attr_in_u32(&c, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
	if (execute_ioctl(pd->context, &c.b))
		return errno;
	vmr->ibv_mr.handle = (uint32_t)handle->data;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = NULL;
	vmr->mr_type = LV_MR_TYPE_MR;
	return 0;
}
