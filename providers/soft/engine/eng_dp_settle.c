/* SPDX-License-Identifier: MIT */
/*
 * Posts before a control call take effect before it (issue 12, item 6).
 *
 * A client posts by writing WQEs to its rings and ringing a doorbell, and
 * sends control requests over its socket; one epoll wake-up can report
 * both, and the loop serves requests before it runs the data path
 * (eng_loop.c).  A request that depends on posted work (resize or destroy
 * a CQ, modify or destroy a QP, modify or destroy an SRQ) would then be
 * judged on a stale view: a resize below the completions already posted
 * succeeds and the CQ overflows, a modify to ERR flushes sends a NIC had
 * long executed.  On a NIC a doorbell write reaches the device before a
 * later command does (both are posted writes in program order), so the
 * posted WQEs are at least fetched first.
 *
 * So before such a request the engine runs the requester side of every QP
 * of the requesting connection, as a data-path pass would, with a budget
 * of its own: each QP at most the WQEs its send queue holds (everything
 * posted so far, bounded by the granted depth), all of them together at
 * most the bytes of one data-path pass (dp_pass_kb).  Only the client's
 * own posted work runs, within what one pass may take, so a request costs
 * the loop no more than a pass; nothing waits on a peer (a WQE blocked in
 * RNR or awaiting its transport stays outstanding, as on a NIC).  A
 * message larger than the bytes budget stays in progress and completes in
 * later passes, its completion still outstanding.
 */
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_budget.h"
#include "providers/soft/engine/eng_dp_settle.h"
#include "providers/soft/engine/eng_obj.h"

bool eng_dp_settle_op(uint16_t op)
{
	switch (op) {
	case PV_OP_CQ_RESIZE:
	case PV_OP_CQ_DESTROY:
	case PV_OP_QP_MODIFY:
	case PV_OP_QP_DESTROY:
	case PV_OP_SRQ_MODIFY:
	case PV_OP_SRQ_DESTROY:
		return true;
	default:
		return false;
	}
}

void eng_dp_settle(struct eng *e, struct eng_conn *c)
{
	struct eng_dp_budget all = eng_dp_pass_budget();

	for (struct eng_list *p = c->objs.next; p != &c->objs; p = p->next) {
		struct eng_obj *o = eng_container_of(p, struct eng_obj, link);
		struct eng_qp *qp;
		struct eng_dp_budget b;
		uint64_t b0;

		if (o->kind != PV_OBJ_QP)
			continue;
		qp = eng_container_of(o, struct eng_qp, o);
		if (!qp->dp || !qp->dp->sq.hdr)
			continue;
		if (!all.bytes)
			break;
		b.bytes = b0 = all.bytes;
		b.wqes = qp->dp->sq.mask + 1;
		eng_dp_req_run(e, qp->dp, &b);
		all.bytes -= b0 - b.bytes;
	}
}
