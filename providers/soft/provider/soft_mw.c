/* SPDX-License-Identifier: MIT */
/*
 * Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3), ibv_dealloc_mw(3)):
 * the engine keeps each window and its rkey (MW_ALLOC / MW_DEALLOC);
 * binding and invalidating are send WQEs it runs in order with the rest
 * of the send queue (soft_wqe.c encodes them, pv-soft-ring-abi.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "providers/soft/provider/soft_provider.h"

static struct ibv_mw *soft_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct soft_ctx *sc = soft_ctx_of(pv_ctx(pd->context));
	struct pv_ipc_mw_alloc req = {
		.pd_handle = ((struct pv_pd *)pd)->handle,
		.type = (uint32_t)type,
	};
	struct pv_ipc_mw_resp resp;
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = soft_call_fixed(&sc->conn, PV_OP_MW_ALLOC, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0) {
		free(mw);
		errno = -ret;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp.rkey;
	mw->handle = resp.handle;
	mw->type = type;
	return mw;
}

static int soft_dealloc_mw(struct ibv_mw *mw)
{
	int ret = soft_destroy_handle(pv_ctx(mw->context), PV_OP_MW_DEALLOC,
				      mw->handle);

	if (ret < 0)
		return -ret;
	free(mw);
	return 0;
}

/* A type 1 bind is an IBV_WR_BIND_MW with the window's next key, as
 * rdma-core's providers post it; mw->rkey is the new key once posted
 * (the completion says whether the bind took). */
static int soft_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *b)
{
	struct ibv_send_wr wr = {
		.wr_id = b->wr_id, .opcode = IBV_WR_BIND_MW,
		.send_flags = b->send_flags,
	}, *bad;
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = b->bind_info;
	ret = qp->context->ops.post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = rkey;
	return 0;
}

void soft_mw_install(struct ibv_context_ops *o)
{
	o->alloc_mw = soft_alloc_mw;
	o->dealloc_mw = soft_dealloc_mw;
	o->bind_mw = soft_bind_mw;
}
