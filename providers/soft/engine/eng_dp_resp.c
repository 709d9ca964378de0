/* SPDX-License-Identifier: MIT */
/*
 * The responder: what happens at the destination QP when a message
 * arrives (IBA 9.7.5: receive queue consumption, RDMA write, read and
 * atomic execution, and the responder's error classes).  Each request
 * (one eng_dp_msg chunk) gets its response as a message, struct
 * eng_dp_reply (eng_dp_reply.h): ACK, RNR NAK, NAK with its code, a READ
 * response carrying this side's checked bytes, or an atomic ACK carrying
 * the original value.  The responder never touches the requester's
 * memory; the requester's completer (eng_comp_sm.c) places what comes
 * back.  Same-node requesters call it synchronously; the wire will
 * encode the reply as AETH / READ response / AtomicAckETH.  Errors local
 * to the responder complete its receive WQE with an error and move it to
 * ERR; the requester sees the NAK the wire would carry (RC) or nothing
 * (UC/UD: the message is lost).
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wr.h"

#define MAX_SEGS		(ENG_SGE_MAX + 1)	/* and the GRH */

/* What a step decided, before it becomes a reply (reply_set()). */
enum resp_rc {
	RS_OK = 0,
	RS_RNR,			/* no receive posted */
	RS_DROP,		/* silently lost (UC/UD) */
	RS_NAK_INV,		/* invalid request */
	RS_NAK_ACCESS,		/* remote access error */
	RS_NAK_OP,		/* remote operational error */
};
/* The IP payload of a UD datagram of len bytes (RoCEv2): UDP 8, BTH 12,
 * DETH 8, the payload, ICRC 4. */
#define UD_IP_PAYLOAD(len)	(8 + 12 + 8 + (len) + 4)

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
		eng_event_push(srq->o.conn, IBV_EVENT_SRQ_LIMIT_REACHED,
			       PV_OBJ_SRQ, srq->o.handle);
	}
}

/* Takes the fetched WQE off the ring: from here the engine's copy is
 * the only one (the slot is the application's again). */
static void rq_take(struct eng_qp *dst, struct rq_src *s)
{
	eng_dp_ring_consume(s->ring);
	if (dst->srq)
		srq_limit_check(dst->srq);
}

static void rq_cqe(struct eng *e, struct eng_qp *dst, struct pv_cqe *cqe,
		   bool solicited)
{
	cqe->qp_num = dst->qp_num;
	eng_dp_cqe_push(e, dst->recv_cq, cqe, solicited);
}

/* Whether a receive WQE is posted, without taking it. */
static bool rq_has(struct eng *e, struct eng_qp *dst, bool *fatal)
{
	struct rq_src s;
	int n;

	*fatal = false;
	if (!rq_src_get(dst, &s))
		return false;
	n = eng_dp_ring_avail(s.ring);
	if (n < 0) {
		*fatal = true;
		eng_dp_qp_fatal(e, dst);
	}
	return n > 0;
}

/* A responder-local error: the (taken) receive WQE completes with
 * status, the destination QP goes to ERR; RC requesters get NAK
 * rc_for_rc. */
static int resp_local_err(struct eng *e, struct eng_qp *dst, uint64_t wr_id,
			  uint32_t status, int rc_for_rc)
{
	struct pv_cqe cqe = { .wr_id = wr_id, .status = status,
			      .opcode = IBV_WC_RECV };

	dst->dp->rx_active = false;	/* completed here, not flushed */
	rq_cqe(e, dst, &cqe, false);
	eng_dp_qp_error(e, dst);
	return eng_qpt_reliable(dst->init.qp_type) ? rc_for_rc : RS_DROP;
}

static int no_recv(struct eng_qp *dst, bool fatal)
{
	if (!eng_qpt_reliable(dst->init.qp_type)) {
		eng_stat_inc(dp_drops_no_recv);
		return RS_DROP;
	}
	return fatal ? RS_NAK_OP : RS_RNR;
}

/* First chunk of a SEND: takes the next receive WQE into dst's rx and
 * checks that it can hold the whole message (need bytes).  RS_OK or
 * the result to return. */
static int send_start(struct eng *e, struct eng_qp *dst, uint32_t need)
{
	struct eng_dp_qp *dq = dst->dp;
	struct eng_seg segs[ENG_SGE_MAX];
	struct rq_src s;
	bool fatal;
	int nd;

	/* A message that starts again (its requester went back to its
	 * first chunk) reuses the WQE it already took, as a retransmitted
	 * first packet would. */
	if (!dq->rx_active) {
		if (!rq_fetch(e, dst, &s, &dq->rx, &fatal))
			return no_recv(dst, fatal);
		rq_take(dst, &s);
		dq->rx_active = true;
	}
	nd = eng_dp_sge_range(dst->o.conn->dev, dst->pd, dq->rx.sge,
			      dq->rx.num_sge, IBV_ACCESS_LOCAL_WRITE, 0, need,
			      segs, ENG_SGE_MAX);
	if (nd == -1)
		return resp_local_err(e, dst, dq->rx.wr_id, IBV_WC_LOC_PROT_ERR,
				      RS_NAK_OP);
	if (nd == -2)
		return resp_local_err(e, dst, dq->rx.wr_id, IBV_WC_LOC_LEN_ERR,
				      RS_NAK_INV);
	return RS_OK;
}

/* SEND and SEND_WITH_IMM: scatter each chunk into the receive WQE taken
 * at the first one (UD: one chunk, after the 40-byte GRH); complete it
 * at the last. */
static int resp_send(struct eng *e, struct eng_qp *dst,
		     const struct eng_dp_msg *m)
{
	struct eng_seg dsegs[MAX_SEGS], ssegs[MAX_SEGS];
	bool ud = dst->init.qp_type == IBV_QPT_UD;
	uint32_t hdr = ud ? ENG_DP_GRH_BYTES : 0, nsrc = 0, n;
	uint8_t grh[ENG_DP_GRH_BYTES];
	struct pv_cqe cqe = { 0 };
	struct eng_dp_qp *dq = dst->dp;
	int nd, rc;

	if (m->nsegs > ENG_SGE_MAX || !dq || (ud && !(m->first && m->last)))
		return RS_NAK_OP;	/* the requester bounds these */
	if (m->first) {
		rc = send_start(e, dst, m->len + hdr);
		if (rc != RS_OK)
			return rc;
	} else if (!dq->rx_active) {
		return RS_NAK_INV;	/* no message in progress here */
	}
	/* Looked up again: an MR deregistered mid-message fails it. */
	n = m->chunk + (m->first ? hdr : 0);
	nd = eng_dp_sge_range(dst->o.conn->dev, dst->pd, dq->rx.sge,
			      dq->rx.num_sge, IBV_ACCESS_LOCAL_WRITE,
			      m->first ? 0 : (uint64_t)m->off + hdr, n, dsegs,
			      ENG_SGE_MAX);
	if (nd < 0)
		return resp_local_err(e, dst, dq->rx.wr_id, IBV_WC_LOC_PROT_ERR,
				      RS_NAK_OP);
	if (ud && m->grh) {
		memcpy(grh, m->grh, ENG_DP_GRH_BYTES);
		ssegs[nsrc++] = (struct eng_seg){ .ptr = grh,
						  .len = ENG_DP_GRH_BYTES };
		cqe.wc_flags |= IBV_WC_GRH;
	} else if (ud) {
		eng_dp_grh_build(grh, m->sgid, m->dgid, UD_IP_PAYLOAD(m->len),
				 m->traffic_class, m->flow_label, m->hop_limit);
		ssegs[nsrc++] = (struct eng_seg){ .ptr = grh,
						  .len = ENG_DP_GRH_BYTES };
		cqe.wc_flags |= IBV_WC_GRH;
		cqe.sl = eng_dp_grh_wc_sl(m->sgid, m->dgid);
	}
	memcpy(&ssegs[nsrc], m->segs, m->nsegs * sizeof(*m->segs));
	nsrc += m->nsegs;
	if (eng_dp_copy(dsegs, (uint32_t)nd, ssegs, nsrc, n) < 0)
		return resp_local_err(e, dst, dq->rx.wr_id, IBV_WC_LOC_PROT_ERR,
				      RS_NAK_OP);
	eng_stat_add(dp_bytes, m->chunk);
	if (!m->last)
		return RS_OK;
	/* IBA 9.4.1.1 / 10.6.7: the message invalidates its IETH rkey, a
	 * type 2 window bound through this QP; another rkey is the
	 * requester's invalid request (as rxe: the receive completes with
	 * IBV_WC_REM_INV_REQ_ERR, the requester gets the NAK). */
	if (m->opcode == IBV_WR_SEND_WITH_INV) {
		if (!eng_mw_send_inv(dst, m->imm_data))
			return resp_local_err(e, dst, dq->rx.wr_id,
					      IBV_WC_REM_INV_REQ_ERR,
					      RS_NAK_INV);
		cqe.imm_data = m->imm_data;
		cqe.wc_flags |= IBV_WC_WITH_INV;
	}
	dq->rx_active = false;
	cqe.wr_id = dq->rx.wr_id;
	cqe.opcode = IBV_WC_RECV;
	cqe.byte_len = m->len + hdr;
	cqe.src_qp = m->src ? m->src->qp_num : m->src_qpn;
	if (m->grh)
		cqe.sl = m->sl;	/* from the wire: its header type */
	if (eng_wr_has_imm(m->opcode)) {
		cqe.imm_data = m->imm_data;
		cqe.wc_flags |= IBV_WC_WITH_IMM;
	}
	rq_cqe(e, dst, &cqe, m->send_flags & IBV_SEND_SOLICITED);
	return RS_OK;
}

/* The remote MR an RDMA or atomic names, with the destination QP's own
 * remote rights (IBA 10.6.3.3, 9.7.5.1.x); NULL when not allowed.  *va
 * becomes the MR's address (a zero-based window's offset is moved). */
static struct eng_mr *remote_mr(struct eng_qp *dst, const struct eng_dp_msg *m,
				uint64_t *va, uint64_t len)
{
	uint32_t need = eng_dp_remote_access_for(m->opcode);

	if ((dst->attr.qp_access_flags & need) != need)
		return NULL;
	return eng_dp_rguard_mr(dst, m, va, len, need);
}

/* Remote access violation: RC NAKs and its responder enters ERR
 * (IBA 9.9.3.1.3, as rxe); UC drops the message. */
static int access_err(struct eng *e, struct eng_qp *dst)
{
	eng_stat_inc(dp_access_errors);
	if (!eng_qpt_reliable(dst->init.qp_type))
		return RS_DROP;
	eng_dp_rguard_access_err(dst);
	eng_dp_qp_error(e, dst);
	return RS_NAK_ACCESS;
}

/* RDMA WRITE, one chunk at a time, each checked against the MR as it is
 * now.  WITH_IMM needs a receive WQE: no data moves until one is there
 * (RNR otherwise); it is taken and completed at the last chunk. */
static int resp_write(struct eng *e, struct eng_qp *dst,
		      const struct eng_dp_msg *m)
{
	bool imm = eng_wr_has_imm(m->opcode), fatal;
	uint64_t va = m->remote_addr + m->off;
	struct pv_cqe cqe = { 0 };
	struct eng_dp_rwqe w;
	struct eng_seg seg;
	struct eng_mr *mr;
	struct rq_src s;

	if (imm && m->first && !rq_has(e, dst, &fatal))
		return no_recv(dst, fatal);
	if (m->chunk) {
		mr = remote_mr(dst, m, &va, m->chunk);
		if (!mr)
			return access_err(e, dst);
		eng_dp_mr_seg(mr, va, m->chunk, &seg);
		if (eng_dp_copy(&seg, 1, m->segs, m->nsegs, m->chunk) < 0)
			return access_err(e, dst);
	}
	eng_stat_add(dp_bytes, m->chunk);
	if (!imm || !m->last)
		return RS_OK;
	/* Gone since the first chunk (another QP of the SRQ took it): the
	 * requester retries this last chunk after the RNR timer. */
	if (!rq_fetch(e, dst, &s, &w, &fatal))
		return no_recv(dst, fatal);
	rq_take(dst, &s);
	cqe.wr_id = w.wr_id;
	cqe.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	cqe.byte_len = m->len;
	cqe.imm_data = m->imm_data;
	cqe.wc_flags = IBV_WC_WITH_IMM;
	cqe.src_qp = m->src->qp_num;
	rq_cqe(e, dst, &cqe, m->send_flags & IBV_SEND_SOLICITED);
	return RS_OK;
}

/* RDMA READ: checks the chunk against the MR as it is now and returns
 * its bytes in the reply (a pointer into this side's mapping, used by the
 * requester's completer before the engine does anything else). */
static int resp_read(struct eng *e, struct eng_qp *dst,
		     const struct eng_dp_msg *m, struct eng_dp_reply *r)
{
	uint64_t va = m->remote_addr + m->off;
	struct eng_seg seg;
	struct eng_mr *mr;

	if (!m->chunk)
		return RS_OK;
	mr = remote_mr(dst, m, &va, m->chunk);
	if (!mr)
		return access_err(e, dst);
	eng_dp_mr_seg(mr, va, m->chunk, &seg);
	r->data = seg.ptr;
	r->len = seg.len;
	eng_stat_add(dp_bytes, m->chunk);
	return RS_OK;
}

static int resp_atomic(struct eng *e, struct eng_qp *dst,
		       const struct eng_dp_msg *m, uint64_t *orig)
{
	uint64_t va = m->remote_addr;
	struct eng_seg seg;
	struct eng_mr *mr;

	/* IBA 9.4.5: an atomic's address must be 8-byte aligned, else the
	 * request is invalid. */
	if (m->remote_addr & (ENG_DP_ATOMIC_BYTES - 1)) {
		eng_dp_qp_error(e, dst);
		return RS_NAK_INV;
	}
	mr = remote_mr(dst, m, &va, ENG_DP_ATOMIC_BYTES);
	if (!mr)
		return access_err(e, dst);
	eng_dp_mr_seg(mr, va, ENG_DP_ATOMIC_BYTES, &seg);
	if (eng_dp_atomic(&seg, m->opcode, m->compare_add, m->swap, orig) < 0)
		return access_err(e, dst);
	return RS_OK;
}

/* The decision rs as the message the wire would carry back.  UC and UD
 * never answer (IBA 9.7.6 is RC's): a NAK there is a lost message. */
static void reply_set(struct eng_qp *dst, const struct eng_dp_msg *m, int rs,
		      struct eng_dp_reply *r)
{
	static const uint8_t nak[] = {
		[RS_NAK_INV] = ENG_DP_NAK_INV_REQ,
		[RS_NAK_ACCESS] = ENG_DP_NAK_REM_ACCESS,
		[RS_NAK_OP] = ENG_DP_NAK_REM_OP,
	};
	bool rc = eng_qpt_reliable(dst->init.qp_type);

	if (rs == RS_OK) {
		if (m->last && dst->dp)
			dst->dp->msn = (dst->dp->msn + 1) & ENG_DP_MSN_MASK;
		r->kind = eng_wr_is_read(m->opcode) ? ENG_DP_REPLY_READ_RESP :
			  eng_wr_is_atomic(m->opcode) ? ENG_DP_REPLY_ATOMIC_ACK :
			  ENG_DP_REPLY_ACK;
	} else if (rs == RS_RNR && rc) {
		r->kind = ENG_DP_REPLY_RNR_NAK;
		r->code = dst->attr.min_rnr_timer & 31;
	} else if (rs >= RS_NAK_INV && rs <= RS_NAK_OP && rc) {
		r->kind = ENG_DP_REPLY_NAK;
		r->code = nak[rs];
	} else {
		r->kind = ENG_DP_REPLY_NONE;
	}
	r->msn = dst->dp ? dst->dp->msn : 0;
}

/* XRC (IBA 19.2.5.2): a message at an XRC_RECV QP goes to the XRC SRQ
 * its XRCETH names, which must be of the QP's domain; for the delivery
 * the QP takes that SRQ's queue, PD and CQ (eng_obj.h), and gives them
 * back after.  false: no such SRQ here (counted; an invalid request). */
static bool xrc_bind(struct eng_qp *dst, const struct eng_dp_msg *m)
{
	struct eng_srq *srq = eng_xrcd_srq_find(dst->o.conn->dev, m->xrc_srqn);

	if (!srq || !eng_xrcd_same(srq->xrcd, dst->xrcd)) {
		eng_stat_inc(xrc_srqn_refused);
		eng_dbg("client %u: QP %u: XRC SRQ %u refused", dst->o.conn->id,
			dst->qp_num, m->xrc_srqn);
		return false;
	}
	dst->srq = srq;
	dst->pd = srq->pd;
	dst->recv_cq = srq->cq;
	return true;
}

static void xrc_unbind(struct eng_qp *dst)
{
	dst->srq = NULL;
	dst->pd = NULL;
	dst->recv_cq = NULL;
}

void eng_dp_resp_deliver(struct eng *e, struct eng_qp *dst,
			 const struct eng_dp_msg *m, struct eng_dp_reply *r)
{
	bool xrc = dst->init.qp_type == IBV_QPT_XRC_RECV;
	int rs = RS_NAK_INV;	/* unknown opcode: the requester refuses it */

	*r = (struct eng_dp_reply){ 0 };
	if (xrc && !xrc_bind(dst, m)) {
		eng_hwc_delivered(dst, m, false);
		reply_set(dst, m, RS_NAK_INV, r);
		return;
	}
	if (eng_wr_is_send(m->opcode))
		rs = resp_send(e, dst, m);
	else if (eng_wr_is_write(m->opcode))
		rs = resp_write(e, dst, m);
	else if (eng_wr_is_read(m->opcode))
		rs = resp_read(e, dst, m, r);
	else if (eng_wr_is_atomic(m->opcode))
		rs = resp_atomic(e, dst, m, &r->atomic_orig);
	if (rs != RS_OK) {
		r->data = NULL;
		r->len = 0;
	}
	eng_hwc_delivered(dst, m, rs == RS_OK);
	reply_set(dst, m, rs, r);
	if (xrc)
		xrc_unbind(dst);
}
