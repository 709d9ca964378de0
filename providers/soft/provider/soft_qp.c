/* SPDX-License-Identifier: MIT */
/*
 * QPs over the engine IPC.  The engine validates the state machine and the
 * attribute masks (its eng_qp_fsm.c); we translate and pass its errno on.
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/provider/soft_provider.h"

#define CONN(ctx) (&soft_ctx_of(ctx)->conn)

static uint32_t handle_of_cq(struct ibv_cq *cq)
{
	return cq ? ((struct pv_cq *)cq)->handle : 0;
}

int soft_create_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_init_attr_ex *attr)
{
	bool xrc_recv = attr->qp_type == IBV_QPT_XRC_RECV;
	struct pv_ipc_qp_create req = {
		.pd_handle = xrc_recv ? 0 : ((struct pv_pd *)attr->pd)->handle,
		.xrcd_handle = xrc_recv ?
			((struct pv_xrcd *)attr->xrcd)->handle : 0,
		.send_cq_handle = handle_of_cq(qp->ibv.send_cq),
		.recv_cq_handle = handle_of_cq(qp->ibv.recv_cq),
		.srq_handle = attr->srq ? ((struct pv_srq *)attr->srq)->handle : 0,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all ? 1 : 0,
	};
	struct soft_ctx *sc = soft_ctx_of(ctx);
	struct pv_ipc_qp_create_resp resp;
	int ret;

	if (qp->is_ex) {
		if (!sc->page)
			return -EOPNOTSUPP;
		ret = soft_qp_ex_check_ops(attr->qp_type, attr->send_ops_flags);
		if (ret < 0)
			return ret;
	}
	soft_qp_cap_to_ipc(&attr->cap, &req.cap);
	ret = soft_call_fixed(CONN(ctx), PV_OP_QP_CREATE, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0)
		return ret;
	qp->handle = resp.handle;
	qp->ibv.qp_num = resp.qp_num;
	soft_qp_cap_from_ipc(&resp.cap, &attr->cap);
	if (!sc->page)
		return 0;
	ret = soft_qp_map(sc, qp, &attr->cap);
	if (ret < 0) {
		soft_destroy_handle(ctx, PV_OP_QP_DESTROY, qp->handle);
		return ret;
	}
	if (qp->is_ex)
		soft_qp_ex_install(qp);
	return 0;
}

/* ibv_open_qp: the engine checks the domain and the number (its
 * eng_qp_open.c); the handle has no rings. */
int soft_open_qp(struct pv_context *ctx, struct pv_qp *qp,
		 const struct ibv_qp_open_attr *attr)
{
	struct pv_ipc_qp_open req = {
		.xrcd_handle = ((struct pv_xrcd *)attr->xrcd)->handle,
		.qp_num = attr->qp_num,
		.qp_type = attr->qp_type,
	};
	struct pv_ipc_qp_open_resp resp;
	int ret;

	ret = soft_call_fixed(CONN(ctx), PV_OP_QP_OPEN, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0)
		return ret;
	qp->handle = resp.handle;
	qp->ibv.qp_num = resp.qp_num;
	qp->ibv.state = (enum ibv_qp_state)resp.qp_state;
	return 0;
}

int soft_modify_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_attr *attr, int mask)
{
	struct pv_ipc_qp_modify req = {
		.qp_handle = qp->handle, .attr_mask = (uint32_t)mask,
	};

	soft_qp_attr_to_ipc(attr, &req.attr);
	return soft_call_fixed(CONN(ctx), PV_OP_QP_MODIFY, &req, sizeof(req),
			       NULL, 0);
}

int soft_query_qp(struct pv_context *ctx, struct pv_qp *qp,
		  struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct pv_ipc_qp_modify req = {
		.qp_handle = qp->handle, .attr_mask = (uint32_t)mask,
	};
	struct pv_ipc_qp_query_resp resp;
	int ret;

	ret = soft_call_fixed(CONN(ctx), PV_OP_QP_QUERY, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0)
		return ret;
	soft_qp_attr_from_ipc(&resp.attr, attr);
	soft_qp_cap_from_ipc(&resp.init.cap, &init_attr->cap);
	init_attr->sq_sig_all = (int)resp.init.sq_sig_all;
	return 0;
}

int soft_destroy_qp(struct pv_context *ctx, struct pv_qp *qp)
{
	int ret = soft_destroy_handle(ctx, PV_OP_QP_DESTROY, qp->handle);

	if (ret < 0)
		return ret;
	soft_qp_unmap(qp);
	return 0;
}
