/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs.  Attribute validation (the state machine, masks per
 * transition) is the provider's/device's job, as with a kernel driver; the
 * core translates, keeps qp->state and the event bookkeeping.
 */
#include <stdlib.h>
#include <string.h>

#include "common/pv_usdt.h"
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

#define pv_qp_of(q) ((struct pv_qp *)(q))

/* Init-attr masks we implement; the rest (RSS, TSO, ...) is refused
 * with EOPNOTSUPP.  The provider judges send_ops_flags. */
#define LV_QP_INIT_KNOWN (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | \
			  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | \
			  IBV_QP_INIT_ATTR_XRCD)

/* An XRC_RECV QP has its domain only (no PD, CQs, SRQ or queues). */
static int check_xrc_recv(struct ibv_context *c,
			  const struct ibv_qp_init_attr_ex *a)
{
	if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !a->xrcd ||
	    a->xrcd->context != c)
		return -EINVAL;
	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_XRCD |
				       IBV_QP_INIT_ATTR_PD))
		return -EOPNOTSUPP;
	if (a->send_cq || a->recv_cq || a->srq)
		return -EINVAL;
	return 0;
}

static int check_init_attr(struct pv_context *ctx,
			   const struct ibv_qp_init_attr_ex *a)
{
	struct ibv_context *c = &ctx->vctx.context;

	if (a->qp_type == IBV_QPT_XRC_RECV)
		return check_xrc_recv(c, a);
	if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd)
		return -EINVAL;
	if (a->comp_mask & ~(uint32_t)LV_QP_INIT_KNOWN)
		return -EOPNOTSUPP;
	if (a->comp_mask & IBV_QP_INIT_ATTR_XRCD)
		return -EINVAL;	/* XRC_RECV's only */
	if (a->qp_type == IBV_QPT_XRC_SEND) {
		if (a->srq || a->pd->context != c || !a->send_cq ||
		    a->send_cq->context != c)
			return -EINVAL;
		return (a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
		       a->create_flags ? -EOPNOTSUPP : 0;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a->create_flags)
		return -EOPNOTSUPP;
	if (a->pd->context != c || !a->send_cq || a->send_cq->context != c)
		return -EINVAL;
	if (a->qp_type != IBV_QPT_UD && a->qp_type != IBV_QPT_RAW_PACKET &&
	    (!a->recv_cq && !a->srq))
		return -EINVAL;
	return 0;
}

static struct pv_qp *qp_create(struct pv_context *ctx,
			       struct ibv_qp_init_attr_ex *a, int *ret_err)
{
	struct pv_qp *qp;
	bool xrc_recv;
	int ret = check_init_attr(ctx, a);

	if (ret < 0)
		goto err;
	ret = -ENOMEM;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		goto err;
	qp->ibv.context = &ctx->vctx.context;
	qp->ibv.qp_context = a->qp_context;
	xrc_recv = a->qp_type == IBV_QPT_XRC_RECV;
	qp->ibv.pd = xrc_recv ? NULL : a->pd;
	qp->xrcd = xrc_recv ? (struct pv_xrcd *)a->xrcd : NULL;
	qp->ibv.send_cq = a->send_cq;
	qp->ibv.recv_cq = a->recv_cq ? a->recv_cq : a->send_cq;
	qp->ibv.srq = a->srq;
	qp->ibv.qp_type = a->qp_type;
	qp->ibv.state = IBV_QPS_RESET;
	qp->is_ex = a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
	ret = ctx->ops->create_qp(ctx, qp, a);
	if (ret < 0)
		goto err_free_qp;
	qp->ibv.handle = qp->handle;
	ret = lv_ctx_track(ctx, PV_KIND_QP, qp->handle, qp);
	if (ret < 0)
		goto err_destroy_qp;
	/* A parent domain outlives its QPs: their bookkeeping may have
	 * come from its hooks, which destroy calls again. */
	if (qp->ibv.pd && ((struct pv_pd *)qp->ibv.pd)->inner)
		atomic_fetch_add(&((struct pv_pd *)qp->ibv.pd)->users, 1);
	if (qp->xrcd)
		atomic_fetch_add(&qp->xrcd->users, 1);
	PV_USDT(podverbs, create_qp, qp->ibv.qp_num, a->qp_type, 0);
	return qp;

err_destroy_qp:
	ctx->ops->destroy_qp(ctx, qp);
err_free_qp:
	pthread_cond_destroy(&qp->ibv.cond);
	pthread_mutex_destroy(&qp->ibv.mutex);
	free(qp);
err:
	PV_USDT(podverbs, create_qp, 0, a->qp_type, -ret);
	*ret_err = ret;
	return NULL;
}

LV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *qp_init_attr)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_create_qp(pd, qp_init_attr);
	struct ibv_qp_init_attr_ex ex;
	struct pv_qp *qp;
	int err;

	if (!pd || !qp_init_attr)
		return lv_null_errno(-EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = qp_create(pv_ctx(pd->context), &ex, &err);
	if (!qp)
		return lv_null_errno(err);
	qp_init_attr->cap = ex.cap;
	return &qp->ibv;
}

struct ibv_qp *lv_create_qp_ex(struct ibv_context *c,
			       struct ibv_qp_init_attr_ex *attr)
{
	struct pv_qp *qp;
	int err;

	if (!attr)
		return lv_null_errno(-EINVAL);
	qp = qp_create(pv_ctx(c), attr, &err);
	return qp ? &qp->ibv : lv_null_errno(err);
}

/* ibv_open_qp(3): another handle on an XRC_RECV QP of the domain, by
 * number; the number, the domain and the type are required, the type is
 * XRC_RECV's (EINVAL otherwise, as the kernel's ib_open_qp). */
#define LV_QP_OPEN_NEED (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | \
			 IBV_QP_OPEN_ATTR_TYPE)

struct ibv_qp *lv_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	struct pv_context *ctx = pv_ctx(c);
	struct pv_qp *qp;
	int ret;

	if (!a || (a->comp_mask & LV_QP_OPEN_NEED) != LV_QP_OPEN_NEED ||
	    a->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED || !a->xrcd ||
	    a->xrcd->context != c || a->qp_type != IBV_QPT_XRC_RECV)
		return lv_null_errno(-EINVAL);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return lv_null_errno(-ENOMEM);
	qp->ibv.context = c;
	if (a->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT)
		qp->ibv.qp_context = a->qp_context;
	qp->ibv.qp_type = IBV_QPT_XRC_RECV;
	qp->xrcd = (struct pv_xrcd *)a->xrcd;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
	ret = ctx->ops->open_qp(ctx, qp, a);
	if (ret < 0)
		goto err_free_qp;
	qp->ibv.handle = qp->handle;
	ret = lv_ctx_track(ctx, PV_KIND_QP, qp->handle, qp);
	if (ret < 0) {
		ctx->ops->destroy_qp(ctx, qp);
		goto err_free_qp;
	}
	atomic_fetch_add(&qp->xrcd->users, 1);
	return &qp->ibv;

err_free_qp:
	pthread_cond_destroy(&qp->ibv.cond);
	pthread_mutex_destroy(&qp->ibv.mutex);
	free(qp);
	return lv_null_errno(ret);
}

LV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct pv_qp *pqp = pv_qp_of(qp);

	return pqp && pqp->is_ex ? &pqp->ex : NULL;
}

LV_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask)
{
	if (qp && lv_kern_priv(qp->context))
		return lv_k_modify_qp(qp, attr, attr_mask);
	struct pv_context *ctx;
	int ret;

	if (!qp || !attr)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(qp->context);
	ret = ctx->ops->modify_qp(ctx, pv_qp_of(qp), attr, attr_mask);
	if (ret < 0)
		return lv_errno(ret);
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

LV_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	if (qp && lv_kern_priv(qp->context))
		return lv_k_query_qp(qp, attr, attr_mask, init_attr);
	struct ibv_qp_init_attr dummy;
	struct pv_context *ctx;
	int ret;

	if (!qp || !attr)
		return lv_errno(-EINVAL);
	if (!init_attr)
		init_attr = &dummy;
	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	ctx = pv_ctx(qp->context);
	ret = ctx->ops->query_qp(ctx, pv_qp_of(qp), attr, attr_mask, init_attr);
	if (ret < 0)
		return lv_errno(ret);
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->qp_type = qp->qp_type;
	qp->state = attr->qp_state;
	return 0;
}

LV_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (qp && lv_kern_priv(qp->context))
		return lv_k_destroy_qp(qp);
	struct pv_qp *pqp = pv_qp_of(qp);
	struct pv_context *ctx;
	uint32_t delivered;
	int ret;

	if (!qp)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(qp->context);
	lv_ctx_untrack(ctx, PV_KIND_QP, pqp->handle);
	ret = ctx->ops->destroy_qp(ctx, pqp);
	PV_USDT(podverbs, destroy_qp, qp->qp_num, -ret);
	if (ret < 0) {
		lv_ctx_track(ctx, PV_KIND_QP, pqp->handle, pqp);
		return lv_errno(ret);
	}
	pthread_mutex_lock(&ctx->obj_lock);
	delivered = pqp->async_delivered;
	pthread_mutex_unlock(&ctx->obj_lock);
	lv_wait_events(&qp->mutex, &qp->cond, &qp->events_completed, delivered);
	if (qp->pd && ((struct pv_pd *)qp->pd)->inner)
		atomic_fetch_sub(&((struct pv_pd *)qp->pd)->users, 1);
	if (pqp->xrcd)
		atomic_fetch_sub(&pqp->xrcd->users, 1);
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	free(pqp);
	return 0;
}

LV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (qp && lv_kern_priv(qp->context))
		return lv_k_attach_mcast(qp, gid, lid, true);
	struct pv_context *ctx;

	if (!qp || !gid)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(qp->context);
	return lv_errno(ctx->ops->attach_mcast(ctx, pv_qp_of(qp), gid, lid));
}

LV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (qp && lv_kern_priv(qp->context))
		return lv_k_attach_mcast(qp, gid, lid, false);
	struct pv_context *ctx;

	if (!qp || !gid)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(qp->context);
	return lv_errno(ctx->ops->detach_mcast(ctx, pv_qp_of(qp), gid, lid));
}

/* Conservative: 0 tells the app not to rely on the placement order of
 * data within a message. */
LV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					 enum ibv_wr_opcode op, uint32_t flags)
{
	return 0;
}

LV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return lv_errno(-EOPNOTSUPP);
}

LV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return lv_errno(-EOPNOTSUPP);
}
