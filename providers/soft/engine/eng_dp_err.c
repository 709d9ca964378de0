/* SPDX-License-Identifier: MIT */
/*
 * Error transitions (IBA 10.3.1, 11.6.2): a QP in ERR completes every
 * outstanding and every newly posted work request with
 * IBV_WC_WR_FLUSH_ERR, signaled or not; a QP on an SRQ gets
 * IBV_EVENT_QP_LAST_WQE_REACHED once (its SRQ WQEs stay with the SRQ).
 * RESET discards the queues without completions.
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"

/* A ring whose producer counter is impossible: skip to it. */
static void ring_resync(struct eng_ring *r)
{
	r->own = __atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE);
	__atomic_store_n(&r->hdr->cons, r->own, __ATOMIC_RELEASE);
}

static bool flush_ring(struct eng *e, struct eng_qp *qp, struct eng_ring *r,
		       bool send)
{
	struct eng_cq *cq = send ? qp->send_cq : qp->recv_cq;
	int n = eng_dp_ring_avail(r);

	if (n < 0) {
		ring_resync(r);
		return true;
	}
	for (int i = 0; i < n; i++) {
		const void *ent = eng_dp_ring_entry(r, r->own);
		struct pv_cqe cqe = {
			.status = IBV_WC_WR_FLUSH_ERR,
			.qp_num = qp->qp_num,
		};

		/* Only wr_id and opcode are needed, each read once. */
		if (send) {
			struct pv_send_wqe w;

			eng_dp_shm_read(&w, ent, sizeof(w));
			cqe.wr_id = w.wr_id;
			cqe.opcode = eng_dp_wc_opcode(w.opcode);
		} else {
			struct pv_recv_wqe w;

			eng_dp_shm_read(&w, ent, sizeof(w));
			cqe.wr_id = w.wr_id;
			cqe.opcode = IBV_WC_RECV;
		}
		/* slot retired before its completion shows (ring ABI) */
		eng_dp_ring_consume(r);
		eng_dp_cqe_push(e, cq, &cqe, false);
		eng_stat_inc(dp_flushed);
	}
	return n > 0;
}

/* A SEND in progress holds a receive WQE already off the ring: it is
 * outstanding too, and flushed first (it was taken first). */
static bool flush_rx(struct eng *e, struct eng_qp *qp, struct eng_dp_qp *dq)
{
	struct pv_cqe cqe = { .wr_id = dq->rx.wr_id,
			      .status = IBV_WC_WR_FLUSH_ERR,
			      .opcode = IBV_WC_RECV, .qp_num = qp->qp_num };

	if (!dq->rx_active)
		return false;
	dq->rx_active = false;
	eng_dp_cqe_push(e, qp->recv_cq, &cqe, false);
	eng_stat_inc(dp_flushed);
	return true;
}

bool eng_dp_flush(struct eng *e, struct eng_qp *qp)
{
	struct eng_dp_qp *dq = qp->dp;
	bool did = false;

	if (!dq)
		return false;
	/* The WQE in progress is still in its slot: flushed from there. */
	dq->busy = false;
	did |= flush_rx(e, qp, dq);
	did |= flush_ring(e, qp, &dq->sq, true);
	if (dq->rq.hdr)
		did |= flush_ring(e, qp, &dq->rq, false);
	if (qp->srq && !dq->flushed_rq_srq_event) {
		dq->flushed_rq_srq_event = true;
		eng_qp_event(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
	}
	return did;
}

void eng_dp_qp_error(struct eng *e, struct eng_qp *qp)
{
	if (qp->state == IBV_QPS_ERR)
		return;
	qp->state = IBV_QPS_ERR;
	eng_stat_inc(dp_qp_errors);
	eng_dbg("client %u: QP %u to ERR", qp->o.conn->id, qp->qp_num);
	if (qp->dp) {
		qp->dp->timer_at = 0;
		qp->dp->timer_kind = ENG_DP_TIMER_NONE;
	}
	eng_dp_flush(e, qp);
}

void eng_dp_qp_fatal(struct eng *e, struct eng_qp *qp)
{
	eng_stat_inc(dp_ring_errors);
	eng_info("client %u: QP %u: malformed work request or ring; QP fatal",
		 qp->o.conn->id, qp->qp_num);
	eng_qp_event(qp, IBV_EVENT_QP_FATAL);
	eng_dp_qp_error(e, qp);
}

void eng_dp_qp_modified(struct eng *e, struct eng_qp *qp,
			uint32_t old_state)
{
	struct eng_dp_qp *dq = qp->dp;

	eng_wire_rc_qp_modified(qp, old_state);
	if (qp->state == IBV_QPS_ERR && old_state != IBV_QPS_ERR) {
		if (dq) {
			dq->timer_at = 0;
			dq->timer_kind = ENG_DP_TIMER_NONE;
		}
		eng_dp_flush(e, qp);
		return;
	}
	if (qp->state == IBV_QPS_RTR && old_state == IBV_QPS_INIT && dq) {
		eng_resp_res_init(&dq->res, qp->attr.max_dest_rd_atomic);
		eng_psn_rx_init(&dq->rpsn, qp->attr.rq_psn);
		return;
	}
	if (qp->state != IBV_QPS_RESET || !dq)
		return;
	ring_resync(&dq->sq);
	if (dq->rq.hdr)
		ring_resync(&dq->rq);
	dq->timer_at = 0;
	dq->timer_kind = ENG_DP_TIMER_NONE;
	dq->rnr_tries = dq->retry_tries = 0;
	dq->dest_dev_id = 0;
	dq->flushed_rq_srq_event = false;
	/* RESET discards without completions, messages in progress too. */
	dq->busy = false;
	dq->rx_active = false;
	dq->msn = 0;
	eng_resp_res_clear(&dq->res);
}
