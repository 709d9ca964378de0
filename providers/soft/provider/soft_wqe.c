/* SPDX-License-Identifier: MIT */
/*
 * Work requests to ring entries and ring completions to ibv_wc.  Pure: the
 * post and poll paths (soft_post.c, soft_poll.c) call these under their
 * queue's lock; the checks are those a NIC makes at post time, so a bad WR
 * fails in ibv_post_send with *bad_wr set instead of reaching the engine.
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/provider/soft_dp.h"

bool soft_opcode_ok(enum ibv_qp_type t, enum ibv_wr_opcode op)
{
	/* XRC_SEND carries RC's operations; XRC_RECV sends nothing. */
	if (t == IBV_QPT_XRC_SEND)
		t = IBV_QPT_RC;
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return t == IBV_QPT_RC || t == IBV_QPT_UC || t == IBV_QPT_UD;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return t == IBV_QPT_RC || t == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return t == IBV_QPT_RC;
	case IBV_WR_BIND_MW:
	case IBV_WR_LOCAL_INV:
		return t == IBV_QPT_RC || t == IBV_QPT_UC;
	default:
		return false;	/* TSO, driver ops */
	}
}

static bool carries_inline(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

int soft_wqe_inline(struct pv_send_wqe *w, uint32_t max_inline,
		    size_t num_buf, const struct ibv_data_buf *buf)
{
	char *dst = (char *)(w + 1);
	size_t total = 0;

	for (size_t i = 0; i < num_buf; i++) {
		if (buf[i].length > max_inline - total)
			return -EINVAL;
		memcpy(dst + total, buf[i].addr, buf[i].length);
		total += buf[i].length;
	}
	w->inline_len = (uint32_t)total;
	w->num_sge = 0;
	w->send_flags |= IBV_SEND_INLINE;
	return 0;
}

/* The data part: inline bytes copied now, or the SGE list. */
static int encode_data(const struct soft_sq_limits *lim,
		       const struct ibv_send_wr *wr, struct pv_send_wqe *w)
{
	size_t room = lim->entry_size - sizeof(*w);
	struct pv_wqe_sge *sge = soft_wqe_sges(w, sizeof(*w));

	if (wr->num_sge < 0)
		return -EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) && carries_inline(wr->opcode)) {
		uint32_t max = lim->max_inline < room ? lim->max_inline
						      : (uint32_t)room;
		size_t total = 0;
		char *dst = (char *)(w + 1);

		for (int i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *s = &wr->sg_list[i];

			if (s->length > max - total)
				return -EINVAL;
			/* An empty SGE may have no address (UCX's zero-byte
			 * active messages: an MPI barrier's). */
			if (s->length)
				memcpy(dst + total, (void *)(uintptr_t)s->addr,
				       s->length);
			total += s->length;
		}
		w->inline_len = (uint32_t)total;
		return 0;
	}
	/* Inline means nothing to reads and atomics: their data comes back
	 * into the SGEs. */
	w->send_flags &= ~(uint32_t)IBV_SEND_INLINE;
	if ((uint32_t)wr->num_sge > lim->max_sge ||
	    (size_t)wr->num_sge * sizeof(*sge) > room)
		return -EINVAL;
	for (int i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	w->num_sge = (uint32_t)wr->num_sge;
	return 0;
}

/* The operation's own fields. */
static int encode_op(enum ibv_qp_type t, const struct ibv_send_wr *wr,
		     struct pv_send_wqe *w)
{
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w->imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
		break;
	case IBV_WR_SEND_WITH_IMM:
		w->imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		w->imm_data = wr->invalidate_rkey;	/* host order */
		break;
	case IBV_WR_BIND_MW: {
		const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;

		if (!wr->bind_mw.mw)
			return -EINVAL;
		w->ah_handle = wr->bind_mw.mw->handle;
		w->rkey = wr->bind_mw.rkey;
		w->remote_addr = b->addr;
		w->compare_add = b->length;
		w->swap = b->mw_access_flags;
		w->remote_qkey = b->mr ? b->mr->lkey : 0;
		break;
	}
	default:
		break;
	}
	if (t == IBV_QPT_UD) {
		if (!wr->wr.ud.ah)
			return -EINVAL;
		w->ah_handle = wr->wr.ud.ah->handle;
		w->remote_qpn = wr->wr.ud.remote_qpn;
		w->remote_qkey = wr->wr.ud.remote_qkey;
	}
	if (t == IBV_QPT_XRC_SEND)
		w->remote_qpn = wr->qp_type.xrc.remote_srqn & 0xffffff;
	return 0;
}

int soft_encode_send(const struct soft_sq_limits *lim,
		     const struct ibv_send_wr *wr, struct pv_send_wqe *out)
{
	int ret;

	if (!soft_opcode_ok(lim->qp_type, wr->opcode))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->wr_id = wr->wr_id;
	out->opcode = wr->opcode;
	out->send_flags = wr->send_flags;
	ret = encode_op(lim->qp_type, wr, out);
	if (ret < 0)
		return ret;
	/* Window operations move no data: no SGEs, nothing inline. */
	if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
		out->send_flags &= ~(uint32_t)IBV_SEND_INLINE;
		return 0;
	}
	return encode_data(lim, wr, out);
}

int soft_encode_recv(uint32_t max_sge, const struct ibv_recv_wr *wr,
		     struct pv_recv_wqe *out)
{
	struct pv_wqe_sge *sge = soft_wqe_sges(out, sizeof(*out));

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return -EINVAL;
	out->wr_id = wr->wr_id;
	out->num_sge = (uint32_t)wr->num_sge;
	out->reserved = 0;
	for (int i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

void soft_cqe_to_wc(const struct pv_cqe *c, struct ibv_wc *wc)
{
	wc->wr_id = c->wr_id;
	wc->status = (enum ibv_wc_status)c->status;
	wc->opcode = (enum ibv_wc_opcode)c->opcode;
	wc->vendor_err = c->vendor_err;
	wc->byte_len = c->byte_len;
	wc->imm_data = c->imm_data;
	wc->qp_num = c->qp_num;
	wc->src_qp = c->src_qp;
	wc->wc_flags = c->wc_flags;
	wc->pkey_index = c->pkey_index;
	wc->slid = c->slid;
	wc->sl = c->sl;
	wc->dlid_path_bits = c->dlid_path_bits;
}
