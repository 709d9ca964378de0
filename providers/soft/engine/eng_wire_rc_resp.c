/* SPDX-License-Identifier: MIT */
/*
 * RC/UC responder on the wire (IBA 9.7.5, 9.8; as rxe_resp.c).  Every
 * request packet is classified by PSN first (eng_resp_res.h): expected
 * ones are checked for opcode sequence (9.8.3) and length (FIRST/MIDDLE
 * exactly one MTU) and executed through the seam, eng_dp_resp_deliver(),
 * as one eng_dp_msg chunk per packet (the WRITE's RETH and the SEND's
 * receive WQE kept across packets); out-of-sequence ones get one PSN
 * sequence error NAK per gap; duplicates are re-ACKed (SEND/WRITE),
 * re-served from memory (READ, its rkey checked again) or answered with
 * the saved original (atomics: never executed twice).  ACKs are
 * coalesced: one on AckReq or every wire_rc_ack_pkts packets.  UC has no
 * ACKs: a gap drops the message in progress and everything up to the
 * next FIRST/ONLY.
 */
#include <arpa/inet.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_resp_res.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

static void hdr_init(const struct eng_dp_qp *dq, const struct eng_dev *d,
		     uint8_t opcode, uint32_t psn, struct eng_pkt_hdrs *h)
{
	*h = (struct eng_pkt_hdrs){ 0 };
	/* An XRC_RECV QP answers with XRC's opcodes (no XRCETH). */
	if (dq->qp->init.qp_type == IBV_QPT_XRC_RECV)
		opcode = (uint8_t)(opcode + ENG_OP_XRC_BASE);
	h->bth.opcode = opcode;
	h->bth.pkey = d->pkey;
	h->bth.dqpn = dq->qp->attr.dest_qp_num & ENG_QPN_MASK;
	h->bth.psn = psn & ENG_PSN_MASK;
}

static void tx(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
	       const struct eng_pkt_hdrs *h, const struct eng_seg *pay,
	       uint32_t npay, uint32_t paylen)
{
	struct eng_wire_dst dst;
	int ret;

	eng_wire_rc_dst(dq->qp, &dst);
	ret = eng_wire_tx(e, d, &dst, h, pay, npay, paylen);
	eng_hwc_wire_tx(d, dq->qp, ret, paylen);
	if (ret < 0)
		eng_stat_inc(wire_rc_tx_lost);
}

static void send_aeth(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
		      uint8_t syndrome, uint32_t psn)
{
	struct eng_pkt_hdrs h;

	if (eng_aeth_type(syndrome) == ENG_AETH_RNR_NAK)
		PV_USDT(podverbsd, rnr_nak, dq->qp->qp_num, psn,
			eng_aeth_value(syndrome), 1);
	else if (eng_aeth_type(syndrome) == ENG_AETH_NAK)
		PV_USDT(podverbsd, nak, dq->qp->qp_num, psn,
			eng_aeth_value(syndrome), 1);
	hdr_init(dq, d, ENG_OP_RC_ACK, psn, &h);
	h.aeth = (struct eng_aeth){ .syndrome = syndrome,
				    .msn = dq->msn & ENG_DP_MSN_MASK };
	tx(e, d, dq, &h, NULL, 0, 0);
	eng_stat_inc(wire_rc_acks_sent);
	dq->wrc->unacked = 0;
}

/* Queues READ response packets k.. of the READ at first PSN psn (npsn
 * packets, len bytes from va at packet 0); a duplicate of one queued
 * moves its cursor back instead.  A full queue drops it: the requester
 * asks again. */
static void read_queue(struct eng_wire_rc *w, uint32_t psn, uint32_t k,
		       uint32_t npsn, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct eng_rc_rdq *q;

	for (uint32_t i = 0; i < w->rdq_n; i++) {
		q = &w->rdq[(w->rdq_head + i) % ENG_RESP_RES_MAX];
		if (q->psn == psn) {
			if (k < q->k)
				q->k = k;
			return;
		}
	}
	if (w->rdq_n == ENG_RESP_RES_MAX)
		return;
	q = &w->rdq[(w->rdq_head + w->rdq_n++) % ENG_RESP_RES_MAX];
	*q = (struct eng_rc_rdq){ .psn = psn, .k = k, .npsn = npsn, .va = va,
				  .rkey = rkey, .len = len };
}

/* Up to *budget packets of q; false when it is done or dropped. */
static bool read_burst(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
		       struct eng_rc_rdq *q, uint64_t *budget)
{
	uint32_t mtu = dq->wrc->mtu;
	uint64_t off = (uint64_t)q->k * mtu;
	uint32_t left = q->len > off ? (uint32_t)(q->len - off) : 0;
	struct eng_dp_msg m = { .rkey = q->rkey };
	struct eng_seg seg = { 0 };
	uint64_t va = q->va + off;
	struct eng_mr *mr;

	if (left) {
		/* Checked again each burst: the MR may be gone meanwhile. */
		mr = eng_dp_rguard_mr(dq->qp, &m, &va, left,
				      IBV_ACCESS_REMOTE_READ);
		if (!mr)
			return false;
		eng_dp_mr_seg(mr, va, left, &seg);
	}
	for (uint32_t o = 0; q->k < q->npsn && *budget; q->k++, (*budget)--) {
		uint32_t n = left - o > mtu ? mtu : left - o;
		struct eng_seg p = { .ptr = seg.ptr + o, .len = n };
		struct eng_pkt_hdrs h;

		hdr_init(dq, d, eng_rc_read_resp_opcode(q->k, q->npsn),
			 eng_psn_add(q->psn, q->k), &h);
		h.aeth = (struct eng_aeth){ .syndrome = eng_aeth_syn_ack(
						    ENG_AETH_CREDITS_INVALID),
					    .msn = dq->msn & ENG_DP_MSN_MASK };
		tx(e, d, dq, &h, &p, n ? 1 : 0, n);
		o += n;
	}
	return q->k < q->npsn;
}

static void hold_retry(struct eng *e, struct eng_dp_qp *dq);

bool eng_wire_rc_resp_pump(struct eng *e, struct eng_dp_qp *dq)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_dev *d = dq->qp->o.conn->dev;
	uint64_t budget = eng_lim.wire_rc_read_burst;

	if (w && d && w->hold) {
		hold_retry(e, dq);
		w = dq->wrc;
	}

	while (w && d && w->rdq_n && budget) {
		if (read_burst(e, d, dq, &w->rdq[w->rdq_head], &budget))
			break;
		w->rdq_head = (w->rdq_head + 1) % ENG_RESP_RES_MAX;
		w->rdq_n--;
	}
	/* READ responses carry an AETH: they acknowledge what came before
	 * (IBA 9.7.5.1.2).  A pass that sent none acknowledged nothing, so
	 * the every-wire_rc_ack_pkts count goes on. */
	if (w && budget != eng_lim.wire_rc_read_burst)
		w->unacked = 0;
	return w && w->rdq_n;
}

static void send_atomic_ack(struct eng *e, struct eng_dev *d,
			    struct eng_dp_qp *dq, uint32_t psn, uint64_t orig)
{
	struct eng_pkt_hdrs h;

	hdr_init(dq, d, ENG_OP_RC_ATOMIC_ACK, psn, &h);
	h.aeth = (struct eng_aeth){
		.syndrome = eng_aeth_syn_ack(ENG_AETH_CREDITS_INVALID),
		.msn = dq->msn & ENG_DP_MSN_MASK };
	h.atmack_orig = orig;
	tx(e, d, dq, &h, NULL, 0, 0);
	dq->wrc->unacked = 0;
}

/* A duplicate request (IBA 9.7.5.1.1), as eng_rc_resp_classify said. */
static void on_dup(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
		   const struct eng_pkt *pkt, const struct eng_rc_rdec *dec)
{
	const struct eng_resp_res_ent *r = dec->res;

	eng_stat_inc(wire_rc_dup_reqs);
	eng_hwc_qp_inc(dq->qp, duplicate_request);
	switch (dec->act) {
	case ENG_RC_R_DUP_READ:
		read_queue(dq->wrc, r->first_psn, dec->k, r->npsn, r->va,
			   r->rkey, r->len);
		eng_wire_rc_resp_pump(e, dq);
		break;
	case ENG_RC_R_DUP_ATOMIC:
		send_atomic_ack(e, d, dq, pkt->h.bth.psn, r->orig);
		break;
	case ENG_RC_R_DUP_ACK:
		send_aeth(e, d, dq, eng_aeth_syn_ack(ENG_AETH_CREDITS_INVALID),
			  eng_psn_sub(dq->rpsn.epsn, 1));
		break;
	default:
		break;
	}
}

/* The packet as the seam's chunk; false when its lengths do not fit the
 * message (a WRITE beyond its RETH, a READ beyond the port's maximum). */
static bool to_msg(struct eng_wire_rc *w, const struct eng_pkt *pkt,
		   struct eng_qp *peer, struct eng_seg *seg,
		   struct eng_dp_msg *m)
{
	uint32_t mask = pkt->mask, wr = (uint32_t)eng_rc_wr_of(pkt->h.bth.opcode);
	const struct eng_pkt_hdrs *h = &pkt->h;

	*m = (struct eng_dp_msg){
		.src = peer, .opcode = wr,
		.send_flags = h->bth.se ? IBV_SEND_SOLICITED : 0,
		.imm_data = (mask & ENG_HDR_IMMDT) ? htonl(h->imm) :
			    (mask & ENG_HDR_IETH) ? h->ieth_rkey : 0,
		.first = mask & ENG_OPF_START, .last = mask & ENG_OPF_END,
		.xrc_srqn = (mask & ENG_HDR_XRCETH) ? h->xrcsrq : 0,
	};
	if (mask & ENG_OPF_START)
		w->msg_off = 0;
	if (eng_wr_is_atomic(wr)) {
		bool cas = wr == IBV_WR_ATOMIC_CMP_AND_SWP;

		m->len = m->chunk = ENG_DP_ATOMIC_BYTES;
		m->remote_addr = h->atmeth.va;
		m->rkey = h->atmeth.rkey;
		m->compare_add = cas ? h->atmeth.compare : h->atmeth.swap_add;
		m->swap = h->atmeth.swap_add;
		return true;
	}
	if (eng_wr_is_read(wr)) {
		m->len = m->chunk = h->reth.dmalen;
		m->remote_addr = h->reth.va;
		m->rkey = h->reth.rkey;
		return h->reth.dmalen <= ENG_PORT_MAX_MSG_SZ;
	}
	*seg = (struct eng_seg){ .ptr = (uint8_t *)pkt->payload,
				 .len = pkt->paylen };
	m->segs = seg;
	m->nsegs = pkt->paylen ? 1 : 0;
	m->off = (uint32_t)w->msg_off;
	m->chunk = pkt->paylen;
	if (w->msg_off + pkt->paylen > ENG_PORT_MAX_MSG_SZ)
		return false;
	m->len = (uint32_t)(w->msg_off + pkt->paylen);
	if (!eng_wr_is_write(wr))
		return true;
	if (mask & ENG_HDR_RETH)
		w->wr = h->reth;
	m->len = w->wr.dmalen;
	m->remote_addr = w->wr.va;
	m->rkey = w->wr.rkey;
	if (w->msg_off + pkt->paylen > w->wr.dmalen)
		return false;
	return !m->last || w->msg_off + pkt->paylen == w->wr.dmalen;
}

/* Holds pkt (which found no receive WQE) instead of an RNR NAK with
 * timer code rnr; false when it cannot wait (too long, hold off, or
 * the hold's time is up: pkt is the held request itself). */
static bool hold_start(struct eng_dp_qp *dq, const struct eng_pkt *pkt,
		       uint8_t rnr)
{
	struct eng_wire_rc *w = dq->wrc;
	uint64_t ns = eng_rc_hold_ns(eng_dp_rnr_ns(rnr),
				     eng_lim.wire_rc_rnr_hold_us * 1000);

	if (w->hold) {
		w->hold_kept = eng_dp_now_ns() < w->hold_until;
		return w->hold_kept;
	}
	if (!ns || pkt->paylen > sizeof(w->hold_buf))
		return false;
	w->hold = true;
	w->hold_dropped = false;
	w->hold_pkt = *pkt;
	w->hold_pkt.hdr = NULL;		/* only h, mask, paylen are used */
	memcpy(w->hold_buf, pkt->payload, pkt->paylen);
	w->hold_pkt.payload = w->hold_buf;
	w->hold_until = eng_dp_now_ns() + ns;
	dq->resp_timer_at = w->hold_until;
	eng_stat_inc(wire_rc_rnr_held);
	return true;
}

/* Sends what the seam answered for the expected request at psn. */
static void answer(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
		   const struct eng_pkt *pkt, const struct eng_dp_msg *m,
		   const struct eng_dp_reply *r)
{
	struct eng_wire_rc *w = dq->wrc;
	uint32_t psn = pkt->h.bth.psn, npsn;

	switch (r->kind) {
	case ENG_DP_REPLY_ACK:
		eng_psn_rx_advance(&dq->rpsn, 1);
		if (pkt->h.bth.ackreq ||
		    ++w->unacked >= eng_lim.wire_rc_ack_pkts)
			send_aeth(e, d, dq, eng_aeth_syn_ack(
					  ENG_AETH_CREDITS_INVALID), psn);
		break;
	case ENG_DP_REPLY_READ_RESP:
		npsn = eng_rc_npsn(IBV_WR_RDMA_READ, m->len, w->mtu);
		eng_resp_res_save_read(&dq->res, psn, npsn, m->rkey,
				       m->remote_addr, m->len);
		eng_psn_rx_advance(&dq->rpsn, npsn);
		read_queue(w, psn, 0, npsn, m->remote_addr, m->rkey, m->len);
		eng_wire_rc_resp_pump(e, dq);
		break;
	case ENG_DP_REPLY_ATOMIC_ACK:
		eng_resp_res_save_atomic(&dq->res, psn, r->atomic_orig);
		eng_psn_rx_advance(&dq->rpsn, 1);
		send_atomic_ack(e, d, dq, psn, r->atomic_orig);
		break;
	case ENG_DP_REPLY_RNR_NAK:
		if (hold_start(dq, pkt, r->code))
			return;	/* answered once a WQE comes, or RNR then */
		eng_stat_inc(wire_rc_rnr_naks_sent);
		eng_hwc_qp_inc(dq->qp, send_rnr_err);
		send_aeth(e, d, dq, eng_aeth_syn_rnr(r->code), psn);
		return;		/* not accepted: the same PSN comes again */
	case ENG_DP_REPLY_NAK:
		eng_stat_inc(wire_rc_naks_sent);
		send_aeth(e, d, dq, eng_aeth_syn_nak(r->code), psn);
		return;
	default:
		return;		/* dropped: the requester's timer */
	}
	w->req_prev = pkt->h.bth.opcode;
	w->msg_off += pkt->paylen;
}

/* Checks and executes the expected request pkt; false when refused. */
static bool execute(struct eng *e, struct eng_dp_qp *dq,
		    const struct eng_pkt *pkt, struct eng_dp_msg *m,
		    struct eng_dp_reply *r)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_qp peer = { .qp_num = dq->qp->attr.dest_qp_num };
	struct eng_seg seg;

	if (!eng_wire_op_seq_ok(w->req_prev, pkt->h.bth.opcode) ||
	    !eng_rc_req_len_ok(pkt->h.bth.opcode, pkt->paylen, w->mtu) ||
	    !to_msg(w, pkt, &peer, &seg, m)) {
		eng_stat_inc(wire_rc_bad_reqs);
		*r = (struct eng_dp_reply){ .kind = ENG_DP_REPLY_NAK,
					    .code = ENG_DP_NAK_INV_REQ };
		return false;
	}
	/* peer stands for the remote QP: its number for the CQE, no
	 * connection (the rguard charges nobody on this engine). */
	eng_dp_resp_deliver(e, dq->qp, m, r);
	return true;
}

static void uc_rx(struct eng *e, struct eng_dp_qp *dq,
		  const struct eng_pkt *pkt)
{
	struct eng_wire_rc *w = dq->wrc;
	uint32_t psn = pkt->h.bth.psn;
	struct eng_dp_reply r;
	struct eng_dp_msg m;

	if (psn != dq->rpsn.epsn && w->req_prev != ENG_OP_NONE &&
	    !(eng_wire_op(w->req_prev)->mask & ENG_OPF_END))
		w->uc_drop = true;	/* IBA 9.8.3.1: the message is lost */
	dq->rpsn.epsn = eng_psn_add(psn, 1);
	if (w->uc_drop && !(pkt->mask & ENG_OPF_START)) {
		eng_stat_inc(wire_uc_dropped);
		return;
	}
	if (w->uc_drop)
		w->req_prev = ENG_OP_NONE;
	w->uc_drop = false;
	if (!execute(e, dq, pkt, &m, &r) || r.kind != ENG_DP_REPLY_ACK) {
		w->uc_drop = true;
		w->req_prev = ENG_OP_NONE;
		eng_stat_inc(wire_uc_dropped);
		return;
	}
	w->req_prev = pkt->h.bth.opcode;
	w->msg_off += pkt->paylen;
}

/* Checks, executes and answers the expected request pkt. */
static void exec_answer(struct eng *e, struct eng_dev *d, struct eng_dp_qp *dq,
			const struct eng_pkt *pkt)
{
	struct eng_dp_reply r;
	struct eng_dp_msg m;

	if (!execute(e, dq, pkt, &m, &r)) {
		/* IBA 9.9.3.1.2: an invalid request is NAK'd and the
		 * responder's QP goes to ERR. */
		send_aeth(e, d, dq, eng_aeth_syn_nak(ENG_NAK_INVALID_REQ),
			  pkt->h.bth.psn);
		eng_dp_qp_error(e, dq->qp);
		return;
	}
	answer(e, d, dq, pkt, &m, &r);
}

/* The held request again (a pass of the scheduler: a receive may have
 * been posted since): executed, still held, or RNR NAK'd once its time
 * is up.  Released, the requests dropped meanwhile are NAK'd (PSN
 * sequence error at epsn) so the requester resends them now. */
static void hold_retry(struct eng *e, struct eng_dp_qp *dq)
{
	struct eng_wire_rc *w = dq->wrc;
	struct eng_dev *d = dq->qp->o.conn->dev;
	uint32_t epsn0 = dq->rpsn.epsn;

	w->hold_kept = false;
	exec_answer(e, d, dq, &w->hold_pkt);
	if (dq->wrc != w || w->hold_kept)
		return;		/* the QP failed, or it still waits */
	w->hold = false;
	dq->resp_timer_at = 0;
	if (dq->rpsn.epsn == epsn0) {
		/* RNR NAK'd: the requester goes back to it, so the gap the
		 * dropped requests leave needs no NAK of its own. */
		if (w->hold_dropped) {
			dq->rpsn.nak_sent = true;
			dq->rpsn.oos_max = dq->rpsn.epsn;
		}
		return;
	}
	eng_stat_inc(wire_rc_rnr_held_ok);
	if (w->hold_dropped) {
		eng_stat_inc(wire_rc_seq_naks_sent);
		eng_hwc_qp_inc(dq->qp, send_seq_err);
		send_aeth(e, d, dq, eng_aeth_syn_nak(ENG_NAK_PSN_SEQ),
			  dq->rpsn.epsn);
		dq->rpsn.nak_sent = true;
		dq->rpsn.oos_max = dq->rpsn.epsn;
	}
}

void eng_wire_rc_resp_rx(struct eng *e, struct eng_dev *d,
			 struct eng_dp_qp *dq, const struct eng_pkt *pkt)
{
	struct eng_wire_rc *w = eng_wire_rc_get(dq);
	struct eng_rc_rdec dec;

	if (!w)
		return;
	if (dq->qp->init.qp_type == IBV_QPT_UC) {
		uc_rx(e, dq, pkt);
		return;
	}
	switch (eng_rc_resp_classify(&dq->rpsn, &dq->res, w->hold,
				     pkt->h.bth.opcode, pkt->h.bth.psn,
				     pkt->h.bth.ackreq, &dec)) {
	case ENG_RC_R_EXECUTE:
		exec_answer(e, d, dq, pkt);
		return;
	case ENG_RC_R_NAK_SEQ:
		eng_stat_inc(wire_rc_out_of_seq);
		eng_stat_inc(wire_rc_seq_naks_sent);
		eng_hwc_qp_inc(dq->qp, out_of_seq_request);
		eng_hwc_qp_inc(dq->qp, out_of_sequence);
		eng_hwc_qp_inc(dq->qp, send_seq_err);
		send_aeth(e, d, dq, eng_aeth_syn_nak(ENG_NAK_PSN_SEQ),
			  dq->rpsn.epsn);
		return;
	case ENG_RC_R_OOS_DROP:
		eng_stat_inc(wire_rc_out_of_seq);
		eng_hwc_qp_inc(dq->qp, out_of_seq_request);
		eng_hwc_qp_inc(dq->qp, out_of_sequence);
		return;
	case ENG_RC_R_HELD_DROP:
		w->hold_dropped = true;
		/* fall through */
	case ENG_RC_R_HELD_AGAIN:
		eng_stat_inc(wire_rc_held_drops);
		return;
	default:
		on_dup(e, d, dq, pkt, &dec);
		return;
	}
}
