/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs and shared receive queues.  QP numbers are unique per
 * device and never 0 or 1 (IBA 10.2.5); capabilities and every state
 * transition are checked by eng_qp_fsm.c before anything changes.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_qp_fsm.h"
#include "providers/soft/engine/eng_stats.h"

#define ENG_QKEY_CONTROLLED	0x80000000u

static void qp_release(struct eng *e, struct eng_obj *o)
{
	struct eng_qp *qp = (struct eng_qp *)o;

	eng_qp_openers_drop(qp);
	if (o->conn->dev)
		eng_idtab_free(&o->conn->dev->qps, qp->qp_num);
	eng_mcast_qp_gone(e, qp);
	eng_mw_qp_gone(qp);
	eng_dp_qp_free(e, qp);
	if (qp->xrcd) {
		qp->xrcd->o.users--;
		return;
	}
	qp->pd->o.users--;
	qp->send_cq->o.users--;
	qp->recv_cq->o.users--;
	if (qp->srq)
		qp->srq->o.users--;
}

/* An XRC_RECV QP names only its domain (IBA 19.2.5): no PD, CQs, SRQ or
 * queues of its own. */
static int qp_refs_xrc_recv(struct eng_req *r,
			    const struct pv_ipc_qp_create *in,
			    struct eng_qp *q)
{
	const struct pv_ipc_qp_cap *c = &in->cap;

	memset(q, 0, sizeof(*q));
	if (in->pd_handle || in->send_cq_handle || in->recv_cq_handle ||
	    in->srq_handle || c->max_send_wr || c->max_recv_wr ||
	    c->max_send_sge || c->max_recv_sge || c->max_inline_data)
		return -EINVAL;
	q->xrcd = eng_obj_get(r->c, in->xrcd_handle, PV_OBJ_XRCD);
	return q->xrcd ? 0 : -EINVAL;
}

/* Looks up the objects a QP_CREATE names; all must be this client's. */
static int qp_refs(struct eng_req *r, const struct pv_ipc_qp_create *in,
		   struct eng_qp *q)
{
	if (in->qp_type == IBV_QPT_XRC_RECV)
		return qp_refs_xrc_recv(r, in, q);
	if (in->xrcd_handle)
		return -EINVAL;
	/* An XRC_SEND QP receives nothing (IBA 19.2.5): no SRQ. */
	if (in->qp_type == IBV_QPT_XRC_SEND && in->srq_handle)
		return -EINVAL;
	q->xrcd = NULL;
	q->pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
	q->send_cq = eng_obj_get(r->c, in->send_cq_handle, PV_OBJ_CQ);
	q->recv_cq = eng_obj_get(r->c, in->recv_cq_handle, PV_OBJ_CQ);
	q->srq = NULL;
	if (in->srq_handle) {
		q->srq = eng_obj_get(r->c, in->srq_handle, PV_OBJ_SRQ);
		if (!q->srq)
			return -EINVAL;
	}
	return q->pd && q->send_cq && q->recv_cq ? 0 : -EINVAL;
}

int eng_op_qp_create(struct eng_req *r)
{
	const struct pv_ipc_qp_create *in = r->in;
	struct pv_ipc_qp_create_resp *out = r->out;
	struct pv_ipc_dev_attr lim;
	struct pv_ipc_qp_cap cap = in->cap;
	struct eng_qp refs, *qp;
	int64_t qpn;
	int ret;

	ret = qp_refs(r, in, &refs);
	if (ret < 0)
		return ret;
	if (refs.srq || in->qp_type == IBV_QPT_XRC_SEND)
		cap.max_recv_wr = cap.max_recv_sge = 0;
	eng_dev_attr(r->c->dev, &lim);
	ret = eng_qp_cap_check(&cap, &lim, in->qp_type);
	if (ret < 0)
		return ret == -EINVAL ? eng_limit_hit(ret) : ret;
	qp = eng_obj_create(r, PV_OBJ_QP, sizeof(*qp), NULL, &ret);
	if (!qp)
		return ret;
	qpn = eng_idtab_alloc(&r->c->dev->qps, qp);
	if (qpn < 0) {
		eng_obj_destroy(r->e, &qp->o);
		return eng_limit_hit(-ENOMEM);
	}
	qp->qp_num = (uint32_t)qpn;
	eng_list_init(&qp->openers);
	qp->pd = refs.pd;
	qp->send_cq = refs.send_cq;
	qp->recv_cq = refs.recv_cq;
	qp->srq = refs.srq;
	qp->xrcd = refs.xrcd;
	if (qp->xrcd) {
		qp->xrcd->o.users++;
	} else {
		qp->pd->o.users++;
		qp->send_cq->o.users++;
		qp->recv_cq->o.users++;
	}
	if (qp->srq)
		qp->srq->o.users++;
	qp->o.release = qp_release;
	eng_qp_cap_grant(&cap, &lim);
	qp->init = *in;
	qp->init.cap = cap;
	memset(qp->init.reserved, 0, sizeof(qp->init.reserved));
	qp->state = IBV_QPS_RESET;
	qp->attr.cap = cap;
	memset(out, 0, sizeof(*out));
	out->handle = qp->o.handle;
	out->qp_num = qp->qp_num;
	out->cap = cap;
	r->out_len = sizeof(*out);
	return 0;
}

/* Copies the attributes attr_mask names into the QP's record. */
static void qp_apply(struct pv_ipc_qp_attr *s, const struct pv_ipc_qp_attr *a,
		     uint32_t m)
{
	if (m & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		s->en_sqd_async_notify = a->en_sqd_async_notify;
	if (m & IBV_QP_ACCESS_FLAGS)
		s->qp_access_flags = a->qp_access_flags;
	if (m & IBV_QP_PKEY_INDEX)
		s->pkey_index = a->pkey_index;
	if (m & IBV_QP_PORT)
		s->port_num = a->port_num;
	if (m & IBV_QP_QKEY)
		s->qkey = a->qkey;
	if (m & IBV_QP_AV)
		s->ah_attr = a->ah_attr;
	if (m & IBV_QP_PATH_MTU)
		s->path_mtu = a->path_mtu;
	if (m & IBV_QP_TIMEOUT)
		s->timeout = a->timeout;
	if (m & IBV_QP_RETRY_CNT)
		s->retry_cnt = a->retry_cnt;
	if (m & IBV_QP_RNR_RETRY)
		s->rnr_retry = a->rnr_retry;
	if (m & IBV_QP_RQ_PSN)
		s->rq_psn = a->rq_psn;
	if (m & IBV_QP_MAX_QP_RD_ATOMIC)
		s->max_rd_atomic = a->max_rd_atomic;
	if (m & IBV_QP_ALT_PATH) {
		s->alt_ah_attr = a->alt_ah_attr;
		s->alt_pkey_index = a->alt_pkey_index;
		s->alt_port_num = a->alt_port_num;
		s->alt_timeout = a->alt_timeout;
	}
	if (m & IBV_QP_MIN_RNR_TIMER)
		s->min_rnr_timer = a->min_rnr_timer;
	if (m & IBV_QP_SQ_PSN)
		s->sq_psn = a->sq_psn;
	if (m & IBV_QP_MAX_DEST_RD_ATOMIC)
		s->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (m & IBV_QP_PATH_MIG_STATE)
		s->path_mig_state = a->path_mig_state;
	if (m & IBV_QP_DEST_QPN)
		s->dest_qp_num = a->dest_qp_num;
	if (m & IBV_QP_RATE_LIMIT)
		s->rate_limit = a->rate_limit;
}

/* IBA 10.2.5 (C10-15): Q_Keys with the high bit set are "controlled",
 * for privileged consumers only; Linux refuses them in modify_qp without
 * CAP_NET_RAW.  Pod clients never qualify; admin connections do. */
static int qkey_check(struct eng_req *r, const struct eng_qp *qp,
		      const struct pv_ipc_qp_modify *in)
{
	static uint64_t warned_ns;
	uint64_t now;

	if (!(in->attr_mask & IBV_QP_QKEY) ||
	    !(in->attr.qkey & ENG_QKEY_CONTROLLED) || r->c->admin)
		return 0;
	eng_stat_inc(qkey_privileged_denied);
	now = eng_dp_now_ns();
	if (now - warned_ns >= 1000000000ull) {
		warned_ns = now;
		eng_warn("client %u: QP %u: controlled Q_Key 0x%08x refused "
			 "(privileged only, IBA 10.2.5)", r->c->id, qp->qp_num,
			 in->attr.qkey);
	}
	return -EPERM;
}

/* Any handle on a shared XRC_RECV QP modifies it (ibv_open_qp(3)). */
int eng_op_qp_modify(struct eng_req *r)
{
	const struct pv_ipc_qp_modify *in = r->in;
	struct eng_qp_open *op;
	struct eng_qp *qp = eng_qp_by_handle(r->c, in->qp_handle, &op);
	struct eng_qp_fsm_in f;
	uint32_t old_state;
	int ret;

	if (!qp)
		return -EINVAL;
	f = (struct eng_qp_fsm_in){
		.qp_type = qp->init.qp_type,
		.cur_state = qp->state,
		.attr_mask = in->attr_mask,
		.attr = &in->attr,
		.phys_port_cnt = 1,
		.pkey_tbl_len = 1,
		.gid_tbl_len = r->c->dev->gid_count,
		.max_qp_rd_atom = (uint32_t)eng_lim.max_init_rd_atom,
		.max_dest_rd_atom = (uint32_t)eng_lim.max_rd_atom,
	};
	ret = eng_qp_modify_check(&f);
	if (ret < 0)
		return ret;
	ret = qkey_check(r, qp, in);
	if (ret < 0)
		return ret;
	qp_apply(&qp->attr, &in->attr, in->attr_mask);
	old_state = qp->state;
	qp->state = eng_qp_next_state(&f);
	eng_dp_qp_modified(r->e, qp, old_state);
	eng_dbg("client %u: QP %u now in state %u", r->c->id, qp->qp_num,
		qp->state);
	return 0;
}

int eng_op_qp_query(struct eng_req *r)
{
	const struct pv_ipc_qp_modify *in = r->in;
	struct pv_ipc_qp_query_resp *out = r->out;
	struct eng_qp_open *op;
	struct eng_qp *qp = eng_qp_by_handle(r->c, in->qp_handle, &op);

	if (!qp)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->attr = qp->attr;
	out->attr.qp_state = qp->state;
	out->attr.cur_qp_state = qp->state;
	out->attr.cap = qp->init.cap;
	out->init = qp->init;
	/* The caller's own handle on the domain, never another client's. */
	if (qp->xrcd)
		out->init.xrcd_handle = op ? op->xrcd->o.handle
					   : qp->xrcd->o.handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_qp_destroy(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_qp *qp = eng_obj_get(r->c, in->handle, PV_OBJ_QP);
	struct eng_qp_open *op;

	/* An opener's handle goes alone (also one whose QP went with its
	 * device). */
	op = qp ? NULL : eng_obj_get(r->c, in->handle, ENG_OBJ_QP_OPEN);
	if (op)
		return eng_obj_destroy(r->e, &op->o);
	if (!qp)
		return -EINVAL;
	if (qp->o.users)
		return -EBUSY;
	if (eng_qp_hand_over(r->e, qp))
		return 0;
	return eng_obj_destroy(r->e, &qp->o);
}

static void srq_release(struct eng *e, struct eng_obj *o)
{
	struct eng_srq *srq = (struct eng_srq *)o;

	srq->pd->o.users--;
	if (srq->xrcd) {
		srq->xrcd->o.users--;
		srq->cq->o.users--;
		if (o->conn->dev)
			eng_idtab_free(&o->conn->dev->srqns, srq->srq_num);
	}
	eng_dp_srq_free(srq);
}

/* An XRC SRQ (IBV_SRQT_XRC): its domain and CQ, both this client's,
 * and a number from the device's table. */
static int srq_xrc_init(struct eng_req *r, const struct pv_ipc_srq *in,
			struct eng_srq *srq)
{
	struct eng_xrcd *x = eng_obj_get(r->c, in->xrcd_handle, PV_OBJ_XRCD);
	struct eng_cq *cq = eng_obj_get(r->c, in->cq_handle, PV_OBJ_CQ);
	int64_t n;

	if (!x || !cq)
		return -EINVAL;
	n = eng_idtab_alloc(&r->c->dev->srqns, srq);
	if (n < 0)
		return eng_limit_hit(-ENOMEM);
	srq->srq_num = (uint32_t)n;
	srq->xrcd = x;
	srq->cq = cq;
	x->o.users++;
	cq->o.users++;
	return 0;
}

static void srq_resp(struct eng_req *r, const struct eng_srq *srq)
{
	struct pv_ipc_srq_resp *out = r->out;

	out->handle = srq->o.handle;
	out->max_wr = srq->max_wr;
	out->max_sge = srq->max_sge;
	out->srq_limit = srq->srq_limit;
	out->srq_num = srq->srq_num;
	memset(out->reserved, 0, sizeof(out->reserved));
	r->out_len = sizeof(*out);
}

int eng_op_srq_create(struct eng_req *r)
{
	const struct pv_ipc_srq *in = r->in;
	struct eng_pd *pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
	struct eng_srq *srq;
	int ret;

	if (!pd || in->max_wr == 0 || in->attr_mask ||
	    !in->xrcd_handle != !in->cq_handle)
		return -EINVAL;
	if (in->max_wr > eng_lim.max_srq_wr || in->max_sge > eng_lim.max_sge)
		return eng_limit_hit(-EINVAL);
	srq = eng_obj_create(r, PV_OBJ_SRQ, sizeof(*srq), srq_release, &ret);
	if (!srq)
		return ret;
	srq->pd = pd;
	pd->o.users++;
	if (in->xrcd_handle) {
		ret = srq_xrc_init(r, in, srq);
		if (ret < 0) {
			eng_obj_destroy(r->e, &srq->o);
			return ret;
		}
	}
	srq->max_wr = in->max_wr;
	srq->max_sge = in->max_sge ? in->max_sge : 1;
	/* ibv_create_srq(3) ignores srq_limit: the SRQ starts unarmed. */
	srq->srq_limit = 0;
	srq_resp(r, srq);
	return 0;
}

int eng_op_srq_modify(struct eng_req *r)
{
	const struct pv_ipc_srq *in = r->in;
	struct eng_srq *srq = eng_obj_get(r->c, in->srq_handle, PV_OBJ_SRQ);
	uint32_t max_wr;
	int ret;

	/* The domain and CQ are SRQ_CREATE's only. */
	if (!srq || (in->attr_mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) ||
	    in->xrcd_handle || in->cq_handle)
		return -EINVAL;
	max_wr = srq->max_wr;
	if (in->attr_mask & IBV_SRQ_MAX_WR) {
		if (in->max_wr == 0)
			return -EINVAL;
		if (in->max_wr > eng_lim.max_srq_wr)
			return eng_limit_hit(-EINVAL);
		max_wr = in->max_wr;
	}
	if ((in->attr_mask & IBV_SRQ_LIMIT) && in->srq_limit > max_wr)
		return -EINVAL;
	if (!(in->attr_mask & IBV_SRQ_LIMIT) && srq->srq_limit > max_wr)
		return -EINVAL;
	if (max_wr > srq->max_wr) {
		ret = eng_dp_srq_resize(srq, max_wr);
		if (ret < 0)
			return ret;
		eng_stat_inc(srq_resized);
	}
	srq->max_wr = max_wr;
	if (in->attr_mask & IBV_SRQ_LIMIT)
		srq->srq_limit = in->srq_limit;
	srq_resp(r, srq);
	return 0;
}

int eng_op_srq_query(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_srq *srq = eng_obj_get(r->c, in->handle, PV_OBJ_SRQ);

	if (!srq)
		return -EINVAL;
	srq_resp(r, srq);
	return 0;
}

int eng_op_srq_destroy(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_srq *srq = eng_obj_get(r->c, in->handle, PV_OBJ_SRQ);

	if (!srq)
		return -EINVAL;
	return eng_obj_destroy(r->e, &srq->o);
}
