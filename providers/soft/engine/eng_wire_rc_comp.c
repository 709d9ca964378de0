/* SPDX-License-Identifier: MIT */
/*
 * RC completer on the wire (IBA 9.7.5.1-9.7.5.2, 9.9; as rxe_comp.c):
 * responses are matched to the outstanding window by PSN.  An ACK of PSN
 * p acknowledges every SEND/WRITE whose last PSN is at or before p; a
 * READ response or atomic ACK implicitly acknowledges the SEND/WRITEs
 * before it (9.7.5.1.2); a READ or atomic an ACK passes without its
 * response lost that response, so the requester goes back to it.  READ
 * response data goes to its offset in the WQE's local SGEs, the atomic's
 * original into its 8-byte buffer, through the completer's state machine
 * (eng_comp_sm.h), which also decides NAKs, RNR NAKs and timers.
 * Completions are in order: only the oldest WQE ever completes.
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"
#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_wr.h"

static struct eng_rc_went *head_ent(struct eng_wire_rc *w)
{
	return &w->win[w->head % w->cap];
}

int eng_wire_rc_head_status(struct eng_qp *qp, struct eng_rc_went *x)
{
	const struct pv_send_wqe *wq = &x->sw.w;

	if (x->status != ENG_RC_ST_LOCAL)
		return x->status;
	return wq->opcode == IBV_WR_BIND_MW ? eng_mw_bind(qp, wq) :
	       eng_mw_local_inv(qp, wq->imm_data);
}

void eng_wire_rc_complete_head(struct eng *e, struct eng_dp_qp *dq,
			       int status)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_qp *qp = dq->qp;
	struct eng_rc_went *x = head_ent(w);
	const struct pv_send_wqe *wq = &x->sw.w;
	struct pv_cqe cqe = {
		.wr_id = wq->wr_id, .status = (uint32_t)status,
		.opcode = eng_dp_wc_opcode(wq->opcode),
		.byte_len = (uint32_t)x->total, .qp_num = qp->qp_num,
	};
	bool signaled = (wq->send_flags & IBV_SEND_SIGNALED) ||
			qp->init.sq_sig_all;

	if (eng_wr_is_read(wq->opcode) || eng_wr_is_atomic(wq->opcode))
		w->rd_out--;
	w->head = (w->head + 1) % w->cap;
	w->n--;
	if (w->sent)
		w->sent--;
	else
		w->cur_off = 0;
	eng_stat_inc(dp_wqes);
	eng_hwc_wqe_done(qp, wq->opcode, status);
	/* The slot is retired before the CQE is visible (the ring ABI's
	 * slot reuse order); cqe holds copies. */
	eng_dp_ring_consume(&dq->sq);
	if (status != IBV_WC_SUCCESS || signaled)
		eng_dp_cqe_push(e, qp->send_cq, &cqe, false);
	if (status == IBV_WC_SUCCESS)
		return;
	/* The rest of the window is flushed from its slots. */
	eng_wire_rc_free(dq);
	dq->timer_kind = ENG_DP_TIMER_NONE;
	dq->timer_at = 0;
	eng_dp_qp_error(e, qp);
}

void eng_wire_rc_arm(struct eng_dp_qp *dq)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_comp c = { .qp_type = IBV_QPT_RC,
			      .timeout = dq->qp->attr.timeout };

	if (dq->timer_kind == ENG_DP_TIMER_RNR)
		return;
	if (!w || !w->n || eng_psn_diff(w->tx_psn, w->una) <= 0) {
		dq->timer_kind = ENG_DP_TIMER_NONE;
		dq->timer_at = 0;
		return;
	}
	eng_comp_run(&c, ENG_COMP_EV_SENT, NULL);
	/* Queues shared by QPs (their ACKs come after the others' packets
	 * and the receiver's backlog) make the round trip far longer than
	 * one packet's: the timer stretches with it (eng_wire_rtt.h; two
	 * QPs of dpt_flood across nodes, timeout 12, ended in RETRY_EXC_ERR
	 * with nothing lost), the probe waits twice the round trip. */
	c.timer_ns = eng_rtt_rto(&w->rtt, c.timer_ns);
	w->probe_ns = eng_rtt_pto(&w->rtt, eng_lim.wire_rc_probe_us * 1000);
	dq->timer_kind = ENG_DP_TIMER_RETRY;
	/* A lost tail (the last packets, or their ACK) is seen by no NAK:
	 * one early probe resends it long before the transport timeout
	 * (IBA lets a requester retransmit any time, 9.7.6.1.3; the
	 * responder re-ACKs duplicates). */
	w->probing = eng_lim.wire_rc_probe_us && w->probe_ns < c.timer_ns;
	w->probe_left = w->probing ? c.timer_ns - w->probe_ns : 0;
	dq->timer_at = eng_dp_now_ns() + (w->probing ? w->probe_ns :
					  c.timer_ns);
}

static void una_to(struct eng_wire_rc *w, uint32_t psn)
{
	if (eng_psn_after(psn, w->una))
		w->una = psn;
}

/* Completes the SEND/WRITEs up to PSN p; stops at a READ/atomic whose
 * response is missing (going back to it when p passed it).  Returns
 * false when the QP failed. */
static bool ack_upto(struct eng *e, struct eng_dp_qp *dq, uint32_t p)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_rc_acked a;

	for (;;) {
		int st;

		eng_rc_ack_scan(w, p, &a);
		for (uint32_t i = 0; i < a.ncomplete && dq->wrc == w; i++)
			eng_wire_rc_complete_head(e, dq, IBV_WC_SUCCESS);
		if (dq->wrc != w)
			return false;
		una_to(w, a.una);
		if (!a.local_err)
			break;
		/* The oldest WQE never went out: a local failure, or a
		 * window bind/invalidate that runs now, in send-queue
		 * order; a successful one lets the scan go on. */
		st = eng_wire_rc_head_status(dq->qp, head_ent(w));
		eng_wire_rc_complete_head(e, dq, st);
		if (st != IBV_WC_SUCCESS || dq->wrc != w)
			return false;
	}
	/* Acknowledged past without its response: ask again, once until
	 * something moves. */
	if (a.go_back && (!w->gap_asked || w->gap_psn != w->una)) {
		w->gap_asked = true;
		w->gap_psn = w->una;
		eng_hwc_qp_inc(dq->qp, implied_nak_seq_err);
		eng_wire_rc_rewind(w, w->una);
	}
	return true;
}

static void comp_load(const struct eng_dp_qp *dq, const struct eng_rc_went *x,
		      struct eng_comp *c)
{
	const struct eng_qp *qp = dq->qp;

	*c = (struct eng_comp){
		.qp_type = eng_qpt_reliable(qp->init.qp_type) ?
			   IBV_QPT_RC : (uint8_t)qp->init.qp_type,
		.rnr_retry = qp->attr.rnr_retry, .retry_cnt = qp->attr.retry_cnt,
		.timeout = qp->attr.timeout, .opcode = x->sw.w.opcode,
		.last = true, .rnr_tries = dq->rnr_tries,
		.retry_tries = dq->retry_tries, .timer_kind = dq->timer_kind,
	};
}

/* RNR NAK or NAK at psn for the head WQE. */
static void on_nak(struct eng *e, struct eng_dp_qp *dq, uint32_t psn,
		   const struct eng_aeth *a)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_dp_reply r = { .msn = a->msn,
				  .code = eng_aeth_value(a->syndrome) };
	struct eng_rc_went *x = head_ent(w);
	enum eng_comp_st st;
	struct eng_comp c;

	if (!eng_psn_in_window(psn, x->psn, x->npsn ? x->npsn : 1))
		return;		/* not the oldest: stale */
	if (eng_aeth_type(a->syndrome) == ENG_AETH_RNR_NAK) {
		r.kind = ENG_DP_REPLY_RNR_NAK;
		PV_USDT(podverbsd, rnr_nak, dq->qp->qp_num, psn, r.code, 0);
		eng_stat_inc(wire_rc_rnr_naks_rcvd);
		eng_stat_inc(dp_rnr_naks);
		eng_hwc_qp_inc(dq->qp, rcvd_rnr_err);
	} else {
		r.kind = ENG_DP_REPLY_NAK;
		PV_USDT(podverbsd, nak, dq->qp->qp_num, psn, r.code, 0);
		if (r.code == ENG_DP_NAK_PSN_SEQ) {
			eng_stat_inc(wire_rc_seq_naks_rcvd);
			eng_hwc_qp_inc(dq->qp, rcvd_seq_err);
			eng_hwc_qp_inc(dq->qp, packet_seq_err);
		}
		/* The packets that followed an RNR NAK'd request find a
		 * gap at its PSN: the RNR back-off resends from there
		 * anyway, and the request was not lost, so no retry. */
		if (r.code == ENG_DP_NAK_PSN_SEQ && psn == w->una &&
		    dq->timer_kind == ENG_DP_TIMER_RNR)
			return;
	}
	comp_load(dq, x, &c);
	st = eng_comp_run(&c, ENG_COMP_EV_REPLY, &r);
	dq->rnr_tries = c.rnr_tries;
	dq->retry_tries = c.retry_tries;
	una_to(w, psn);
	if (st == ENG_COMP_ST_WAIT) {		/* RNR back-off */
		eng_wire_rc_rewind(w, psn);
		dq->timer_kind = c.timer_kind;
		dq->timer_at = eng_dp_now_ns() + c.timer_ns;
	} else if (st == ENG_COMP_ST_RESEND) {	/* PSN sequence error */
		eng_hwc_qp_inc(dq->qp, completer_retry_err);
		eng_wire_rc_rewind(w, psn);
		dq->timer_kind = ENG_DP_TIMER_NONE;
		dq->timer_at = 0;
	} else {
		eng_wire_rc_complete_head(e, dq, c.status ? c.status :
					  IBV_WC_BAD_RESP_ERR);
	}
}

/* A READ response or atomic ACK at psn for the head WQE x. */
static void on_data(struct eng *e, struct eng_dp_qp *dq,
		    const struct eng_pkt *pkt)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_rc_went *x = head_ent(w);
	struct eng_qp *qp = dq->qp;
	uint32_t psn = pkt->h.bth.psn, want, len, n = 0;
	bool atomic = pkt->h.bth.opcode == ENG_OP_RC_ATOMIC_ACK;
	struct eng_dp_reply r = { .msn = pkt->h.aeth.msn };
	struct eng_seg segs[ENG_SGE_MAX];
	enum eng_comp_st st;
	struct eng_comp c;
	int nd;

	if (atomic != eng_wr_is_atomic(x->sw.w.opcode) ||
	    (!atomic && !eng_wr_is_read(x->sw.w.opcode)) ||
	    !eng_psn_in_window(psn, x->psn, x->npsn)) {
		eng_stat_inc(wire_rc_stale_resp);
		return;
	}
	want = (uint32_t)(x->rd_done / w->mtu);
	if (eng_psn_diff(psn, eng_psn_add(x->psn, want)) != 0) {
		/* A gap in the responses: ask again from it, once per gap
		 * (every later response of the burst shows the same gap). */
		if (eng_psn_after(psn, eng_psn_add(x->psn, want)) &&
		    !(w->gap_asked &&
		      w->gap_psn == eng_psn_add(x->psn, want))) {
			w->gap_asked = true;
			w->gap_psn = eng_psn_add(x->psn, want);
			eng_hwc_qp_inc(qp, implied_nak_seq_err);
			eng_wire_rc_rewind(w, w->gap_psn);
		}
		eng_stat_inc(wire_rc_stale_resp);
		return;
	}
	len = atomic ? ENG_DP_ATOMIC_BYTES :
	      (uint32_t)(x->total - x->rd_done > w->mtu ? w->mtu :
			 x->total - x->rd_done);
	/* Each request of a split READ is answered FIRST..LAST. */
	if ((!atomic && (pkt->paylen != len || pkt->h.bth.opcode !=
			 eng_rc_read_resp_opcode_at(want, x->npsn,
						    x->rd_chunk)))) {
		eng_stat_inc(wire_rc_bad_resp);
		return;
	}
	nd = eng_dp_sge_range(qp->o.conn->dev, qp->pd, x->sw.sge,
			      x->sw.w.num_sge, IBV_ACCESS_LOCAL_WRITE,
			      x->rd_done, len, segs, ENG_SGE_MAX);
	if (nd < 0) {
		eng_wire_rc_complete_head(e, dq, nd == -1 ? IBV_WC_LOC_PROT_ERR
							  : IBV_WC_LOC_LEN_ERR);
		return;
	}
	n = (uint32_t)nd;
	comp_load(dq, x, &c);
	c.chunk = len;
	c.local = segs;
	c.nlocal = n;
	c.last = atomic || x->rd_done + len == x->total;
	r.kind = atomic ? ENG_DP_REPLY_ATOMIC_ACK : ENG_DP_REPLY_READ_RESP;
	r.data = pkt->payload;
	r.len = len;
	r.atomic_orig = pkt->h.atmack_orig;
	st = eng_comp_run(&c, ENG_COMP_EV_REPLY, &r);
	x->rd_done += len;
	una_to(w, eng_psn_add(psn, 1));
	if (st == ENG_COMP_ST_DONE)
		eng_wire_rc_complete_head(e, dq, IBV_WC_SUCCESS);
	else if (st != ENG_COMP_ST_MORE)
		eng_wire_rc_complete_head(e, dq, c.status ? c.status :
					  IBV_WC_BAD_RESP_ERR);
}

void eng_wire_rc_comp_rx(struct eng *e, struct eng_dp_qp *dq,
			 const struct eng_pkt *pkt)
{
	struct eng_wire_rc *w = dq->wrc;
	uint32_t psn = pkt->h.bth.psn, una0;
	uint8_t op = pkt->h.bth.opcode;

	if (!w || !w->req_init || !w->n ||
	    !eng_psn_in_window(psn, head_ent(w)->psn,
			       (uint32_t)eng_psn_diff(w->next_psn,
						      head_ent(w)->psn))) {
		eng_stat_inc(wire_rc_stale_resp);
		return;
	}
	una0 = w->una;
	if (w->rtt_on && !eng_psn_before(psn, w->rtt_psn)) {
		w->rtt_on = false;
		eng_rtt_sample(&w->rtt, eng_dp_now_ns() - w->rtt_t0);
	}
	if (op == ENG_OP_RC_ACK &&
	    eng_aeth_type(pkt->h.aeth.syndrome) == ENG_AETH_ACK) {
		ack_upto(e, dq, psn);
	} else if (op == ENG_OP_RC_ACK) {
		if (ack_upto(e, dq, eng_psn_sub(psn, 1)) && w->n)
			on_nak(e, dq, psn, &pkt->h.aeth);
	} else if (ack_upto(e, dq, eng_psn_sub(psn, 1)) && w->n) {
		on_data(e, dq, pkt);
	}
	if (dq->wrc != w)
		return;		/* QP failed */
	if (w->una != una0) {
		eng_wire_rc_claim(dq->qp->o.conn->dev, w);
		w->gap_asked = false;
		w->recover = false;
		eng_wire_rc_skip_acked(w);
		/* Progress: both retry budgets count consecutive failures. */
		dq->retry_tries = 0;
		if (dq->timer_kind != ENG_DP_TIMER_RNR)
			dq->rnr_tries = 0;
		if (dq->timer_kind == ENG_DP_TIMER_RETRY)
			dq->timer_kind = ENG_DP_TIMER_NONE;
	}
	if (dq->timer_kind != ENG_DP_TIMER_RETRY || w->una != una0)
		eng_wire_rc_arm(dq);
}
