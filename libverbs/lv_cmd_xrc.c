/* SPDX-License-Identifier: MIT */
/*
 * XRC domains and shared QPs (IBVERBS_PRIVATE_34): open_xrcd and open_qp
 * over the write ABI, close_xrcd by ioctl with the write fallback, as
 * rdma-core 44's cmd.c and cmd_xrcd.c.  0 or a positive errno.
 */
#include <stddef.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* Whether a provider's struct of vsize bytes reaches past field. */
#define HAS_FIELD(type, field, vsize)					\
	((size_t)(vsize) >= offsetof(type, field) +			\
			    sizeof(((type *)0)->field))

LV_EXPORT int ibv_cmd_open_xrcd(struct ibv_context *context,
				struct verbs_xrcd *xrcd, int vxrcd_size,
				struct ibv_xrcd_init_attr *attr, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_open_xrcd_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_open_xrcd(struct ibv_context *context,
				struct verbs_xrcd *xrcd, int vxrcd_size,
				struct ibv_xrcd_init_attr *attr, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_open_xrcd_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_open_xrcd_resp local;
	struct ib_uverbs_open_xrcd core = { .response = 0 };
	int ret;

	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS))
		return EINVAL;
	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	core.fd = (uint32_t)attr->fd;
	core.oflags = (uint32_t)attr->oflags;
	ret = lv_cmd_write(context, IB_USER_VERBS_CMD_OPEN_XRCD, cmd, cmd_size,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	xrcd->xrcd.context = context;
	xrcd->comp_mask = 0;
	if (HAS_FIELD(struct verbs_xrcd, handle, vxrcd_size)) {
		xrcd->comp_mask = 1;	/* VERBS_XRCD_HANDLE */
		xrcd->handle = resp->xrcd_handle;
	}
	return 0;
}

LV_EXPORT int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
LV_EXPORT int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	struct ibv_context *ctx = xrcd->xrcd.context;
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY, 1,
		     NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_XRCD_HANDLE, xrcd->handle);
	if (lv_cmd_ioctl_fallback(ctx, LV_KOP_BIT(close_xrcd), &c, &ret) ==
	    LV_FB_WRITE) {
		struct ib_uverbs_close_xrcd core = {
			.xrcd_handle = xrcd->handle,
		};

		ret = lv_cmd_write(ctx, IB_USER_VERBS_CMD_CLOSE_XRCD, NULL, 0,
				   &core, sizeof(core), NULL, 0);
	}
	return lv_cmd_destroy_ret(ret);
}

/* Opens a QP another process created in a shared XRC domain (by
 * number); it has no PD, CQs or SRQ of its own here. */
LV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context,
			      struct verbs_qp *qp, int vqp_sz,
			      struct ibv_qp_open_attr *attr, void *cmd,
			      size_t cmd_size,
			      struct ib_uverbs_create_qp_resp *resp,
			      size_t resp_size);
LV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context,
			      struct verbs_qp *qp, int vqp_sz,
			      struct ibv_qp_open_attr *attr, void *cmd,
			      size_t cmd_size,
			      struct ib_uverbs_create_qp_resp *resp,
			      size_t resp_size)
{
	struct ib_uverbs_create_qp_resp local;
	struct ib_uverbs_open_qp core = { .response = 0 };
	struct verbs_xrcd *xrcd;
	int ret;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE))
		return EINVAL;
	xrcd = (struct verbs_xrcd *)attr->xrcd;	/* xrcd is first */
	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	core.user_handle = U64(qp);
	core.pd_handle = xrcd->handle;
	core.qpn = attr->qp_num;
	core.qp_type = (uint8_t)attr->qp_type;
	ret = lv_cmd_write(context, IB_USER_VERBS_CMD_OPEN_QP, cmd, cmd_size,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	qp->qp.handle = resp->qp_handle;
	qp->qp.context = context;
	qp->qp.qp_context = attr->qp_context;
	qp->qp.pd = NULL;
	qp->qp.send_cq = NULL;
	qp->qp.recv_cq = NULL;
	qp->qp.srq = NULL;
	qp->qp.qp_num = attr->qp_num;
	qp->qp.qp_type = attr->qp_type;
	qp->qp.state = IBV_QPS_UNKNOWN;
	qp->qp.events_completed = 0;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	qp->comp_mask = 0;
	if (HAS_FIELD(struct verbs_qp, xrcd, vqp_sz)) {
		qp->comp_mask = LV_VQP_XRCD;
		qp->xrcd = xrcd;
	}
	return 0;
}
