/* SPDX-License-Identifier: MIT */
/* Shared receive queues (basic type only).  One made on a parent domain
 * takes its provider bookkeeping from the domain's hooks, and the domain
 * counts it until it is destroyed (dealloc meanwhile: EBUSY). */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

#define pv_srq_of(s) ((struct pv_srq *)(s))

LV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *init_attr)
{
	if (pd && lv_kern_priv(pd->context))
		return lv_k_create_srq(pd, init_attr);
	struct pv_context *ctx;
	struct pv_srq *srq;
	int ret;

	if (!pd || !init_attr)
		return lv_null_errno(-EINVAL);
	ctx = pv_ctx(pd->context);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return lv_null_errno(-ENOMEM);
	srq->ibv.context = pd->context;
	srq->ibv.srq_context = init_attr->srq_context;
	srq->ibv.pd = pd;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	ret = ctx->ops->create_srq(ctx, srq, &init_attr->attr);
	if (ret < 0)
		goto err_free_srq;
	srq->ibv.handle = srq->handle;
	ret = lv_ctx_track(ctx, PV_KIND_SRQ, srq->handle, srq);
	if (ret < 0)
		goto err_destroy_srq;
	if (((struct pv_pd *)pd)->inner)
		atomic_fetch_add(&((struct pv_pd *)pd)->users, 1);
	return &srq->ibv;

err_destroy_srq:
	ctx->ops->destroy_srq(ctx, srq);
err_free_srq:
	pthread_cond_destroy(&srq->ibv.cond);
	pthread_mutex_destroy(&srq->ibv.mutex);
	free(srq);
	return lv_null_errno(ret);
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
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	free(psrq);
	return 0;
}
