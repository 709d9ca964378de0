/* SPDX-License-Identifier: MIT */
/*
 * The RC/UC wire state of a QP (eng_wire_rc.h): allocated at its first
 * wire use, dropped when the QP reconnects, resets or fails, and the
 * go-back-N cursor.  A leaf of the wire's RC files: it calls no stage, so
 * the error path (eng_dp_err.c) may drop the state without a cycle.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_resp_res.h"
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

struct eng_wire_rc *eng_wire_rc_get(struct eng_dp_qp *dq)
{
	struct eng_wire_rc *w = dq->wrc;
	uint32_t cap = (uint32_t)eng_lim.wire_rc_window;

	if (w)
		return w;
	if (cap > ENG_RC_WIN_MAX)
		cap = ENG_RC_WIN_MAX;
	w = calloc(1, sizeof(*w) + cap * sizeof(w->win[0]));
	if (!w) {
		eng_stat_inc(wire_rc_nomem);
		return NULL;
	}
	w->cap = cap;
	w->qpn = dq->qp->qp_num;
	w->req_prev = ENG_OP_NONE;
	/* Fixed for the connection: PSNs map to offsets with it. */
	w->mtu = eng_rc_mtu(dq->qp->attr.path_mtu,
			    dq->qp->o.conn->dev ?
			    eng_net_path_mtu(dq->qp->o.conn->dev) : 0);
	/* The responder's PSN state starts with the wire state: the rings
	 * (dq) may have been mapped only after RTR (a QP that posted
	 * nothing before connecting), when eng_dp_qp_modified() had no dq
	 * to set them in.  Nothing else uses them before the wire does. */
	eng_psn_rx_init(&dq->rpsn, dq->qp->attr.rq_psn);
	eng_resp_res_init(&dq->res, dq->qp->attr.max_dest_rd_atomic);
	dq->wrc = w;
	return w;
}

void eng_wire_rc_claim(struct eng_dev *d, struct eng_wire_rc *w)
{
	uint32_t c = 0;

	if (w->req_init && eng_psn_after(w->rd_hi, w->una))
		c = (uint32_t)eng_psn_diff(w->rd_hi, w->una);
	else
		w->rd_hi = w->una;	/* trails una: 24-bit PSNs wrap */
	if (d) {
		d->rd_credit_used -= d->rd_credit_used < w->rd_claim ?
				     d->rd_credit_used : w->rd_claim;
		d->rd_credit_used += c;
	}
	w->rd_claim = c;
}

void eng_wire_rc_free(struct eng_dp_qp *dq)
{
	struct eng_dev *d = dq->qp && dq->qp->o.conn ? dq->qp->o.conn->dev
						      : NULL;

	if (dq->wrc && d)	/* its READ credit goes back to the device */
		d->rd_credit_used -= d->rd_credit_used < dq->wrc->rd_claim ?
				     d->rd_credit_used : dq->wrc->rd_claim;
	free(dq->wrc);
	dq->wrc = NULL;
	dq->resp_timer_at = 0;		/* a held request goes with it */
}

void eng_wire_rc_qp_modified(struct eng_qp *qp, uint32_t old_state)
{
	(void)old_state;
	/* A new connection (RTR) or RESET starts from the attributes; ERR
	 * flushes the window's WQEs from their (unconsumed) slots. */
	if (qp->dp && (qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RESET ||
		       qp->state == IBV_QPS_ERR))
		eng_wire_rc_free(qp->dp);
}

void eng_wire_rc_dst(const struct eng_qp *qp, struct eng_wire_dst *dst)
{
	const struct pv_ipc_ah_attr *ah = &qp->attr.ah_attr;

	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, ah->dgid, 16);
	dst->tos = ah->traffic_class;
	/* ttl 0: the socket's default, as UD does.  Verbs applications set
	 * hop_limit 1 for a GID on their own L2 segment (ibv_rc_pingpong);
	 * pod networks route, and TTL 1 dies at the first hop. */
}

/* Moves the send cursor to psn (within what was sent); false if no
 * entry holds it. */
static bool seek(struct eng_wire_rc *w, uint32_t psn)
{
	for (uint32_t i = 0; i < w->n && i <= w->sent; i++) {
		struct eng_rc_went *x = ent(w, i);
		uint32_t k;

		if (!eng_psn_in_window(psn, x->psn, x->npsn))
			continue;
		k = (uint32_t)eng_psn_diff(psn, x->psn);
		w->sent = i;
		w->cur_off = (uint64_t)k * w->mtu;
		if (eng_wr_is_read(x->sw.w.opcode))
			x->rd_done = w->cur_off;
		for (uint32_t j = i + 1; j < w->n; j++)
			ent(w, j)->rd_done = 0;
		w->tx_psn = psn;
		w->since_ackreq = 0;
		return true;
	}
	return false;
}

void eng_wire_rc_rewind(struct eng_wire_rc *w, uint32_t psn)
{
	uint32_t tx = w->tx_psn;

	if (seek(w, psn) && psn != tx) {
		PV_USDT(podverbsd, retransmit, w->qpn, psn, tx);
		eng_stat_inc(wire_rc_retransmits);
		w->rtt_on = false;	/* Karn's rule */
	}
}

void eng_wire_rc_skip_acked(struct eng_wire_rc *w)
{
	/* A go-back-N in progress need not resend what an answer has
	 * just acknowledged (the peer had it): the cursor jumps to una. */
	if (eng_psn_after(w->una, w->tx_psn))
		(void)seek(w, w->una);
}
