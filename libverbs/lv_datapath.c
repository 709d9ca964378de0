/* SPDX-License-Identifier: MIT */
/*
 * Data-path trampolines behind ibv_context_ops and ibv_cq_ex.  verbs.h
 * calls these inline, so each returns its verb's public convention:
 * post_* a positive errno (and *bad_wr), poll_cq a negative number on
 * error, req_notify_cq a positive errno.
 */
#include "common/pv_usdt.h"
#include "libverbs/lv_core.h"

int lv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct pv_context *ctx = pv_ctx(cq->context);
	int ret = ctx->ops->poll_cq(ctx, (struct pv_cq *)cq, n, wc);

	PV_USDT(podverbs, poll_cq, cq->handle, ret);
	return ret < 0 ? -1 : ret;
}

int lv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct pv_context *ctx = pv_ctx(cq->context);

	return lv_pos(ctx->ops->req_notify_cq(ctx, (struct pv_cq *)cq,
					      solicited_only));
}

int lv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr)
{
	struct pv_context *ctx = pv_ctx(qp->context);
	int ret = ctx->ops->post_send(ctx, (struct pv_qp *)qp, wr, bad_wr);

	/* The WRs posted are not counted here: the soft provider, which
	 * replaces these trampolines, counts them. */
	PV_USDT(podverbs, post_send, qp->qp_num, -1, -ret);
	if (ret < 0 && bad_wr && !*bad_wr)
		*bad_wr = wr;
	return lv_pos(ret);
}

int lv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr)
{
	struct pv_context *ctx = pv_ctx(qp->context);
	int ret = ctx->ops->post_recv(ctx, (struct pv_qp *)qp, wr, bad_wr);

	PV_USDT(podverbs, post_recv, qp->qp_num, -1, -ret);
	if (ret < 0 && bad_wr && !*bad_wr)
		*bad_wr = wr;
	return lv_pos(ret);
}

int lv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct pv_context *ctx = pv_ctx(srq->context);
	int ret = ctx->ops->post_srq_recv(ctx, (struct pv_srq *)srq, wr,
					  bad_wr);

	if (ret < 0 && bad_wr && !*bad_wr)
		*bad_wr = wr;
	return lv_pos(ret);
}

/* Extended-CQ polling for a provider without its own (the soft provider
 * installs ring-based ones when the engine offers rings): start_poll
 * fails (it never reports a completion), so the readers are never
 * reached. */
static int cq_ex_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *a)
{
	return EOPNOTSUPP;
}

static int cq_ex_next_poll(struct ibv_cq_ex *cq)
{
	return ENOENT;
}

static void cq_ex_end_poll(struct ibv_cq_ex *cq)
{
}

static enum ibv_wc_opcode cq_ex_read_opcode(struct ibv_cq_ex *cq)
{
	return IBV_WC_SEND;
}

static uint32_t cq_ex_read_u32(struct ibv_cq_ex *cq)
{
	return 0;
}

static __be32 cq_ex_read_be32(struct ibv_cq_ex *cq)
{
	return 0;
}

static unsigned int cq_ex_read_flags(struct ibv_cq_ex *cq)
{
	return 0;
}

static uint8_t cq_ex_read_u8(struct ibv_cq_ex *cq)
{
	return 0;
}

void lv_cq_ex_init_poll(struct pv_cq *cq)
{
	struct ibv_cq_ex *x = &cq->ex;

	x->start_poll = cq_ex_start_poll;
	x->next_poll = cq_ex_next_poll;
	x->end_poll = cq_ex_end_poll;
	x->read_opcode = cq_ex_read_opcode;
	x->read_vendor_err = cq_ex_read_u32;
	x->read_byte_len = cq_ex_read_u32;
	x->read_imm_data = cq_ex_read_be32;
	x->read_qp_num = cq_ex_read_u32;
	x->read_src_qp = cq_ex_read_u32;
	x->read_wc_flags = cq_ex_read_flags;
	x->read_slid = cq_ex_read_u32;
	x->read_sl = cq_ex_read_u8;
	x->read_dlid_path_bits = cq_ex_read_u8;
}
