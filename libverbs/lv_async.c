/* SPDX-License-Identifier: MIT */
/*
 * Async events (ibv_get_async_event(3)): the provider reads one event from
 * the context's async_fd, the handle table names the object.  Every event
 * handed to the app is counted on its object so that destroying the object
 * waits for the matching ibv_ack_async_event.
 */
#include <stdbool.h>

#include "common/pv_usdt.h"
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

void lv_wait_events(pthread_mutex_t *m, pthread_cond_t *c,
		    const uint32_t *completed, uint32_t delivered)
{
	pthread_mutex_lock(m);
	while (*completed != delivered)
		pthread_cond_wait(c, m);
	pthread_mutex_unlock(m);
}

/* The object kind an event names (IBA 11.6.3); the ack side relies on it,
 * so the event type, not the sender's kind field, decides. */
static uint32_t kind_of_event(uint32_t type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return PV_KIND_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return PV_KIND_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return PV_KIND_SRQ;
	case IBV_EVENT_DEVICE_FATAL:
		return 0;
	default:
		return PV_KIND_PORT;
	}
}

/* Maps one event under obj_lock; false when its object is gone. */
static bool map_event(struct pv_context *ctx, const struct pv_async_desc *d,
		      struct ibv_async_event *ev)
{
	void *obj = NULL;
	uint32_t kind = kind_of_event(d->event_type);

	ev->event_type = d->event_type;
	switch (kind) {
	case PV_KIND_CQ: {
		struct pv_cq *cq = lv_htable_lookup(&ctx->handles, kind,
						    d->handle);
		if (cq) {
			cq->async_delivered++;
			ev->element.cq = &cq->ibv;
		}
		obj = cq;
		break;
	}
	case PV_KIND_QP: {
		struct pv_qp *qp = lv_htable_lookup(&ctx->handles, kind,
						    d->handle);
		if (qp) {
			qp->async_delivered++;
			ev->element.qp = &qp->ibv;
		}
		obj = qp;
		break;
	}
	case PV_KIND_SRQ: {
		struct pv_srq *srq = lv_htable_lookup(&ctx->handles, kind,
						      d->handle);
		if (srq) {
			srq->async_delivered++;
			ev->element.srq = &srq->ibv;
		}
		obj = srq;
		break;
	}
	case PV_KIND_PORT:
		ev->element.port_num = (int)d->handle;
		return true;
	default:
		/* Device-wide events (IBV_EVENT_DEVICE_FATAL) name nothing. */
		ev->element.port_num = 0;
		return true;
	}
	return obj != NULL;
}

LV_EXPORT int ibv_get_async_event(struct ibv_context *context,
				  struct ibv_async_event *event)
{
	if (context && event && lv_kern_priv(context))
		return lv_k_get_async_event(context, event);
	struct pv_context *ctx;

	if (!context || !event)
		return lv_minus1(-EINVAL);
	ctx = pv_ctx(context);
	for (;;) {
		struct pv_async_desc d = { 0 };
		bool ok;
		int ret;

		ret = ctx->ops->read_async_event(ctx, &d);
		if (ret < 0)
			return lv_minus1(ret);
		pthread_mutex_lock(&ctx->obj_lock);
		ok = map_event(ctx, &d, event);
		pthread_mutex_unlock(&ctx->obj_lock);
		if (ok) {
			PV_USDT(podverbs, async_event, d.event_type, d.handle);
			return 0;
		}
		/* The object was destroyed after the event was queued. */
	}
}

static void ack_one(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *counter)
{
	pthread_mutex_lock(m);
	(*counter)++;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

LV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	if (!event)
		return;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		ack_one(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		ack_one(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		ack_one(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	default:
		break;
	}
}
