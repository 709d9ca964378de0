/* SPDX-License-Identifier: MIT */
/*
 * Posts before a control call take effect before it (issue 12, item 6).
 *
 * A client posts by writing WQEs to its rings and ringing a doorbell, and
 * sends control requests over its socket; one epoll wake-up can report
 * both, and the loop serves requests before it runs the data path
 * (eng_loop.c).  A request that depends on posted work would then be
 * judged on a stale view: a resize below the completions already posted
 * succeeds and the CQ overflows, a modify to ERR flushes sends a NIC had
 * long executed.  On a NIC a doorbell write reaches the device before a
 * later command does (both are posted writes in program order), so the
 * posted WQEs are at least fetched first.
 *
 * So before such a request the engine runs the requester side of the QPs
 * it concerns, as a data-path pass would:
 *  - modify QP (to ERR, SQD or anything else) and destroy QP: that QP;
 *  - resize CQ: the client's QPs that complete into that CQ.
 * (Destroying a CQ or SRQ that a QP still uses fails with EBUSY, so there
 * is nothing to run first; an SRQ's receives are not the client's sends.)
 * Each QP runs at most the WQEs its send queue holds (everything posted
 * so far, bounded by the granted depth), all of them together at most the
 * bytes of one data-path pass (dp_pass_kb): a request costs the loop no
 * more than a pass, and only the client's own posted work runs.  Nothing
 * waits on a peer: a WQE blocked in RNR or awaiting its transport stays
 * outstanding, as on a NIC, and a message larger than the byte budget
 * stays in progress, its completion still to come.
 */
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_budget.h"
#include "providers/soft/engine/eng_dp_settle.h"
#include "providers/soft/engine/eng_obj.h"

static void settle_qp(struct eng *e, struct eng_qp *qp,
		      struct eng_dp_budget *all)
{
	struct eng_dp_budget b;

	if (!qp->dp || !qp->dp->sq.hdr || !all->bytes)
		return;
	b.bytes = all->bytes;
	b.wqes = qp->dp->sq.mask + 1;
	eng_dp_req_run(e, qp->dp, &b);
	all->bytes = b.bytes;
}

/* The client's QPs that complete into cq; the walk ends once it has met
 * as many QPs as hold a reference on cq. */
static void settle_cq(struct eng *e, struct eng_conn *c, struct eng_cq *cq,
		      struct eng_dp_budget *all)
{
	uint32_t left = cq->o.users;

	for (struct eng_list *p = c->objs.next; p != &c->objs && left;
	     p = p->next) {
		struct eng_obj *o = eng_container_of(p, struct eng_obj, link);
		struct eng_qp *qp;

		if (o->kind != PV_OBJ_QP)
			continue;
		qp = eng_container_of(o, struct eng_qp, o);
		if (qp->send_cq != cq && qp->recv_cq != cq)
			continue;
		left--;
		settle_qp(e, qp, all);
	}
}

/* The handle of the object r names: dispatch has checked that the
 * payload holds the op's fixed part. */
static uint32_t req_handle(const struct eng_req *r)
{
	switch (r->op) {
	case PV_OP_QP_MODIFY:
		return ((const struct pv_ipc_qp_modify *)r->in)->qp_handle;
	case PV_OP_QP_DESTROY:
		return ((const struct pv_ipc_handle *)r->in)->handle;
	case PV_OP_CQ_RESIZE:
		return ((const struct pv_ipc_cq_create *)r->in)->cq_handle;
	default:
		return 0;
	}
}

void eng_dp_settle(struct eng_req *r)
{
	struct eng_dp_budget all = eng_dp_pass_budget();
	struct eng_qp *qp;
	struct eng_cq *cq;

	switch (r->op) {
	case PV_OP_QP_MODIFY:
	case PV_OP_QP_DESTROY:
		qp = eng_obj_get(r->c, req_handle(r), PV_OBJ_QP);
		if (qp)
			settle_qp(r->e, qp, &all);
		break;
	case PV_OP_CQ_RESIZE:
		cq = eng_obj_get(r->c, req_handle(r), PV_OBJ_CQ);
		if (cq)
			settle_cq(r->e, r->c, cq, &all);
		break;
	default:
		break;
	}
}
