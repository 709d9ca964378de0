/* SPDX-License-Identifier: MIT */
/*
 * Destroying an AH or a QP: the client's UD sends posted before go first.
 * Kept out of eng_objects.c/eng_qp.c so the requester (eng_dp_req.c,
 * which looks objects up) is called from above them, never from them.
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_list.h"
#include "providers/soft/engine/eng_obj.h"

/* The UD datagrams c posted before it destroys a QP or an AH leave first,
 * as a NIC's would have (a WQE there holds its address vector: mckey
 * posts unsignaled sends, then destroys the AH and the QP at once).  One
 * bounded pass over c's UD QPs (only, when given) in RTS; connectionless
 * sends wait for nothing. */
#define DRAIN_WQES	256
#define DRAIN_BYTES	(1u << 20)

static void ud_drain(struct eng *e, struct eng_conn *c, struct eng_qp *only)
{
	struct eng_dp_budget b = { .bytes = DRAIN_BYTES, .wqes = DRAIN_WQES };
	struct eng_dp_sched *s = e->dp;

	if (!s)
		return;
	for (struct eng_list *p = s->qps.next, *n = p->next;
	     p != &s->qps && b.wqes; p = n, n = p->next) {
		struct eng_dp_qp *dq = eng_container_of(p, struct eng_dp_qp,
						      link);
		struct eng_qp *qp = dq->qp;

		if (qp->o.conn != c || (only && qp != only) ||
		    qp->init.qp_type != IBV_QPT_UD ||
		    qp->state != IBV_QPS_RTS)
			continue;
		eng_dp_req_run(e, dq, &b);
	}
}

int eng_op_ah_destroy_drain(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;

	if (eng_obj_get(r->c, in->handle, PV_OBJ_AH))
		ud_drain(r->e, r->c, NULL);	/* sends naming it go first */
	return eng_op_ah_destroy(r);
}

int eng_op_qp_destroy_drain(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_qp *qp = eng_obj_get(r->c, in->handle, PV_OBJ_QP);

	if (qp)
		ud_drain(r->e, r->c, qp);
	return eng_op_qp_destroy(r);
}
