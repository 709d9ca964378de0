/* SPDX-License-Identifier: MIT */
/*
 * Opening and closing a device context.  The context is a verbs_context
 * (abi_compat = extended marker) so the inline helpers of verbs.h find the
 * extended ops (query_port, query_device_ex, create_cq_ex, create_qp_ex)
 * through verbs_get_ctx_op, and the classic data-path ops in
 * ibv_context_ops point at the core's trampolines (lv_datapath.c) unless
 * the provider installs its own.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

void lv_ctx_init_ops(struct pv_context *ctx)
{
	struct verbs_context *v = &ctx->vctx;
	struct ibv_context_ops *o = &v->context.ops;

	o->poll_cq = lv_poll_cq;
	o->req_notify_cq = lv_req_notify_cq;
	o->post_send = lv_post_send;
	o->post_recv = lv_post_recv;
	o->post_srq_recv = lv_post_srq_recv;

	v->query_port = lv_query_port_ex;
	v->query_device_ex = lv_query_device_ex;
	v->create_cq_ex = lv_create_cq_ex;
	v->create_qp_ex = lv_create_qp_ex;
	v->open_qp = lv_open_qp;
	v->create_srq_ex = lv_create_srq_ex;
	v->get_srq_num = lv_get_srq_num;
	v->open_xrcd = lv_open_xrcd;
	v->close_xrcd = lv_close_xrcd;
	v->alloc_td = lv_alloc_td;
	v->dealloc_td = lv_dealloc_td;
	v->alloc_parent_domain = lv_alloc_parent_domain;
	/* Size of the part of verbs_context that precedes (and includes) the
	 * ibv_context; verbs_get_ctx_op compares slot offsets against it. */
	v->sz = sizeof(*v);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
}

int lv_ctx_track(struct pv_context *ctx, uint32_t kind, uint32_t handle,
		 void *obj)
{
	int ret;

	pthread_mutex_lock(&ctx->obj_lock);
	ret = lv_htable_insert(&ctx->handles, kind, handle, obj);
	pthread_mutex_unlock(&ctx->obj_lock);
	return ret;
}

void lv_ctx_untrack(struct pv_context *ctx, uint32_t kind, uint32_t handle)
{
	pthread_mutex_lock(&ctx->obj_lock);
	lv_htable_remove(&ctx->handles, kind, handle);
	pthread_mutex_unlock(&ctx->obj_lock);
}

LV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	if (lv_kern_is_dev(device))
		return verbs_open_device(device, NULL);
	struct pv_device *dev = (struct pv_device *)device;
	struct pv_context *ctx;
	int ret;

	if (!device)
		return lv_null_errno(-EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return lv_null_errno(-ENOMEM);
	ctx->dev = dev;
	ctx->prov = dev->prov;
	ctx->ops = lv_provider_ops(dev->prov);
	pthread_mutex_init(&ctx->obj_lock, NULL);
	pthread_mutex_init(&ctx->vctx.context.mutex, NULL);
	ctx->vctx.context.device = device;
	ctx->vctx.context.cmd_fd = -1;
	ctx->vctx.context.async_fd = -1;
	ctx->vctx.context.num_comp_vectors = 1;
	lv_ctx_init_ops(ctx);
	ret = ctx->ops->open_context(ctx);
	if (ret < 0)
		goto err_free_ctx;
	lv_device_ref(dev);
	return &ctx->vctx.context;

err_free_ctx:
	pthread_mutex_destroy(&ctx->obj_lock);
	pthread_mutex_destroy(&ctx->vctx.context.mutex);
	free(ctx);
	return lv_null_errno(ret);
}

/* Objects the app did not destroy die with the provider's context (the
 * engine frees a connection's objects when it closes); their memory here
 * is the app's leak, as with rdma-core. */
LV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	if (context && lv_kern_priv(context))
		return lv_kern_close(context);
	struct pv_context *ctx;

	if (!context)
		return -1;
	ctx = pv_ctx(context);
	ctx->ops->close_context(ctx);
	pthread_mutex_lock(&ctx->obj_lock);
	lv_htable_clear(&ctx->handles);
	pthread_mutex_unlock(&ctx->obj_lock);
	pthread_mutex_destroy(&ctx->obj_lock);
	pthread_mutex_destroy(&context->mutex);
	lv_device_unref(ctx->dev);
	free(ctx);
	return 0;
}
