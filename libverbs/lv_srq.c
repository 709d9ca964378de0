/* SPDX-License-Identifier: MIT */
/* Shared receive queues: basic ones and XRC ones (ibv_create_srq_ex with
 * IBV_SRQT_XRC: a domain, a CQ and a PD; ibv_get_srq_num).  One made on
 * a parent domain takes its provider bookkeeping from the domain's
 * hooks, and the domain counts it until it is destroyed (dealloc
 * meanwhile: EBUSY); an XRC SRQ is counted by its domain likewise. */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

#define pv_srq_of(s) ((struct pv_srq *)(s))

static struct ibv_srq *srq_create(struct ibv_pd *pd, void *srq_context,
				  struct ibv_srq_attr *attr,
				  struct pv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct pv_context *ctx;
	struct pv_srq *srq;
	int ret;

	ctx = pv_ctx(pd->context);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return lv_null_errno(-ENOMEM);
	srq->ibv.context = pd->context;
	srq->ibv.srq_context = srq_context;
	srq->ibv.pd = pd;
	srq->xrcd = xrcd;
	srq->cq = cq;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	ret = ctx->ops->create_srq(ctx, srq, attr);
	if (ret < 0)
		goto err_free_srq;
	srq->ibv.handle = srq->handle;
	ret = lv_ctx_track(ctx, PV_KIND_SRQ, srq->handle, srq);
	if (ret < 0)
		goto err_destroy_srq;
	if (((struct pv_pd *)pd)->inner)
		atomic_fetch_add(&((struct pv_pd *)pd)->users, 1);
	if (xrcd)
		atomic_fetch_add(&xrcd->users, 1);
	return &srq->ibv;

err_destroy_srq:
	ctx->ops->destroy_srq(ctx, srq);
err_free_srq:
	pthread_cond_destroy(&srq->ibv.cond);
	pthread_mutex_destroy(&srq->ibv.mutex);
	free(srq);
	return lv_null_errno(ret);
}

LV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *init_attr)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_create_srq(pd, init_attr);
	if (!pd || !init_attr)
		return lv_null_errno(-EINVAL);
	return srq_create(pd, init_attr->srq_context, &init_attr->attr, NULL,
			  NULL);
}

#define LV_SRQ_KNOWN (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
		      IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

/* verbs.h sends basic SRQs to ibv_create_srq; here come XRC ones (and
 * requests with masks we lack: tag matching, EOPNOTSUPP). */
struct ibv_srq *lv_create_srq_ex(struct ibv_context *c,
				 struct ibv_srq_init_attr_ex *a)
{
	const uint32_t xrc = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	struct ibv_srq *srq;

	if (!a)
		return lv_null_errno(-EINVAL);
	if (a->comp_mask & ~(uint32_t)LV_SRQ_KNOWN)
		return lv_null_errno(-EOPNOTSUPP);
	if ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    a->srq_type != IBV_SRQT_XRC && a->srq_type != IBV_SRQT_BASIC)
		return lv_null_errno(-EOPNOTSUPP);
	if ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    a->srq_type == IBV_SRQT_BASIC) {
		if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !a->pd ||
		    a->pd->context != c)
			return lv_null_errno(-EINVAL);
		return srq_create(a->pd, a->srq_context, &a->attr, NULL, NULL);
	}
	if ((a->comp_mask & xrc) != xrc || !a->pd || !a->xrcd || !a->cq ||
	    a->pd->context != c || a->xrcd->context != c ||
	    a->cq->context != c)
		return lv_null_errno(-EINVAL);
	srq = srq_create(a->pd, a->srq_context, &a->attr,
			 (struct pv_xrcd *)a->xrcd, a->cq);
	return srq;
}

int lv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct pv_srq *s = pv_srq_of(srq);

	if (!srq || !srq_num || !s->xrcd)
		return EINVAL;
	*srq_num = s->srq_num;
	return 0;
}

LV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			     int srq_attr_mask)
{
	if (srq && lv_kern_priv(srq->context))
		return lv_k_modify_srq(srq, srq_attr, srq_attr_mask);
	struct pv_context *ctx;

	if (!srq || !srq_attr)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(srq->context);
	return lv_errno(ctx->ops->modify_srq(ctx, pv_srq_of(srq), srq_attr,
					   srq_attr_mask));
}

LV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	if (srq && lv_kern_priv(srq->context))
		return lv_k_query_srq(srq, srq_attr);
	struct pv_context *ctx;

	if (!srq || !srq_attr)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(srq->context);
	memset(srq_attr, 0, sizeof(*srq_attr));
	return lv_errno(ctx->ops->query_srq(ctx, pv_srq_of(srq), srq_attr));
}

LV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	if (srq && lv_kern_priv(srq->context))
		return lv_k_destroy_srq(srq);
	struct pv_srq *psrq = pv_srq_of(srq);
	struct pv_context *ctx;
	uint32_t delivered;
	int ret;

	if (!srq)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(srq->context);
	lv_ctx_untrack(ctx, PV_KIND_SRQ, psrq->handle);
	ret = ctx->ops->destroy_srq(ctx, psrq);
	if (ret < 0) {
		lv_ctx_track(ctx, PV_KIND_SRQ, psrq->handle, psrq);
		return lv_errno(ret);
	}
	pthread_mutex_lock(&ctx->obj_lock);
	delivered = psrq->async_delivered;
	pthread_mutex_unlock(&ctx->obj_lock);
	lv_wait_events(&srq->mutex, &srq->cond, &srq->events_completed,
		       delivered);
	if (((struct pv_pd *)srq->pd)->inner)
		atomic_fetch_sub(&((struct pv_pd *)srq->pd)->users, 1);
	if (psrq->xrcd)
		atomic_fetch_sub(&psrq->xrcd->users, 1);
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	free(psrq);
	return 0;
}
