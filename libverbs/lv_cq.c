/* SPDX-License-Identifier: MIT */
/*
 * Completion queues and completion channels.  A completion event names the
 * CQ by the provider's handle; the context's handle table turns it back
 * into the app's ibv_cq.  ibv_destroy_cq waits until every event handed
 * out for the CQ has been acknowledged (ibv_get_cq_event(3)).  An
 * extended CQ may name a parent domain (IBV_CQ_INIT_ATTR_MASK_PD): the
 * provider takes its bookkeeping from the domain's allocator hooks, and
 * the domain counts the CQ as a user until it is destroyed.
 */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

#define pv_cq_of(c) ((struct pv_cq *)(c))
#define pv_ch_of(c) ((struct pv_channel *)(c))

LV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(
	struct ibv_context *context)
{
	if (context && lv_kern_priv(context))
		return lv_k_create_comp_channel(context);
	struct pv_context *ctx;
	struct pv_channel *ch;
	int ret;

	if (!context)
		return lv_null_errno(-EINVAL);
	ctx = pv_ctx(context);
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return lv_null_errno(-ENOMEM);
	ch->ibv.context = context;
	ch->ibv.fd = -1;
	ret = ctx->ops->create_channel(ctx, ch);
	if (ret < 0) {
		free(ch);
		return lv_null_errno(ret);
	}
	return &ch->ibv;
}

LV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	if (channel && lv_kern_priv(channel->context))
		return lv_k_destroy_comp_channel(channel);
	struct pv_context *ctx;
	int ret;

	if (!channel)
		return EINVAL;
	ctx = pv_ctx(channel->context);
	pthread_mutex_lock(&ctx->obj_lock);
	ret = channel->refcnt ? -EBUSY : 0;
	pthread_mutex_unlock(&ctx->obj_lock);
	if (ret < 0)
		return -ret;
	ret = ctx->ops->destroy_channel(ctx, pv_ch_of(channel));
	if (ret < 0)
		return -ret;
	free(channel);
	return 0;
}

static void channel_ref(struct pv_context *ctx, struct ibv_comp_channel *ch,
			int delta)
{
	if (!ch)
		return;
	pthread_mutex_lock(&ctx->obj_lock);
	ch->refcnt += delta;
	pthread_mutex_unlock(&ctx->obj_lock);
}

/* Allocates, creates and tracks a CQ; the public fields are set. */
static struct pv_cq *cq_create(struct pv_context *ctx, int cqe,
			       void *cq_context,
			       struct ibv_comp_channel *channel,
			       int comp_vector,
			       const struct ibv_cq_init_attr_ex *ex,
			       int *ret_err)
{
	struct pv_cq *cq = calloc(1, sizeof(*cq));
	int ret;

	if (!cq) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	cq->is_ex = ex != NULL;
	if (ex) {
		cq->wc_flags = ex->wc_flags;
		if (ex->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS)
			cq->create_flags = ex->flags;
		if (ex->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
			cq->pd = ex->parent_domain;
	}
	cq->ibv.context = &ctx->vctx.context;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	ret = ctx->ops->create_cq(ctx, cq, cqe, pv_ch_of(channel), comp_vector);
	if (ret < 0)
		goto err_free_cq;
	cq->ibv.handle = cq->handle;
	ret = lv_ctx_track(ctx, PV_KIND_CQ, cq->handle, cq);
	if (ret < 0)
		goto err_destroy_cq;
	channel_ref(ctx, channel, 1);
	if (cq->pd)
		atomic_fetch_add(&((struct pv_pd *)cq->pd)->users, 1);
	return cq;

err_destroy_cq:
	ctx->ops->destroy_cq(ctx, cq);
err_free_cq:
	pthread_cond_destroy(&cq->ibv.cond);
	pthread_mutex_destroy(&cq->ibv.mutex);
	free(cq);
	*ret_err = ret;
	return NULL;
}

LV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	if (context && lv_kern_priv(context))
		return lv_k_create_cq(context, cqe, cq_context, channel,
				      comp_vector);
	struct pv_cq *cq;
	int err;

	if (!context || cqe <= 0)
		return lv_null_errno(-EINVAL);
	if (channel && channel->context != context)
		return lv_null_errno(-EINVAL);
	cq = cq_create(pv_ctx(context), cqe, cq_context, channel, comp_vector,
		       NULL, &err);
	return cq ? &cq->ibv : lv_null_errno(err);
}

struct ibv_cq_ex *lv_create_cq_ex(struct ibv_context *c,
				  struct ibv_cq_init_attr_ex *attr)
{
	const uint32_t known = IBV_CQ_INIT_ATTR_MASK_FLAGS |
			       IBV_CQ_INIT_ATTR_MASK_PD;
	struct pv_pd *pdom;
	struct pv_cq *cq;
	int err;

	if (!attr || attr->cqe == 0)
		return lv_null_errno(-EINVAL);
	if (attr->comp_mask & ~known)
		return lv_null_errno(-EINVAL);
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return lv_null_errno(-EOPNOTSUPP);
	/* Only a parent domain of this context: a plain PD has no hooks
	 * to give, and none of another context's may be used. */
	pdom = (struct pv_pd *)attr->parent_domain;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!pdom || !pdom->inner || pdom->ibv.context != c))
		return lv_null_errno(-EINVAL);
	if (attr->channel && attr->channel->context != c)
		return lv_null_errno(-EINVAL);
	cq = cq_create(pv_ctx(c), (int)attr->cqe, attr->cq_context,
		       attr->channel, (int)attr->comp_vector, attr, &err);
	if (!cq)
		return lv_null_errno(err);
	/* A provider without extended polling leaves them to the core. */
	if (!cq->ex.start_poll)
		lv_cq_ex_init_poll(cq);
	return &cq->ex;
}

LV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (cq && lv_kern_priv(cq->context))
		return lv_k_resize_cq(cq, cqe);
	struct pv_context *ctx;

	if (!cq || cqe <= 0)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(cq->context);
	return lv_errno(ctx->ops->resize_cq(ctx, pv_cq_of(cq), cqe));
}

LV_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	if (cq && lv_kern_priv(cq->context))
		return lv_k_destroy_cq(cq);
	struct pv_cq *pcq = pv_cq_of(cq);
	struct ibv_comp_channel *channel;
	uint32_t comps, asyncs;
	struct pv_context *ctx;
	int ret;

	if (!cq)
		return lv_errno(-EINVAL);
	ctx = pv_ctx(cq->context);
	channel = cq->channel;
	/* Stop mapping events to it first; if the provider refuses (the CQ
	 * is still in use), put it back. */
	lv_ctx_untrack(ctx, PV_KIND_CQ, pcq->handle);
	ret = ctx->ops->destroy_cq(ctx, pcq);
	if (ret < 0) {
		lv_ctx_track(ctx, PV_KIND_CQ, pcq->handle, pcq);
		return lv_errno(ret);
	}
	pthread_mutex_lock(&ctx->obj_lock);
	comps = pcq->comp_delivered;
	asyncs = pcq->async_delivered;
	pthread_mutex_unlock(&ctx->obj_lock);
	channel_ref(ctx, channel, -1);
	if (pcq->pd)
		atomic_fetch_sub(&((struct pv_pd *)pcq->pd)->users, 1);

	pthread_mutex_lock(&cq->mutex);
	while (cq->comp_events_completed != comps ||
	       cq->async_events_completed != asyncs)
		pthread_cond_wait(&cq->cond, &cq->mutex);
	pthread_mutex_unlock(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	pthread_mutex_destroy(&cq->mutex);
	free(pcq);
	return 0;
}

LV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	if (channel && cq && cq_context && lv_kern_priv(channel->context))
		return lv_k_get_cq_event(channel, cq, cq_context);
	struct pv_context *ctx;
	struct pv_cq *pcq;
	uint32_t handle;
	int ret;

	if (!channel || !cq || !cq_context)
		return lv_minus1(-EINVAL);
	ctx = pv_ctx(channel->context);
	for (;;) {
		ret = ctx->ops->read_cq_event(ctx, pv_ch_of(channel), &handle);
		if (ret < 0)
			return lv_minus1(ret);
		pthread_mutex_lock(&ctx->obj_lock);
		pcq = lv_htable_lookup(&ctx->handles, PV_KIND_CQ, handle);
		if (pcq)
			pcq->comp_delivered++;
		pthread_mutex_unlock(&ctx->obj_lock);
		/* An event for a CQ destroyed meanwhile is dropped. */
		if (pcq)
			break;
	}
	*cq = &pcq->ibv;
	*cq_context = pcq->ibv.cq_context;
	return 0;
}

LV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (!cq || !nevents)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
