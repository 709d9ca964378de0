/* SPDX-License-Identifier: MIT */
/*
 * Completions: CQEs into the CQ ring, completion events for an armed CQ
 * (IBA 11.4.2.2: "next" fires on any completion, "solicited" on a
 * solicited receive or any error), and CQ overrun (IBA 11.4.2.1 / 10.10:
 * the CQ goes to error, IBV_EVENT_CQ_ERR, and the QPs feeding it to ERR;
 * a CQE the application has not polled is never overwritten).
 */
#include <string.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"

static void fire(struct eng_cq *cq)
{
	struct pv_ipc_cq_event ev = { .cq_handle = cq->o.handle };

	if (!cq->channel)
		return;
	if (send(cq->channel->fd, &ev, sizeof(ev), MSG_DONTWAIT | MSG_NOSIGNAL)
	    == (ssize_t)sizeof(ev))
		eng_stat_inc(events_sent);
	else
		eng_stat_inc(events_dropped);
}

static void notify(struct eng_cq *cq, bool solicited)
{
	uint32_t *arm = &cq->dp->ring.hdr->arm;
	uint32_t a;

	/* The CQE's prod store must be visible before the arm word is read:
	 * the application arms, then polls (it would miss a CQE that
	 * landed in between only if both sides reordered). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	a = __atomic_load_n(arm, __ATOMIC_RELAXED);
	if (a == PV_CQ_ARM_NONE || (a == PV_CQ_ARM_SOLICITED && !solicited))
		return;
	if (a != PV_CQ_ARM_NEXT && a != PV_CQ_ARM_SOLICITED)
		return;		/* garbage from the client: ignore */
	if (!__atomic_compare_exchange_n(arm, &a, PV_CQ_ARM_NONE, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return;		/* re-armed differently meanwhile: next CQE */
	cq->armed = false;
	fire(cq);
}

void eng_dp_cq_arm(struct eng_cq *cq, bool solicited_only)
{
	uint32_t want = solicited_only ? PV_CQ_ARM_SOLICITED : PV_CQ_ARM_NEXT;
	uint32_t *arm;

	if (!cq->dp)
		return;
	arm = &cq->dp->ring.hdr->arm;
	/* "Next" wins over "solicited" until the event fires. */
	if (want == PV_CQ_ARM_SOLICITED &&
	    __atomic_load_n(arm, __ATOMIC_ACQUIRE) == PV_CQ_ARM_NEXT)
		return;
	__atomic_store_n(arm, want, __ATOMIC_RELEASE);
}

static void overflow(struct eng *e, struct eng_cq *cq)
{
	struct eng_conn *c = cq->o.conn;
	struct eng_list *pos, *tmp;

	cq->dp->error = true;
	__atomic_store_n(&cq->dp->ring.hdr->overflow, 1, __ATOMIC_RELEASE);
	PV_USDT(podverbsd, cq_overflow, c->id, cq->o.handle);
	eng_stat_inc(dp_cq_overflows);
	eng_hwc_dev_add(c->dev, cq_overflow, 1);
	eng_info("client %u: CQ %u overflowed: CQ and its QPs in error",
		 c->id, cq->o.handle);
	eng_event_push(c, IBV_EVENT_CQ_ERR, PV_OBJ_CQ, cq->o.handle);
	eng_list_for_each_safe(pos, tmp, &c->objs) {
		struct eng_obj *o = eng_container_of(pos, struct eng_obj, link);
		struct eng_qp *qp = (struct eng_qp *)o;

		if (o->kind == PV_OBJ_QP &&
		    (qp->send_cq == cq || qp->recv_cq == cq))
			eng_dp_qp_error(e, qp);
	}
}

bool eng_dp_cqe_push(struct eng *e, struct eng_cq *cq,
		     const struct pv_cqe *cqe, bool solicited)
{
	struct eng_dp_cq *dc;
	int space;

	/* A QP with no CQ of its own (XRC_RECV outside a delivery). */
	if (!cq) {
		eng_stat_inc(dp_cqes_lost);
		return false;
	}
	dc = cq->dp;
	PV_USDT(podverbsd, wqe_complete, cq->o.conn->id, cqe->qp_num,
		cqe->wr_id, cqe->status, cqe->opcode);
	if (!dc || dc->error) {
		eng_stat_inc(dp_cqes_lost);
		return false;
	}
	space = eng_dp_ring_space(&dc->ring);
	if (space <= 0) {
		eng_stat_inc(dp_cqes_lost);
		overflow(e, cq);
		return false;
	}
	memcpy(eng_dp_ring_entry(&dc->ring, dc->ring.own), cqe, sizeof(*cqe));
	eng_dp_ring_produce(&dc->ring);
	eng_stat_inc(dp_cqes);
	notify(cq, solicited || cqe->status != 0);
	return true;
}
