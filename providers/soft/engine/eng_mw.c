/* SPDX-License-Identifier: MIT */
/*
 * Memory windows, type 1 and type 2 (IBA 10.6.7; ibv_alloc_mw(3),
 * ibv_bind_mw(3), ibv_post_send(3)).  A window is a range of an MR with
 * its own remote rights, reached only through its own rkey and only
 * while bound; an access through the MR's rkey never gets a window's
 * rights, and an access through the window never gets more than the
 * window's range and rights.
 *
 * Rules kept here (rxe and rdma-core's man pages agree):
 *  - a bind names an MR of the QP's PD registered with
 *    IBV_ACCESS_MW_BIND, a range inside it, and only REMOTE_READ /
 *    REMOTE_WRITE / REMOTE_ATOMIC; granting remote write or atomic needs
 *    the MR's LOCAL_WRITE; the window's PD must be the QP's;
 *  - the new rkey keeps the window's index (upper 24 bits, eng_mrkey.h);
 *    only the key byte may change;
 *  - type 1: binding again replaces the binding, a zero length unbinds;
 *    it cannot be invalidated (only rebound, or deallocated);
 *  - type 2 (2B: QP and PD): bound only when not bound, with a non-zero
 *    length; tied to the QP it was bound through (remote access must
 *    arrive on that QP); IBV_WR_LOCAL_INV, or a SEND_WITH_INV arriving
 *    on that QP, invalidates it; destroying the QP invalidates it too;
 *  - every bind changes the key byte (a bind naming the window's rkey
 *    as it is fails), so an rkey handed out before is dead after it;
 *  - IBV_ACCESS_ZERO_BASED (type 2 only, IBA o10-36.2.2): a remote
 *    address is an offset from the window's start, checked against
 *    [0, length) and moved to the MR's address before use; an MR
 *    registered ZERO_BASED takes no window;
 *  - a bound window is a user of its MR: the MR can be neither
 *    deregistered nor reregistered meanwhile.  IBA 10.6.7.2.6 lets
 *    deregistration fail then; rxe answers EINVAL, we answer EBUSY, the
 *    errno of every other "still in use" refusal here (a PD with
 *    objects, a CQ with QPs), and the MR stays whole.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

#define MW_RIGHTS (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |	\
		   IBV_ACCESS_REMOTE_ATOMIC)
#define MW_FLAGS (MW_RIGHTS | IBV_ACCESS_ZERO_BASED)

static void mw_unbind(struct eng_mw *mw)
{
	if (mw->mr)
		mw->mr->o.users--;
	mw->mr = NULL;
	mw->qp = NULL;
	mw->addr = mw->length = 0;
	mw->access = 0;
}

static void mw_release(struct eng *e, struct eng_obj *o)
{
	struct eng_mw *mw = (struct eng_mw *)o;

	if (o->conn->dev)
		eng_mrkeys_mw_release(&o->conn->dev->mrs, mw);
	mw_unbind(mw);
	mw->pd->o.users--;
}

int eng_op_mw_alloc(struct eng_req *r)
{
	const struct pv_ipc_mw_alloc *in = r->in;
	struct pv_ipc_mw_resp *out = r->out;
	struct eng_pd *pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
	struct eng_mw *mw;
	int ret;

	if (!pd || (in->type != IBV_MW_TYPE_1 && in->type != IBV_MW_TYPE_2) ||
	    in->reserved[0] || in->reserved[1])
		return -EINVAL;
	mw = eng_obj_create(r, PV_OBJ_MW, sizeof(*mw), mw_release, &ret);
	if (!mw)
		return ret;
	mw->pd = pd;
	pd->o.users++;
	mw->type = in->type;
	ret = eng_mrkeys_mw_assign(&r->c->dev->mrs, mw);
	if (ret < 0) {
		eng_obj_destroy(r->e, &mw->o);
		return eng_limit_hit(ret);
	}
	memset(out, 0, sizeof(*out));
	out->handle = mw->o.handle;
	out->rkey = mw->rkey;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_mw_dealloc(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_mw *mw = eng_obj_get(r->c, in->handle, PV_OBJ_MW);

	if (!mw)
		return -EINVAL;
	return eng_obj_destroy(r->e, &mw->o);
}

static int bind_err(const struct eng_qp *qp, const char *why)
{
	eng_dbg("client %u: QP %u: bind refused: %s", qp->o.conn->id,
		qp->qp_num, why);
	eng_stat_inc(mw_errors);
	return IBV_WC_MW_BIND_ERR;
}

/* The MR a bind of [addr, addr + len) with rights acc may use. */
static struct eng_mr *bind_mr(struct eng_qp *qp, uint32_t lkey, uint64_t addr,
			      uint64_t len, uint32_t acc)
{
	struct eng_mr *mr = eng_mrkeys_by_lkey(&qp->o.conn->dev->mrs, lkey);

	if (!mr || mr->pd != qp->pd || !(mr->access & IBV_ACCESS_MW_BIND) ||
	    (mr->access & IBV_ACCESS_ZERO_BASED))
		return NULL;
	if (!eng_dp_range_ok(mr->iova, mr->length, addr, len))
		return NULL;
	if ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return NULL;
	return mr;
}

int eng_mw_bind(struct eng_qp *qp, const struct pv_send_wqe *w)
{
	struct eng_mw *mw = eng_obj_get(qp->o.conn, w->ah_handle, PV_OBJ_MW);
	uint64_t addr = w->remote_addr, len = w->compare_add;
	uint32_t acc = (uint32_t)w->swap;
	struct eng_mr *mr = NULL;

	if (!mw || !qp->o.conn->dev || mw->pd != qp->pd)
		return bind_err(qp, "no window of the QP's PD");
	if (ENG_MW_IDX(w->rkey) != ENG_MW_IDX(mw->rkey))
		return bind_err(qp, "the new rkey changes the window's index");
	if (w->rkey == mw->rkey)
		return bind_err(qp, "the key byte is the window's own");
	if (w->swap & ~(uint64_t)MW_FLAGS)
		return bind_err(qp, "rights other than remote ones");
	if ((acc & IBV_ACCESS_ZERO_BASED) && mw->type != IBV_MW_TYPE_2)
		return bind_err(qp, "a zero-based type 1 window");
	if (mw->type == IBV_MW_TYPE_2 && (mw->mr || !len))
		return bind_err(qp, "type 2 window bound, or empty range");
	if (len) {
		mr = bind_mr(qp, w->remote_qkey, addr, len, acc);
		if (!mr)
			return bind_err(qp, "MR, range or rights");
	}
	mw_unbind(mw);
	mw->rkey = w->rkey;
	if (mr) {
		mr->o.users++;
		mw->mr = mr;
		mw->addr = addr;
		mw->length = len;
		mw->access = acc;
		mw->qp = mw->type == IBV_MW_TYPE_2 ? qp : NULL;
	}
	eng_stat_inc(mw_bound);
	return IBV_WC_SUCCESS;
}

/* The type 2 window rkey names at qp's device, bound, of qp's PD. */
static struct eng_mw *bound_type2(struct eng_qp *qp, uint32_t rkey)
{
	struct eng_dev *d = qp->o.conn->dev;
	struct eng_mw *mw = d ? eng_mrkeys_mw_by_rkey(&d->mrs, rkey) : NULL;

	if (!mw || mw->rkey != rkey || mw->type != IBV_MW_TYPE_2 ||
	    !mw->mr || mw->pd != qp->pd)
		return NULL;
	return mw;
}

int eng_mw_local_inv(struct eng_qp *qp, uint32_t rkey)
{
	struct eng_mw *mw = bound_type2(qp, rkey);

	if (!mw) {
		eng_stat_inc(mw_errors);
		return IBV_WC_LOC_QP_OP_ERR;
	}
	mw_unbind(mw);
	eng_stat_inc(mw_invalidated);
	return IBV_WC_SUCCESS;
}

bool eng_mw_send_inv(struct eng_qp *dst, uint32_t rkey)
{
	struct eng_mw *mw = bound_type2(dst, rkey);

	if (!mw || mw->qp != dst) {
		eng_stat_inc(mw_errors);
		return false;
	}
	mw_unbind(mw);
	eng_stat_inc(mw_invalidated);
	return true;
}

struct eng_mr *eng_mw_remote(struct eng_qp *dst, uint32_t rkey, uint64_t *va,
			     uint64_t len, uint32_t need)
{
	struct eng_dev *d = dst->o.conn->dev;
	struct eng_mw *mw = d ? eng_mrkeys_mw_by_rkey(&d->mrs, rkey) : NULL;
	bool zb;

	if (!mw || mw->rkey != rkey || !mw->mr || mw->pd != dst->pd)
		return NULL;
	if (mw->type == IBV_MW_TYPE_2 && mw->qp != dst)
		return NULL;
	zb = mw->access & IBV_ACCESS_ZERO_BASED;
	if ((mw->access & need) != need ||
	    !eng_dp_range_ok(zb ? 0 : mw->addr, mw->length, *va, len))
		return NULL;
	/* In range: an offset below length, so no wrap past addr. */
	if (zb)
		*va += mw->addr;
	return mw->mr;
}

void eng_mw_qp_gone(struct eng_qp *qp)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &qp->o.conn->objs) {
		struct eng_obj *o = eng_container_of(pos, struct eng_obj, link);

		if (o->kind == PV_OBJ_MW && ((struct eng_mw *)o)->qp == qp)
			mw_unbind((struct eng_mw *)o);
	}
}
