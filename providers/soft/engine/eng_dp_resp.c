/* SPDX-License-Identifier: MIT */
/*
 * The responder: what happens at the destination QP when a message
 * arrives (IBA 9.7.5: receive queue consumption, RDMA write, read and
 * atomic execution, and the responder's error classes).  The requester
 * calls it synchronously; the result says what the ACK/NAK would have
 * been.  Errors local to the responder complete its receive WQE with an
 * error and move it to ERR; the requester sees the NAK the wire would
 * have carried (RC) or nothing (UC/UD: the message is lost).
 */
#include <string.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_ibv.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"

#define WR_RDMA_WRITE		0
#define WR_RDMA_WRITE_WITH_IMM	1
#define WR_SEND			2
#define WR_SEND_WITH_IMM	3
#define WR_RDMA_READ		4
#define SEND_SOLICITED		4u

#define WC_SUCCESS		0
#define WC_LOC_LEN_ERR		1
#define WC_LOC_PROT_ERR		4
#define WC_RECV			128
#define WC_RECV_RDMA_WITH_IMM	129
#define WC_GRH			1u
#define WC_WITH_IMM		2u

#define GRH_BYTES		40
#define MAX_SEGS		(256 + 1)

/* Where the destination's receive WQEs come from. */
struct rq_src {
	struct eng_ring *ring;
	uint32_t max_sge;
};

static bool rq_src_get(struct eng_qp *dst, struct rq_src *s)
{
	if (dst->srq) {
		if (!dst->srq->dp)
			return false;
		s->ring = &dst->srq->dp->ring;
		s->max_sge = dst->srq->max_sge;
	} else {
		if (!dst->dp || !dst->dp->rq.hdr)
			return false;
		s->ring = &dst->dp->rq;
		s->max_sge = dst->init.cap.max_recv_sge;
	}
	return true;
}

/* Copies the next receive WQE into *w; false when none is posted (RNR).
 * A malformed one makes the destination QP fatal (*fatal set).  The ring
 * slot is read once, here: everything after uses the copy. */
static bool rq_fetch(struct eng *e, struct eng_qp *dst, struct rq_src *s,
		     struct eng_dp_rwqe *w, bool *fatal)
{
	int n;

	*fatal = false;
	if (!rq_src_get(dst, s))
		return false;
	n = eng_dp_ring_avail(s->ring);
	if (n == 0)
		return false;
	if (n < 0 || eng_dp_recv_wqe_fetch(s->ring, s->max_sge, w) < 0) {
		*fatal = true;
		eng_dp_qp_fatal(e, dst);
		return false;
	}
	return true;
}

/* IBA 10.2.9.2: the limit event fires once when the WQE count drops
 * below srq_limit, then the SRQ is unarmed. */
static void srq_limit_check(struct eng_srq *srq)
{
	int left = eng_dp_ring_avail(&srq->dp->ring);

	if (srq->srq_limit && left >= 0 && (uint32_t)left < srq->srq_limit) {
		srq->srq_limit = 0;
		eng_event_push(srq->o.conn, ENG_EV_SRQ_LIMIT_REACHED,
			       PV_OBJ_SRQ, srq->o.handle);
	}
}

static void rq_complete(struct eng *e, struct eng_qp *dst, struct rq_src *s,
			struct pv_cqe *cqe, bool solicited)
{
	eng_dp_ring_consume(s->ring);
	if (dst->srq)
		srq_limit_check(dst->srq);
	cqe->qp_num = dst->qp_num;
	eng_dp_cqe_push(e, dst->recv_cq, cqe, solicited);
}

/* Checks the receive buffers for need bytes; returns the number of
 * segments (at most max), -1 for a protection error, -2 when they are
 * too small. */
static int recv_segs(struct eng_qp *dst, const struct eng_dp_rwqe *w,
		     uint32_t need, struct eng_seg *out, uint32_t max)
{
	struct eng_dev *d = dst->o.conn->dev;
	uint32_t n = 0;

	for (uint32_t i = 0; i < w->num_sge && i < ENG_DP_MAX_SGE && need;
	     i++) {
		const struct pv_wqe_sge *sg = &w->sge[i];
		uint32_t take = sg->length < need ? sg->length : need;
		struct eng_mr *mr;

		if (!take)
			continue;
		if (n >= max)
			return -2;	/* cannot happen: num_sge <= max */
		mr = eng_dp_mr_find(d, sg->lkey, dst->pd, sg->addr, take,
				    ENG_ACCESS_LOCAL_WRITE);
		if (!mr)
			return -1;
		eng_dp_mr_seg(mr, sg->addr, take, &out[n++]);
		need -= take;
	}
	return need ? -2 : (int)n;
}

/* A responder-local error: the receive WQE completes with status, the
 * destination QP goes to ERR; RC requesters get NAK rc_for_rc. */
static int resp_local_err(struct eng *e, struct eng_qp *dst,
			  struct rq_src *s, const struct eng_dp_rwqe *w,
			  uint32_t status, int rc_for_rc)
{
	struct pv_cqe cqe = { .wr_id = w->wr_id, .status = status,
			      .opcode = WC_RECV };

	rq_complete(e, dst, s, &cqe, false);
	eng_dp_qp_error(e, dst);
	return dst->init.qp_type == ENG_QPT_RC ? rc_for_rc : ENG_DP_DROP;
}

static int no_recv(struct eng_qp *dst, bool fatal)
{
	if (dst->init.qp_type != ENG_QPT_RC) {
		eng_stat_inc(dp_drops_no_recv);
		return ENG_DP_DROP;
	}
	return fatal ? ENG_DP_NAK_OP : ENG_DP_RNR;
}

/* SEND and SEND_WITH_IMM: scatter into the next receive WQE (UD: after
 * the 40-byte GRH). */
static int resp_send(struct eng *e, struct eng_qp *dst,
		     const struct eng_dp_msg *m)
{
	struct eng_seg dsegs[MAX_SEGS], ssegs[MAX_SEGS];
	bool ud = dst->init.qp_type == ENG_QPT_UD, fatal;
	uint32_t need = m->len + (ud ? GRH_BYTES : 0), nsrc = 0;
	uint8_t grh[GRH_BYTES];
	struct pv_cqe cqe = { 0 };
	struct eng_dp_rwqe w;
	struct rq_src s;
	int nd;

	if (m->nsegs > ENG_DP_MAX_SGE)
		return ENG_DP_NAK_OP;	/* the requester bounds it: a bug */
	if (!rq_fetch(e, dst, &s, &w, &fatal))
		return no_recv(dst, fatal);
	nd = recv_segs(dst, &w, need, dsegs, ENG_DP_MAX_SGE);
	if (nd == -1)
		return resp_local_err(e, dst, &s, &w, WC_LOC_PROT_ERR,
				      ENG_DP_NAK_OP);
	if (nd == -2)
		return resp_local_err(e, dst, &s, &w, WC_LOC_LEN_ERR,
				      ENG_DP_NAK_INV);
	if (ud) {
		eng_dp_grh_build(grh, m->sgid, m->dgid, m->len + 8 + 12 + 8 +
				 4, m->traffic_class, m->flow_label,
				 m->hop_limit);
		ssegs[nsrc++] = (struct eng_seg){ .ptr = grh, .len = GRH_BYTES };
		cqe.wc_flags |= WC_GRH;
	}
	memcpy(&ssegs[nsrc], m->segs, m->nsegs * sizeof(*m->segs));
	nsrc += m->nsegs;
	if (eng_dp_copy(dsegs, (uint32_t)nd, ssegs, nsrc, need) < 0)
		return resp_local_err(e, dst, &s, &w, WC_LOC_PROT_ERR,
				      ENG_DP_NAK_OP);
	cqe.wr_id = w.wr_id;
	cqe.opcode = WC_RECV;
	cqe.byte_len = need;
	cqe.src_qp = m->src->qp_num;
	if (m->opcode == WR_SEND_WITH_IMM) {
		cqe.imm_data = m->imm_data;
		cqe.wc_flags |= WC_WITH_IMM;
	}
	rq_complete(e, dst, &s, &cqe, m->send_flags & SEND_SOLICITED);
	eng_stat_add(dp_bytes, m->len);
	return ENG_DP_OK;
}

/* The remote MR an RDMA or atomic names, with the destination QP's own
 * remote rights (IBA 10.6.3.3, 9.7.5.1.x); NULL when not allowed. */
static struct eng_mr *remote_mr(struct eng_qp *dst, const struct eng_dp_msg *m,
				uint64_t len)
{
	uint32_t need = eng_dp_remote_access_for(m->opcode);

	if ((dst->attr.qp_access_flags & need) != need)
		return NULL;
	return eng_dp_mr_find(dst->o.conn->dev, m->rkey, dst->pd,
			      m->remote_addr, len, need);
}

/* Remote access violation: RC NAKs and its responder enters ERR
 * (IBA 9.9.3.1.3, as rxe); UC drops the message. */
static int access_err(struct eng *e, struct eng_qp *dst)
{
	eng_stat_inc(dp_access_errors);
	if (dst->init.qp_type != ENG_QPT_RC)
		return ENG_DP_DROP;
	eng_dp_qp_error(e, dst);
	return ENG_DP_NAK_ACCESS;
}

static int resp_write(struct eng *e, struct eng_qp *dst,
		      const struct eng_dp_msg *m)
{
	bool imm = m->opcode == WR_RDMA_WRITE_WITH_IMM, fatal;
	struct pv_cqe cqe = { 0 };
	struct eng_dp_rwqe w;
	struct eng_seg seg;
	struct eng_mr *mr;
	struct rq_src s;

	/* The immediate needs a receive WQE: no data moves until one is
	 * there (RNR otherwise). */
	if (imm && !rq_fetch(e, dst, &s, &w, &fatal))
		return no_recv(dst, fatal);
	if (m->len) {
		mr = remote_mr(dst, m, m->len);
		if (!mr)
			return access_err(e, dst);
		eng_dp_mr_seg(mr, m->remote_addr, m->len, &seg);
		if (eng_dp_copy(&seg, 1, m->segs, m->nsegs, m->len) < 0)
			return access_err(e, dst);
	}
	eng_stat_add(dp_bytes, m->len);
	if (!imm)
		return ENG_DP_OK;
	cqe.wr_id = w.wr_id;
	cqe.opcode = WC_RECV_RDMA_WITH_IMM;
	cqe.byte_len = m->len;
	cqe.imm_data = m->imm_data;
	cqe.wc_flags = WC_WITH_IMM;
	cqe.src_qp = m->src->qp_num;
	rq_complete(e, dst, &s, &cqe, m->send_flags & SEND_SOLICITED);
	return ENG_DP_OK;
}

static int resp_read(struct eng *e, struct eng_qp *dst,
		     const struct eng_dp_msg *m, const struct eng_seg *rd,
		     uint32_t nrd)
{
	struct eng_seg seg;
	struct eng_mr *mr;

	if (!m->len)
		return ENG_DP_OK;
	mr = remote_mr(dst, m, m->len);
	if (!mr)
		return access_err(e, dst);
	eng_dp_mr_seg(mr, m->remote_addr, m->len, &seg);
	if (eng_dp_copy(rd, nrd, &seg, 1, m->len) < 0)
		return access_err(e, dst);
	eng_stat_add(dp_bytes, m->len);
	return ENG_DP_OK;
}

static int resp_atomic(struct eng *e, struct eng_qp *dst,
		       const struct eng_dp_msg *m, uint64_t *orig)
{
	struct eng_seg seg;
	struct eng_mr *mr;

	/* IBA 9.4.5: an atomic's address must be 8-byte aligned, else the
	 * request is invalid. */
	if (m->remote_addr & 7) {
		eng_dp_qp_error(e, dst);
		return ENG_DP_NAK_INV;
	}
	mr = remote_mr(dst, m, 8);
	if (!mr)
		return access_err(e, dst);
	eng_dp_mr_seg(mr, m->remote_addr, 8, &seg);
	if (eng_dp_atomic(&seg, m->opcode, m->compare_add, m->swap, orig) < 0)
		return access_err(e, dst);
	return ENG_DP_OK;
}

int eng_dp_resp_deliver(struct eng *e, struct eng_qp *dst,
			const struct eng_dp_msg *m, const struct eng_seg *rd,
			uint32_t nrd, uint64_t *atomic_orig)
{
	switch (m->opcode) {
	case WR_SEND:
	case WR_SEND_WITH_IMM:
		return resp_send(e, dst, m);
	case WR_RDMA_WRITE:
	case WR_RDMA_WRITE_WITH_IMM:
		return resp_write(e, dst, m);
	case WR_RDMA_READ:
		return resp_read(e, dst, m, rd, nrd);
	default:
		return resp_atomic(e, dst, m, atomic_orig);
	}
}
