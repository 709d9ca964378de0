/* SPDX-License-Identifier: MIT */
/*
 * Shared XRC_RECV QPs (ibv_open_qp(3), IBA 19.2.5: an XRC target QP is
 * the domain's, not one process's).  A client holding a handle on an
 * XRC domain may open, by number, an XRC_RECV QP of that domain on its
 * device: it gets a QP handle of its own (an eng_qp_open) through which
 * it modifies, queries and destroys, and on which the QP's async events
 * reach it.  Destroying an opener's handle drops that handle only.
 *
 * The QP itself (its eng_qp) always belongs to one of its holders.  When
 * that holder lets go (destroys its handle, or its connection ends)
 * while others hold it open, the QP passes to the first opener: the
 * opener's handle becomes the QP's own handle in the opener's
 * connection, the QP holds the opener's domain handle instead of the
 * old one, and its rings' charges and its place in the data path's
 * schedule move along.  The QP is freed only with its last handle, and
 * its number then rests in the device's table as every QP number does.
 *
 * The open request is hostile: the domain handle must be the caller's,
 * the number a 24-bit QP number of the caller's device whose QP is an
 * XRC_RECV QP of the same domain; anything else is -EINVAL (as
 * ib_open_qp answers a number not among the domain's target QPs), and
 * counted.  Another pod's QP is never found: QP numbers are looked up in
 * the caller's own device's table only.
 */
#include <errno.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

#define QPN_MASK	0xffffffu

struct eng_qp *eng_qp_by_handle(struct eng_conn *c, uint32_t handle,
				struct eng_qp_open **ret_open)
{
	struct eng_qp *qp = eng_obj_get(c, handle, PV_OBJ_QP);
	struct eng_qp_open *op;

	*ret_open = NULL;
	if (qp)
		return qp;
	op = eng_obj_get(c, handle, ENG_OBJ_QP_OPEN);
	if (!op || !op->qp)
		return NULL;
	*ret_open = op;
	return op->qp;
}

static void open_release(struct eng *e, struct eng_obj *o)
{
	struct eng_qp_open *op = (struct eng_qp_open *)o;

	(void)e;
	if (op->qp)
		eng_list_del(&op->link);
	op->xrcd->o.users--;
}

static int open_refused(const struct eng_req *r, const char *why,
			uint32_t qp_num)
{
	eng_stat_inc(xrc_qp_open_refused);
	eng_dbg("client %u: open of QP %u refused: %s", r->c->id, qp_num,
		why);
	return -EINVAL;
}

static bool hand_over_obj(struct eng *e, struct eng_obj *o)
{
	return eng_qp_hand_over(e, (struct eng_qp *)o);
}

int eng_op_qp_open(struct eng_req *r)
{
	const struct pv_ipc_qp_open *in = r->in;
	struct pv_ipc_qp_open_resp *out = r->out;
	struct eng_xrcd *x;
	struct eng_qp *qp;
	struct eng_qp_open *op;
	int ret;

	if (in->reserved || in->qp_type != IBV_QPT_XRC_RECV)
		return open_refused(r, "not an XRC_RECV open", in->qp_num);
	if (!in->qp_num || in->qp_num > QPN_MASK)
		return open_refused(r, "no such QP number", in->qp_num);
	x = eng_obj_get(r->c, in->xrcd_handle, PV_OBJ_XRCD);
	if (!x)
		return open_refused(r, "not a domain handle", in->qp_num);
	qp = eng_idtab_get(&r->c->dev->qps, in->qp_num);
	if (!qp || qp->init.qp_type != IBV_QPT_XRC_RECV ||
	    !eng_xrcd_same(qp->xrcd, x))
		return open_refused(r, "no XRC_RECV QP of the domain",
				    in->qp_num);
	/* A QP handle against the client's QP limit (eng_objects.c). */
	op = eng_obj_create(r, ENG_OBJ_QP_OPEN, sizeof(*op), open_release,
			    &ret);
	if (!op)
		return ret;
	op->qp = qp;
	op->xrcd = x;
	x->o.users++;
	eng_list_add_tail(&qp->openers, &op->link);
	qp->o.hand_over = hand_over_obj;
	eng_stat_inc(xrc_qp_opened);
	out->handle = op->o.handle;
	out->qp_num = qp->qp_num;
	out->qp_state = qp->state;
	out->reserved = 0;
	r->out_len = sizeof(*out);
	return 0;
}

bool eng_qp_hand_over(struct eng *e, struct eng_qp *qp)
{
	struct eng_conn *from = qp->o.conn, *to;
	struct eng_qp_open *op;

	if (!qp->openers.next || eng_list_empty(&qp->openers))
		return false;
	op = eng_container_of(qp->openers.next, struct eng_qp_open, link);
	to = op->o.conn;
	eng_dp_qp_move(e, qp, to);
	/* The creator's handle goes; the opener's names the QP now, in
	 * the opener's place among its objects (teardown order holds). */
	eng_htab_del(&from->handles, qp->o.handle);
	eng_list_del(&qp->o.link);
	from->count[PV_OBJ_QP]--;
	eng_htab_set(&to->handles, op->o.handle, qp, PV_OBJ_QP);
	qp->o.handle = op->o.handle;
	eng_list_add_tail(&op->o.link, &qp->o.link);
	eng_list_del(&op->o.link);
	/* The opener's domain handle (one of the same domain) is held by
	 * the QP from now on; the creator's is free to close. */
	qp->xrcd->o.users--;
	qp->xrcd = op->xrcd;
	eng_list_del(&op->link);
	free(op);
	eng_stat_inc(objects_destroyed);
	eng_stat_dec(objects_live);
	eng_stat_inc(xrc_qp_handed_over);
	eng_dbg("client %u: XRC_RECV QP %u passes to client %u", from->id,
		qp->qp_num, to->id);
	return true;
}

void eng_qp_openers_drop(struct eng_qp *qp)
{
	struct eng_list *pos, *tmp;

	if (!qp->openers.next)
		return;
	eng_list_for_each_safe(pos, tmp, &qp->openers) {
		struct eng_qp_open *op = eng_container_of(pos,
						struct eng_qp_open, link);

		eng_list_del(&op->link);
		op->qp = NULL;
	}
}
