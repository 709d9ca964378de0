/* SPDX-License-Identifier: MIT */
/*
 * Work queues and their RSS indirection tables (IBVERBS_PRIVATE_34), as
 * rdma-core 44's cmd_wq.c, cmd_rwq_ind.c and cmd.c: create_wq by ioctl
 * with the extended write command as fallback, destroys by ioctl with
 * the write fallback, modify_wq and the indirection table's creation
 * over the extended write ABI.  0 or a positive errno.
 */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* The provider's request: extended headers, core, its data. */
#define WQ_CORE_REQ (sizeof(struct lv_ex_hdr) + \
		     sizeof(struct ib_uverbs_ex_create_wq))

static int create_wq_write(struct ibv_context *ctx,
			   struct ibv_wq_init_attr *attr, struct ibv_wq *wq,
			   uint32_t flags, void *cmd, size_t cmd_size,
			   struct ib_uverbs_ex_create_wq_resp *resp,
			   size_t resp_size)
{
	struct ib_uverbs_ex_create_wq core = {
		.user_handle = U64(wq), .pd_handle = attr->pd->handle,
		.cq_handle = attr->cq->handle, .max_wr = attr->max_wr,
		.max_sge = attr->max_sge, .wq_type = (uint32_t)attr->wq_type,
		.create_flags = flags,
	};
	int ret = lv_cmd_write_ex(ctx, IB_USER_VERBS_EX_CMD_CREATE_WQ, cmd,
				  cmd_size, &core, sizeof(core), resp,
				  sizeof(*resp), resp_size);

	if (ret)
		return ret;
	wq->handle = resp->wq_handle;
	attr->max_wr = resp->max_wr;
	attr->max_sge = resp->max_sge;
	wq->wq_num = resp->wqn;
	return 0;
}

LV_EXPORT int ibv_cmd_create_wq(struct ibv_context *context,
				struct ibv_wq_init_attr *wq_init_attr,
				struct ibv_wq *wq, void *cmd, size_t cmd_size,
				struct ib_uverbs_ex_create_wq_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_create_wq(struct ibv_context *context,
				struct ibv_wq_init_attr *wq_init_attr,
				struct ibv_wq *wq, void *cmd, size_t cmd_size,
				struct ib_uverbs_ex_create_wq_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_ex_create_wq_resp local;
	uint32_t flags = 0, max_wr = 0, max_sge = 0, wq_num = 0;
	struct ib_uverbs_attr *handle;
	struct lv_cmdb c;
	int ret;

	if (wq_init_attr->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED) {
		errno = EINVAL;
		return EINVAL;
	}
	if (wq_init_attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) {
		if (wq_init_attr->create_flags & ~(IBV_WQ_FLAGS_RESERVED - 1)) {
			errno = EOPNOTSUPP;
			return EOPNOTSUPP;
		}
		flags = wq_init_attr->create_flags;
	}
	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	wq->context = context;
	wq->cq = wq_init_attr->cq;
	wq->pd = wq_init_attr->pd;
	wq->wq_type = wq_init_attr->wq_type;

	lv_cmdb_init(&c, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 15, NULL);
	lv_attr_uhw(&c, cmd, WQ_CORE_REQ, cmd_size, resp, sizeof(*resp),
		    resp_size);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_CREATE_WQ_HANDLE);
	lv_attr_in_u64(&c, UVERBS_ATTR_CREATE_WQ_USER_HANDLE, U64(wq));
	lv_attr_in_obj(&c, UVERBS_ATTR_CREATE_WQ_PD_HANDLE,
		       wq_init_attr->pd->handle);
	lv_attr_in_obj(&c, UVERBS_ATTR_CREATE_WQ_CQ_HANDLE,
		       wq_init_attr->cq->handle);
	lv_attr_in_u64(&c, UVERBS_ATTR_CREATE_WQ_TYPE,
		       (uint64_t)wq_init_attr->wq_type);
	lv_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_WR, wq_init_attr->max_wr);
	lv_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_SGE,
		       wq_init_attr->max_sge);
	lv_attr_in_fd(&c, UVERBS_ATTR_CREATE_WQ_EVENT_FD, context->async_fd);
	lv_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_FLAGS, flags);
	lv_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &max_wr,
		    sizeof(max_wr));
	lv_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &max_sge,
		    sizeof(max_sge));
	lv_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &wq_num,
		    sizeof(wq_num));
	c.b.fallback_require_ex = 1;

	switch (lv_cmd_ioctl_fallback(context, LV_KOP_BIT(create_wq), &c,
				      &ret)) {
	case LV_FB_DONE:
		break;
	case LV_FB_WRITE:
	case LV_FB_WRITE_EX:
		return create_wq_write(context, wq_init_attr, wq, flags, cmd,
				       cmd_size, resp, resp_size);
	default:
		return ret;
	}
	wq->handle = (uint32_t)handle->data;
	wq->wq_num = wq_num;
	wq_init_attr->max_wr = max_wr;
	wq_init_attr->max_sge = max_sge;
	return 0;
}

/* Sent whole as the core (rdma-core's execute_cmd_write_ex_req): a
 * provider's trailing data must read zero to the kernel. */
LV_EXPORT int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
				void *cmd, size_t cmd_size);
LV_EXPORT int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
				void *cmd, size_t cmd_size)
{
	struct {
		struct lv_ex_hdr h;
		struct ib_uverbs_ex_modify_wq core;
	} local;
	struct ib_uverbs_ex_modify_wq core = {
		.attr_mask = attr->attr_mask, .wq_handle = wq->handle,
		.wq_state = (uint32_t)attr->wq_state,
		.curr_wq_state = (uint32_t)attr->curr_wq_state,
	};
	int ret;

	if (attr->attr_mask >= IBV_WQ_ATTR_RESERVED)
		return EINVAL;
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		if (attr->flags_mask & ~(IBV_WQ_FLAGS_RESERVED - 1))
			return EOPNOTSUPP;
		core.flags = attr->flags;
		core.flags_mask = attr->flags_mask;
	}
	if (!cmd || cmd_size < sizeof(local)) {
		cmd = &local;
		cmd_size = sizeof(local);
	}
	memset(cmd, 0, sizeof(local));
	memcpy((char *)cmd + sizeof(struct lv_ex_hdr), &core, sizeof(core));
	ret = lv_cmd_write_ex_full(wq->context, IB_USER_VERBS_EX_CMD_MODIFY_WQ,
				   cmd, cmd_size, cmd_size, NULL, 0, 0);
	if (ret)
		return ret;
	if (attr->attr_mask & IBV_WQ_ATTR_STATE)
		wq->state = attr->wq_state;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_wq(struct ibv_wq *wq);
LV_EXPORT int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	struct ib_uverbs_ex_destroy_wq_resp resp = { 0 };
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, 2, NULL);
	lv_attr_out(&c, UVERBS_ATTR_DESTROY_WQ_RESP, &resp.events_reported,
		    sizeof(resp.events_reported));
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_WQ_HANDLE, wq->handle);
	switch (lv_cmd_ioctl_fallback(wq->context, LV_KOP_BIT(destroy_wq), &c,
				      &ret)) {
	case LV_FB_WRITE:
	case LV_FB_WRITE_EX: {
		struct ib_uverbs_ex_destroy_wq core = { .wq_handle = wq->handle };

		ret = lv_cmd_write_ex(wq->context,
				      IB_USER_VERBS_EX_CMD_DESTROY_WQ, NULL, 0,
				      &core, sizeof(core), &resp, sizeof(resp),
				      sizeof(resp));
		break;
	}
	default:
		break;
	}
	ret = lv_cmd_destroy_ret(ret);
	if (ret)
		return ret;
	pthread_mutex_lock(&wq->mutex);
	while (wq->events_completed != resp.events_reported)
		pthread_cond_wait(&wq->cond, &wq->mutex);
	pthread_mutex_unlock(&wq->mutex);
	return 0;
}

LV_EXPORT int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr,
		struct ibv_rwq_ind_table *rwq_ind_table,
		struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
		size_t resp_size);
LV_EXPORT int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr,
		struct ibv_rwq_ind_table *rwq_ind_table,
		struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
		size_t resp_size)
{
	struct ib_uverbs_ex_create_rwq_ind_table *core;
	size_t n, size;
	uint32_t *handles;
	void *cmd;
	int ret;

	if (init_attr->comp_mask >= IBV_CREATE_IND_TABLE_RESERVED ||
	    init_attr->log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE ||
	    !resp || resp_size < sizeof(*resp))
		return EINVAL;
	n = (size_t)1 << init_attr->log_ind_tbl_size;
	/* The whole message is a multiple of 8 bytes. */
	size = sizeof(struct lv_ex_hdr) + sizeof(*core) + n * sizeof(uint32_t);
	size = (size + 7) / 8 * 8;
	cmd = calloc(1, size);
	if (!cmd)
		return ENOMEM;
	core = (void *)((char *)cmd + sizeof(struct lv_ex_hdr));
	core->log_ind_tbl_size = init_attr->log_ind_tbl_size;
	handles = (uint32_t *)(core + 1);
	for (size_t i = 0; i < n; i++)
		handles[i] = init_attr->ind_tbl[i]->handle;
	ret = lv_cmd_write_ex_full(context,
				   IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL, cmd,
				   size, size, resp, sizeof(*resp), resp_size);
	free(cmd);
	if (ret)
		return ret;
	if (resp->response_length < sizeof(*resp))
		return EINVAL;
	rwq_ind_table->ind_tbl_handle = resp->ind_tbl_handle;
	rwq_ind_table->ind_tbl_num = resp->ind_tbl_num;
	rwq_ind_table->context = context;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t);
LV_EXPORT int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_RWQ_IND_TBL,
		     UVERBS_METHOD_RWQ_IND_TBL_DESTROY, 1, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE,
		       t->ind_tbl_handle);
	if (lv_cmd_ioctl_fallback(t->context, LV_KOP_BIT(destroy_rwq_ind_table),
				  &c, &ret) == LV_FB_WRITE) {
		struct ib_uverbs_ex_destroy_rwq_ind_table core = {
			.ind_tbl_handle = t->ind_tbl_handle,
		};

		ret = lv_cmd_write_ex(t->context,
				      IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL,
				      NULL, 0, &core, sizeof(core), NULL, 0, 0);
	}
	return lv_cmd_destroy_ret(ret);
}
