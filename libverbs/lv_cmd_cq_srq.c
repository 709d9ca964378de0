/* SPDX-License-Identifier: MIT */
/*
 * The CQ and SRQ commands of the provider ABI beyond create/destroy
 * (lv_cmd_verbs.c): create_cq_ex, resize_cq, modify_cq, create_srq_ex,
 * modify_srq and query_srq, with rdma-core 44's semantics.
 *
 * create_cq_ex goes over the ioctl ABI first (UVERBS_METHOD_CQ_CREATE,
 * the provider's udata as UHW_IN/UHW_OUT) and falls back to the
 * extended write command when the kernel answers that it has no ioctl
 * framework (ENOTTY), not this method or one of its mandatory attributes
 * (EPROTONOSUPPORT), or EOPNOTSUPP; the refusal is remembered per
 * context (lv_kern_priv.unsupported_ioctls), so later calls go straight
 * to write.  The rest use the write ABI as rdma-core does.
 */
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_ioctl_fill.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* driver.h: the provider's kernel ignores the timestamp flag of the
 * legacy create, so that flag alone does not need the extended one. */
#define LV_CREATE_CQ_TS_IGNORED_EX (1u << 0)

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);

/* The unsupported_ioctls bit of an ops slot. */
#define KOP_BIT(op) (offsetof(struct verbs_context_ops, op) / sizeof(void *))

static bool ioctl_refused(struct ibv_context *c, size_t bit)
{
	struct lv_kern_priv *p = lv_kern_priv(c);

	return !p || (p->unsupported_ioctls[bit / 64] >> (bit % 64)) & 1;
}

/* 0 after the ioctl ran, 1 when the write ABI is to be tried, or a
 * positive errno. */
static int ioctl_or_fallback(struct ibv_context *c, size_t bit,
			     struct ibv_command_buffer *cmd)
{
	struct lv_kern_priv *p = lv_kern_priv(c);
	int ret;

	if (ioctl_refused(c, bit))
		return 1;
	ret = execute_ioctl(c, cmd);
	if (!ret)
		return 0;
	if (ret == ENOTTY) {	/* no ioctl framework at all */
		memset(p->unsupported_ioctls, 0xff,
		       sizeof(p->unsupported_ioctls));
		return 1;
	}
	if (ret == EPROTONOSUPPORT || ret == EOPNOTSUPP) {
		p->unsupported_ioctls[bit / 64] |= 1ull << (bit % 64);
		return 1;
	}
	return ret;
}

static int create_cq_ioctl(struct ibv_context *c,
			   const struct ibv_cq_init_attr_ex *attr,
			   struct ibv_cq *cq, uint32_t flags, void *cmd,
			   size_t cmd_size, void *resp, size_t resp_size)
{
	LV_IOCTL_BUF(b, 10);
	struct ib_uverbs_attr *handle;
	uint32_t resp_cqe = 0;
	int ret;

	lv_ioctl_init(&b.b, 10, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, NULL);
	handle = lv_attr_obj(&b.b, UVERBS_ATTR_CREATE_CQ_HANDLE, 0);
	lv_attr_ptr(&b.b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &resp_cqe,
		    sizeof(resp_cqe));
	lv_attr_in_u32(&b.b, UVERBS_ATTR_CREATE_CQ_CQE, attr->cqe);
	lv_attr_in_u64(&b.b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, U64(cq));
	if (attr->channel)
		lv_attr_fd(&b.b, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
			   attr->channel->fd);
	lv_attr_in_u32(&b.b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
		       attr->comp_vector);
	/* A kernel without this attribute can still create the CQ. */
	lv_attr_optional(lv_attr_fd(&b.b, UVERBS_ATTR_CREATE_CQ_EVENT_FD,
				    c->async_fd));
	if (flags)
		lv_attr_in_u32(&b.b, UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
	lv_attr_uhw(&b.b, cmd, sizeof(struct lv_ex_hdr) +
		    sizeof(struct ib_uverbs_ex_create_cq), cmd_size, resp,
		    sizeof(struct ib_uverbs_ex_create_cq_resp), resp_size);
	ret = ioctl_or_fallback(c, KOP_BIT(create_cq_ex), &b.b);
	if (ret)
		return ret;
	cq->handle = (uint32_t)handle->data;
	cq->cqe = (int)resp_cqe;
	return 0;
}

LV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *c,
				   const struct ibv_cq_init_attr_ex *attr,
				   struct verbs_cq *vcq, void *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_ex_create_cq_resp *resp,
				   size_t resp_size, uint32_t cmd_flags);
LV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *c,
				   const struct ibv_cq_init_attr_ex *attr,
				   struct verbs_cq *vcq, void *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_ex_create_cq_resp *resp,
				   size_t resp_size, uint32_t cmd_flags)
{
	struct ib_uverbs_ex_create_cq_resp local;
	struct ib_uverbs_ex_create_cq core = { 0 };
	struct ibv_cq *cq = &vcq->cq;
	uint32_t flags = 0;
	int ret;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD))
		return EOPNOTSUPP;
	if (attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	if (!resp || resp_size < sizeof(*resp)) {
		resp = &local;
		resp_size = sizeof(local);
	}
	memset(resp, 0, resp_size);
	cq->context = c;
	ret = create_cq_ioctl(c, attr, cq, flags, cmd, cmd_size, resp,
			      resp_size);
	if (ret == 0) {
		resp->base.cq_handle = cq->handle;
		resp->base.cqe = (uint32_t)cq->cqe;
		return 0;
	}
	if (ret != 1)
		return ret;
	if (flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	    (cmd_flags & LV_CREATE_CQ_TS_IGNORED_EX))
		flags = 0;
	core.user_handle = U64(cq);
	core.cqe = attr->cqe;
	core.comp_vector = attr->comp_vector;
	core.comp_channel = attr->channel ? attr->channel->fd : -1;
	core.flags = flags;
	ret = lv_cmd_write_ex(c, IB_USER_VERBS_EX_CMD_CREATE_CQ, cmd, cmd_size,
			      &core, sizeof(core), resp, sizeof(*resp),
			      resp_size);
	if (ret)
		return ret;
	cq->handle = resp->base.cq_handle;
	cq->cqe = (int)resp->base.cqe;
	return 0;
}

LV_EXPORT int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_resize_cq_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_resize_cq_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_resize_cq_resp local = { 0 };
	struct ib_uverbs_resize_cq core = {
		.cq_handle = cq->handle, .cqe = (uint32_t)cqe,
	};
	int ret;

	if (!resp || resp_size < sizeof(*resp)) {
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	ret = lv_cmd_write(cq->context, IB_USER_VERBS_CMD_RESIZE_CQ, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	cq->cqe = (int)resp->cqe;
	return 0;
}

LV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr, void *cmd,
				size_t cmd_size);
LV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr, void *cmd,
				size_t cmd_size)
{
	struct ib_uverbs_ex_modify_cq core = {
		.cq_handle = cq->handle, .attr_mask = attr->attr_mask,
		.attr = {
			.cq_count = attr->moderate.cq_count,
			.cq_period = attr->moderate.cq_period,
		},
	};

	if (attr->attr_mask >= IBV_CQ_ATTR_RESERVED)
		return EINVAL;
	return lv_cmd_write_ex(cq->context, IB_USER_VERBS_EX_CMD_MODIFY_CQ,
			       cmd, cmd_size, &core, sizeof(core), NULL, 0, 0);
}

/* What the srq_ex init asks for, checked as rdma-core does. */
static int srq_ex_core(struct ib_uverbs_create_xsrq *core,
		       const struct ibv_srq_init_attr_ex *a,
		       enum ibv_srq_type *type)
{
	*type = (a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ? a->srq_type :
							   IBV_SRQT_BASIC;
	core->pd_handle = a->pd->handle;
	core->max_wr = a->attr.max_wr;
	core->max_sge = a->attr.max_sge;
	core->srq_limit = a->attr.srq_limit;
	core->srq_type = (uint32_t)*type;
	switch (*type) {
	case IBV_SRQT_BASIC:
		return 0;
	case IBV_SRQT_XRC:
		if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !a->xrcd ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !a->cq)
			return EINVAL;
		/* The public ibv_xrcd is first in verbs_xrcd. */
		core->xrcd_handle = ((const struct verbs_xrcd *)a->xrcd)->handle;
		core->cq_handle = a->cq->handle;
		return 0;
	case IBV_SRQT_TM:
		if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !a->cq ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_TM) ||
		    !a->tm_cap.max_num_tags)
			return EINVAL;
		core->cq_handle = a->cq->handle;
		core->max_num_tags = a->tm_cap.max_num_tags;
		return 0;
	}
	return EINVAL;
}

LV_EXPORT int ibv_cmd_create_srq_ex(struct ibv_context *c,
				    struct verbs_srq *vsrq,
				    struct ibv_srq_init_attr_ex *attr,
				    void *cmd, size_t cmd_size,
				    struct ib_uverbs_create_srq_resp *resp,
				    size_t resp_size);
LV_EXPORT int ibv_cmd_create_srq_ex(struct ibv_context *c,
				    struct verbs_srq *vsrq,
				    struct ibv_srq_init_attr_ex *attr,
				    void *cmd, size_t cmd_size,
				    struct ib_uverbs_create_srq_resp *resp,
				    size_t resp_size)
{
	struct ib_uverbs_create_srq_resp local;
	struct ib_uverbs_create_xsrq core = { 0 };
	struct ibv_srq *srq = &vsrq->srq;
	enum ibv_srq_type type;
	int ret;

	if (attr->comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED)
		return errno = EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
		return errno = EINVAL;
	ret = srq_ex_core(&core, attr, &type);
	if (ret)
		return errno = ret;
	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	core.user_handle = U64(srq);
	ret = lv_cmd_write(c, IB_USER_VERBS_CMD_CREATE_XSRQ, cmd, cmd_size,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	srq->handle = resp->srq_handle;
	srq->context = c;
	srq->srq_context = attr->srq_context;
	srq->pd = attr->pd;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	vsrq->srq_type = type;
	if (type == IBV_SRQT_XRC) {
		vsrq->srq_num = resp->srqn;
		vsrq->xrcd = (struct verbs_xrcd *)attr->xrcd;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ)
		vsrq->cq = attr->cq;
	attr->attr.max_wr = resp->max_wr;
	attr->attr.max_sge = resp->max_sge;
	return 0;
}

LV_EXPORT int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a,
				 int mask, void *cmd, size_t cmd_size);
LV_EXPORT int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a,
				 int mask, void *cmd, size_t cmd_size)
{
	struct ib_uverbs_modify_srq core = {
		.srq_handle = srq->handle, .attr_mask = (uint32_t)mask,
		.max_wr = a->max_wr, .srq_limit = a->srq_limit,
	};

	return lv_cmd_write(srq->context, IB_USER_VERBS_CMD_MODIFY_SRQ, cmd,
			    cmd_size, &core, sizeof(core), NULL, 0);
}

LV_EXPORT int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a,
				void *cmd, size_t cmd_size);
LV_EXPORT int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a,
				void *cmd, size_t cmd_size)
{
	struct ib_uverbs_query_srq_resp r = { 0 };
	struct ib_uverbs_query_srq core = {
		.response = U64(&r), .srq_handle = srq->handle,
	};
	int ret = lv_cmd_write(srq->context, IB_USER_VERBS_CMD_QUERY_SRQ, cmd,
			       cmd_size, &core, sizeof(core), &r, sizeof(r));

	if (ret)
		return ret;
	a->max_wr = r.max_wr;
	a->max_sge = r.max_sge;
	a->srq_limit = r.srq_limit;
	return 0;
}
