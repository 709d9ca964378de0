/* SPDX-License-Identifier: MIT */
/*
 * RC/UC requester on the wire (IBA 9.5, 9.7.1-9.7.4; as rxe_req.c): send
 * WQEs come off the SQ into the QP's outstanding window as engine copies
 * (the slot is read once, and retired only at completion), each gets its
 * PSNs (sq_psn on), and is cut into path-MTU packets whose payload
 * iovecs point straight into registered memory (eng_dp_sge_range; the
 * MRs are looked up again for every packet, so one deregistered meanwhile
 * fails the WQE).  AckReq goes on each message's last packet and every
 * wire_rc_ackreq_pkts packets, so a long message's window drains.  What
 * is in flight is bounded in packets (wire_rc_flight_pkts) and in READs
 * and atomics (max_rd_atomic, IBA 9.7.2.1).  Go back N rewinds the send
 * cursor to a PSN inside the window.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"
#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

static struct eng_rc_went *ent(struct eng_wire_rc *w, uint32_t i)
{
	return &w->win[(w->head + i) % w->cap];
}

/* The local side of a WQE copy: every lkey, the length.  A WC status. */
static int local_check(struct eng_qp *qp, struct eng_rc_went *x)
{
	const struct pv_send_wqe *wq = &x->sw.w;
	uint32_t access = eng_wr_needs_local_write(wq->opcode) ?
			  IBV_ACCESS_LOCAL_WRITE : 0;

	x->total = 0;
	if (wq->send_flags & IBV_SEND_INLINE) {
		x->total = wq->inline_len;
	} else {
		for (uint32_t i = 0; i < wq->num_sge && i < ENG_SGE_MAX; i++) {
			const struct pv_wqe_sge *s = &x->sw.sge[i];

			if (s->length &&
			    !eng_dp_mr_find(qp->o.conn->dev, s->lkey, qp->pd,
					    s->addr, s->length, access))
				return IBV_WC_LOC_PROT_ERR;
			x->total += s->length;
		}
	}
	if (x->total > ENG_PORT_MAX_MSG_SZ)
		return IBV_WC_LOC_LEN_ERR;
	if (eng_wr_is_atomic(wq->opcode)) {
		if (x->total < ENG_DP_ATOMIC_BYTES)
			return IBV_WC_LOC_LEN_ERR;
		x->total = ENG_DP_ATOMIC_BYTES;
	}
	return IBV_WC_SUCCESS;
}

static bool is_rd_atomic(uint32_t op)
{
	return eng_wr_is_read(op) || eng_wr_is_atomic(op);
}

/* READ response packets d's QPs may ask for together. */
static uint32_t read_credit(struct eng_dev *d, const struct eng_wire_rc *w)
{
	return eng_rc_read_credit(eng_net_rcvbuf(d), w->mtu,
				  eng_lim.wire_dev_read_credit_pkts);
}

/*
 * Receiver-driven flow control of READ responses: every QP's responses
 * land in its device's one socket, which the responders fill faster than
 * one loop thread drains it; beyond its receive buffer the kernel drops
 * them (RcvbufErrors), and go back N on lost responses of four QPs'
 * 1 MiB READs ended in RETRY_EXC_ERR.  So a READ WQE goes as requests of
 * rd_chunk packets (a READ request stands alone on the wire, any length,
 * IBA 9.4.3; rxe answers each), and a new one is sent only while the
 * device's asked-for responses stay within read_credit() and the QP's
 * outstanding READ/atomic requests within max_rd_atomic (the responder
 * keeps a resource for each, 9.7.2.1).  A request asked again (go back
 * N, probe) is within what was counted.
 */
static bool rd_may_send(struct eng_dp_qp *dq, struct eng_wire_rc *w,
			struct eng_rc_went *x, uint32_t psn, uint32_t npsn)
{
	struct eng_qp *qp = dq->qp;
	struct eng_dev *d = qp->o.conn->dev;
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;

	if (!is_rd_atomic(x->sw.w.opcode) || eng_psn_before(psn, w->tx_hi))
		return true;
	if (eng_rc_rd_reqs_out(w) >= rd_max)
		return false;
	/* A QP with nothing asked for may always ask for one request: a
	 * hold some other QP never gives back (its route gone) stalls
	 * no one. */
	if (!eng_wr_is_read(x->sw.w.opcode) || !w->rd_claim)
		return true;
	if (d->rd_credit_used + npsn > read_credit(d, w)) {
		eng_stat_inc(wire_rc_read_credit_waits);
		return false;
	}
	return true;
}

/* Takes SQ WQEs into the window while there is room; -1 when the ring
 * is malformed (the QP is made fatal). */
static int fill(struct eng *e, struct eng_dp_qp *dq, struct eng_wire_rc *w)
{
	struct eng_qp *qp = dq->qp;
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	int avail = eng_dp_ring_avail(&dq->sq);

	if (avail < 0)
		return -1;
	while (w->n < w->cap && (uint32_t)avail > w->n) {
		struct eng_ring r = dq->sq;
		struct eng_rc_went *x = ent(w, w->n);
		uint32_t op;

		r.own += w->n;
		if (eng_dp_send_wqe_fetch(&r, qp->init.qp_type, &qp->init.cap,
					  &x->sw) < 0)
			return -1;
		op = x->sw.w.opcode;
		if (is_rd_atomic(op) && w->rd_out >= rd_max)
			break;	/* refetched once one completes */
		if ((x->sw.w.send_flags & IBV_SEND_FENCE) && w->rd_out)
			break;
		x->status = eng_wr_is_local(op) ? ENG_RC_ST_LOCAL :
			    local_check(qp, x);
		x->rd_done = 0;
		x->rd_chunk = 0;
		if (eng_wr_is_read(op))
			x->rd_chunk = (uint32_t)(eng_lim.wire_rc_read_req_pkts <
						 read_credit(qp->o.conn->dev, w) ?
						 eng_lim.wire_rc_read_req_pkts :
						 read_credit(qp->o.conn->dev, w));
		x->psn = w->next_psn;
		if (x->status == ENG_RC_ST_LOCAL)
			x->total = 0;
		x->npsn = x->status ? 0 : eng_rc_npsn(op, x->total, w->mtu);
		w->next_psn = eng_psn_add(w->next_psn, x->npsn);
		if (is_rd_atomic(op))
			w->rd_out++;
		PV_USDT(podverbsd, wqe_start, qp->o.conn->id, qp->qp_num,
			x->sw.w.wr_id, op, x->total);
		w->n++;
		(void)e;
	}
	return 0;
}

/* The payload segments of bytes [off, off + len) of x; a WC status. */
static int pay_segs(struct eng_qp *qp, struct eng_rc_went *x, uint64_t off,
		    uint32_t len, struct eng_seg *segs, uint32_t *n)
{
	const struct pv_send_wqe *wq = &x->sw.w;
	int nd;

	*n = 0;
	if (!len)
		return IBV_WC_SUCCESS;
	if (wq->send_flags & IBV_SEND_INLINE) {
		if (off + len > wq->inline_len || off + len > ENG_INLINE_MAX)
			return IBV_WC_LOC_LEN_ERR;
		segs[0] = (struct eng_seg){ .ptr = x->sw.inl + off, .len = len };
		*n = 1;
		return IBV_WC_SUCCESS;
	}
	nd = eng_dp_sge_range(qp->o.conn->dev, qp->pd, x->sw.sge, wq->num_sge,
			      0, off, len, segs, ENG_SGE_MAX);
	if (nd < 0)
		return nd == -1 ? IBV_WC_LOC_PROT_ERR : IBV_WC_LOC_LEN_ERR;
	*n = (uint32_t)nd;
	return IBV_WC_SUCCESS;
}

/* The headers of the packet of x at byte off; *paylen, *last. */
static int build(struct eng_qp *qp, struct eng_wire_rc *w,
		 struct eng_rc_went *x, uint64_t off, struct eng_pkt_hdrs *h,
		 uint32_t *paylen, bool *last)
{
	const struct pv_send_wqe *wq = &x->sw.w;
	bool uc = qp->init.qp_type == IBV_QPT_UC, first = off == 0;
	uint64_t left = x->total - off;
	int op;

	*paylen = 0;
	*last = true;
	if (eng_wr_is_read(wq->opcode)) {
		uint32_t k0, n = eng_rc_read_chunk(x->npsn, x->rd_chunk,
						   (uint32_t)(off / w->mtu),
						   &k0);
		uint64_t end = (uint64_t)(k0 + n) * w->mtu;

		/* To the end of its request: a request asked again from
		 * what was placed stays within the original (rxe checks). */
		h->reth = (struct eng_reth){ .va = wq->remote_addr + off,
					     .rkey = wq->rkey,
					     .dmalen = (uint32_t)((end < x->total ?
						       end : x->total) - off) };
		*last = k0 + n >= x->npsn;
	} else if (eng_wr_is_atomic(wq->opcode)) {
		bool cas = wq->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;

		h->atmeth = (struct eng_atmeth){
			.va = wq->remote_addr, .rkey = wq->rkey,
			.swap_add = cas ? wq->swap : wq->compare_add,
			.compare = cas ? wq->compare_add : 0 };
	} else {
		*paylen = left > w->mtu ? w->mtu : (uint32_t)left;
		*last = off + *paylen == x->total;
		h->reth = (struct eng_reth){ .va = wq->remote_addr,
					     .rkey = wq->rkey,
					     .dmalen = (uint32_t)x->total };
		h->imm = ntohl(wq->imm_data);
		h->ieth_rkey = wq->imm_data;	/* invalidate_rkey, host order */
	}
	op = eng_rc_req_opcode(uc, wq->opcode, first, *last);
	if (op < 0)
		return IBV_WC_LOC_QP_OP_ERR;
	/* XRC: RC's opcode at transport 101, the SRQ named in the XRCETH
	 * (IBA 19.2.5.2). */
	if (qp->init.qp_type == IBV_QPT_XRC_SEND) {
		op += ENG_OP_XRC_BASE;
		h->xrcsrq = wq->remote_qpn & ENG_QPN_MASK;
	}
	h->bth.opcode = (uint8_t)op;
	h->bth.se = *last && (wq->send_flags & IBV_SEND_SOLICITED);
	h->bth.dqpn = qp->attr.dest_qp_num & ENG_QPN_MASK;
	h->bth.psn = eng_psn_add(x->psn, (uint32_t)(off / w->mtu));
	return IBV_WC_SUCCESS;
}

/* Puts the packet of x at byte off on the wire (AckReq when ackreq or
 * when due); a WC status (x's own error: nothing was sent).  *paylen,
 * *last: what the packet carried. */
static int send_pkt(struct eng *e, struct eng_dp_qp *dq, struct eng_wire_rc *w,
		    struct eng_rc_went *x, uint64_t off, bool ackreq,
		    uint32_t *paylen, bool *last)
{
	struct eng_qp *qp = dq->qp;
	struct eng_dev *d = qp->o.conn->dev;
	struct eng_pkt_hdrs h = { 0 };
	struct eng_seg segs[ENG_SGE_MAX];
	struct eng_wire_dst dst;
	bool uc = qp->init.qp_type == IBV_QPT_UC;
	uint32_t nseg;
	int st;

	st = build(qp, w, x, off, &h, paylen, last);
	if (st == IBV_WC_SUCCESS)
		st = pay_segs(qp, x, off, *paylen, segs, &nseg);
	if (st != IBV_WC_SUCCESS)
		return st;
	h.bth.pkey = d->pkey;
	h.bth.ackreq = !uc && (ackreq || *last || ++w->since_ackreq >=
			       eng_lim.wire_rc_ackreq_pkts);
	if (h.bth.ackreq)
		w->since_ackreq = 0;
	/* The round trip of a new packet only (Karn): a resent one's
	 * answer may be the first copy's. */
	if (h.bth.ackreq && !w->rtt_on &&
	    eng_psn_diff(h.bth.psn, w->tx_hi) >= 0) {
		w->rtt_on = true;
		w->rtt_psn = h.bth.psn;
		w->rtt_t0 = eng_dp_now_ns();
	}
	eng_wire_rc_dst(qp, &dst);
	/* A packet the wire or the queue drops is lost like any other: the
	 * transport timer brings it back (RC), the message is lost (UC). */
	if (eng_psn_diff(h.bth.psn, w->tx_hi) < 0)
		eng_hwc_qp_inc(qp, resent_pkts);
	st = eng_wire_tx(e, d, &dst, &h, segs, nseg, *paylen);
	eng_hwc_wire_tx(d, qp, st, *paylen);
	if (st < 0)
		eng_stat_inc(wire_rc_tx_lost);
	return IBV_WC_SUCCESS;
}

/* Sends the next packet of the entry at w->sent; false when nothing can
 * go now.  *bytes: payload sent. */
static bool send_one(struct eng *e, struct eng_dp_qp *dq,
		     struct eng_wire_rc *w, uint64_t *bytes)
{
	struct eng_rc_went *x = ent(w, w->sent);
	uint32_t paylen, rd_k0 = 0, rd_n = 0;
	bool last;
	int st;

	if (x->status)
		return false;	/* completes with its error at the head */
	if (eng_wr_is_read(x->sw.w.opcode))
		rd_n = eng_rc_read_chunk(x->npsn, x->rd_chunk,
					 (uint32_t)(w->cur_off / w->mtu), &rd_k0);
	if (!rd_may_send(dq, w, x, eng_psn_add(x->psn, (uint32_t)(w->cur_off /
								 w->mtu)),
			 rd_n))
		return false;
	st = send_pkt(e, dq, w, x, w->cur_off, w->recover, &paylen, &last);
	if (st != IBV_WC_SUCCESS) {
		x->status = st;
		return false;
	}
	*bytes = paylen;
	w->tx_psn = eng_psn_add(x->psn, (uint32_t)(w->cur_off / w->mtu) + 1);
	if (eng_wr_is_read(x->sw.w.opcode)) {
		w->tx_psn = eng_psn_add(x->psn, rd_k0 + rd_n);
		if (eng_psn_after(w->tx_psn, w->rd_hi)) {
			w->rd_hi = w->tx_psn;
			eng_wire_rc_claim(dq->qp->o.conn->dev, w);
		}
	}
	if (eng_psn_after(w->tx_psn, w->tx_hi))
		w->tx_hi = w->tx_psn;
	if (last) {
		w->sent++;
		w->cur_off = 0;
	} else if (eng_wr_is_read(x->sw.w.opcode)) {
		w->cur_off = (uint64_t)(rd_k0 + rd_n) * w->mtu;
	} else {
		w->cur_off += paylen;
	}
	return true;
}

/*
 * The tail-loss probe: the last packet sent goes again, with AckReq, and
 * the send cursor stays where it is.  Its answer says what happened: a
 * duplicate is re-ACKed (only the ACKs were lost, or late), an out of
 * sequence one is NAK'd at the first missing PSN (go back N from there).
 * Going back N from una here instead resent the whole flight whenever
 * the peer was merely slower than wire_rc_probe_us (a loaded node): the
 * duplicates doubled its load, overflowed its socket buffer, lost ACKs
 * and NAKs, and ended in consecutive timeouts, RETRY_EXC_ERR, on a link
 * that lost nothing.  A READ goes again from what it placed.
 */
static void probe_tail(struct eng *e, struct eng_dp_qp *dq,
		       struct eng_wire_rc *w)
{
	uint32_t i, paylen;
	uint64_t off;
	bool last;

	if (eng_rc_probe_at(w, &i, &off))
		(void)send_pkt(e, dq, w, ent(w, i), off, true, &paylen, &last);
	w->rtt_on = false;	/* Karn: the answer may be the probe's */
}

/* UC completes a WQE once its last packet left (no ACKs, IBA 9.8). */
static void uc_retire(struct eng *e, struct eng_dp_qp *dq,
		      struct eng_wire_rc *w)
{
	while (dq->wrc == w && w->n && w->sent) {
		w->una = eng_psn_add(ent(w, 0)->psn, ent(w, 0)->npsn);
		eng_wire_rc_complete_head(e, dq, IBV_WC_SUCCESS);
	}
}

#define WQE_MIN_COST	256

/* Sends what the window and the budget allow. */
static bool send_window(struct eng *e, struct eng_dp_qp *dq,
			struct eng_wire_rc *w, struct eng_dp_budget *b)
{
	bool rc = eng_qpt_reliable(dq->qp->init.qp_type), did = false;
	uint64_t flight = w->recover ? 1 : eng_lim.wire_rc_flight_pkts;

	while (w->sent < w->n && b->bytes) {
		uint64_t bytes = 0;

		/* Signed: a late ACK may have moved una past the cursor
		 * of a go-back-N in progress. */
		if (rc && eng_psn_diff(w->tx_psn, w->una) >= (int64_t)flight)
			break;
		if (!send_one(e, dq, w, &bytes))
			break;
		did = true;
		bytes = bytes > WQE_MIN_COST ? bytes : WQE_MIN_COST;
		b->bytes = b->bytes > bytes ? b->bytes - bytes : 0;
		if (!rc)
			uc_retire(e, dq, w);
	}
	if (did && rc && dq->timer_kind == ENG_DP_TIMER_NONE)
		eng_wire_rc_arm(dq);
	return did;
}

void eng_wire_rc_timers(struct eng *e, struct eng_dp_qp *dq)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_qp *qp = dq->qp;
	struct eng_comp c = {
		.qp_type = eng_qpt_reliable(qp->init.qp_type) ?
			   IBV_QPT_RC : (uint8_t)qp->init.qp_type,
		.rnr_retry = qp->attr.rnr_retry, .retry_cnt = qp->attr.retry_cnt,
		.timeout = qp->attr.timeout, .rnr_tries = dq->rnr_tries,
		.retry_tries = dq->retry_tries, .timer_kind = dq->timer_kind,
	};
	enum eng_comp_st st;
	bool was_retry;

	if (!w || !w->n) {
		dq->timer_kind = ENG_DP_TIMER_NONE;
		dq->timer_at = 0;
		return;
	}
	if (dq->timer_kind == ENG_DP_TIMER_RETRY && w->probing) {
		/* One packet each, so probes go on, at twice the interval
		 * each time, within the transport timeout: a lost NAK or
		 * ACK costs a few probe intervals, not the timeout. */
		eng_stat_inc(wire_rc_probes);
		probe_tail(e, dq, w);
		w->probe_ns *= 2;
		w->probing = w->probe_ns < w->probe_left;
		if (w->probing)
			w->probe_left -= w->probe_ns;
		dq->timer_at = eng_dp_now_ns() + (w->probing ? w->probe_ns :
						  w->probe_left);
		return;
	}
	was_retry = dq->timer_kind == ENG_DP_TIMER_RETRY;
	if (was_retry) {
		eng_stat_inc(wire_rc_timeouts);
		eng_hwc_qp_inc(dq->qp, local_ack_timeout_err);
	}
	st = eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL);
	dq->retry_tries = c.retry_tries;
	dq->timer_kind = ENG_DP_TIMER_NONE;
	dq->timer_at = 0;
	if (st == ENG_COMP_ST_RESEND) {
		/* IBA 9.7.6.1.3 resends from the oldest unacknowledged PSN;
		 * the rest follows once it is answered (recover). */
		w->recover = was_retry;
		eng_hwc_qp_inc(dq->qp, completer_retry_err);
		eng_wire_rc_rewind(w, w->una);
		return;
	}
	eng_wire_rc_complete_head(e, dq, c.status ? c.status :
				  IBV_WC_GENERAL_ERR);
}

bool eng_wire_rc_req_run(struct eng *e, struct eng_dp_qp *dq,
			 struct eng_dp_budget *b)
{
	struct eng_qp *qp = dq->qp;
	struct eng_dev *d = qp->o.conn->dev;
	struct eng_wire_rc *w;
	bool did = false;

	if (!d || qp->state != IBV_QPS_RTS)
		return false;
	w = eng_wire_rc_get(dq);
	if (!w)
		return false;
	did = eng_wire_rc_resp_pump(e, dq);
	if (dq->timer_kind != ENG_DP_TIMER_NONE &&
	    eng_dp_now_ns() >= dq->timer_at) {
		eng_wire_rc_timers(e, dq);
		did = true;
		if (dq->wrc != w)
			return true;	/* failed: QP in ERR */
	}
	if (dq->timer_kind == ENG_DP_TIMER_RNR)
		return did;		/* backing off */
	if (!w->req_init) {
		/* sq_psn is set at RTS; the responder side may have made
		 * the state at RTR already. */
		w->req_init = true;
		w->next_psn = w->tx_psn = w->una = qp->attr.sq_psn &
						   ENG_PSN_MASK;
		w->tx_hi = w->rd_hi = w->una;
	}
	if (fill(e, dq, w) < 0) {
		eng_dp_qp_fatal(e, qp);
		return true;
	}
	/* A WQE whose local side failed completes once it is the oldest;
	 * a window operation runs then. */
	while (dq->wrc == w && w->n && ent(w, 0)->status && w->sent == 0) {
		int st = eng_wire_rc_head_status(qp, ent(w, 0));

		eng_wire_rc_complete_head(e, dq, st);
		if (st != IBV_WC_SUCCESS)
			return true;
		did = true;
		if (fill(e, dq, w) < 0) {
			eng_dp_qp_fatal(e, qp);
			return true;
		}
	}
	did |= send_window(e, dq, w, b);
	return did;
}

void eng_wire_rc_rx(struct eng *e, struct eng_dev *d, struct eng_qp *qp,
		    const struct eng_pkt *pkt, const struct eng_net_pkt *np)
{
	struct eng_dp_qp *dq = qp->dp;

	(void)np;	/* classify checked its addresses */
	if (!dq)
		return;
	if (pkt->mask & ENG_OPF_RESP) {
		if (qp->init.qp_type == IBV_QPT_RC ||
		    qp->init.qp_type == IBV_QPT_XRC_SEND)
			eng_wire_rc_comp_rx(e, dq, pkt);
		return;
	}
	if (pkt->mask & ENG_OPF_REQ)
		eng_wire_rc_resp_rx(e, d, dq, pkt);
}
