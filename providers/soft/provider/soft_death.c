/* SPDX-License-Identifier: MIT */
/*
 * When the engine dies (its socket hung up: soft_ctx_check_alive, a
 * failed call, EOF on the async or a channel socket), nothing will ever
 * complete what the rings hold.  As an HCA does on a fatal error (IBA
 * 11.6.3.3; every QP goes to the error state, 10.3.1), the provider then
 * completes every outstanding work request itself with
 * IBV_WC_WR_FLUSH_ERR, writing the CQEs into the CQ rings in the
 * engine's place, once.  Pollers see them on their next ibv_poll_cq
 * (poll mode finds the death within SOFT_POLL_LIVENESS_SHIFT empty
 * polls); a thread blocked in ibv_get_cq_event gets one event per CQ of
 * its channel, then EIO; ibv_get_async_event reports
 * IBV_EVENT_DEVICE_FATAL; posts fail with EIO.
 *
 * Lock order: death->lock, then a queue's lock, then its CQ's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/provider/soft_provider.h"

struct soft_death_cq {
	struct pv_cq *cq;
	bool evented;			/* its post-mortem event was read */
};

struct soft_death {
	pthread_mutex_t lock;
	atomic_bool flushed;
	struct pv_qp **qps;
	uint32_t nqps, qps_cap;
	struct soft_death_cq *cqs;
	uint32_t ncqs, cqs_cap;
};

int soft_death_init(struct soft_ctx *sc)
{
	sc->death = calloc(1, sizeof(*sc->death));
	if (!sc->death)
		return -ENOMEM;
	pthread_mutex_init(&sc->death->lock, NULL);
	return 0;
}

void soft_death_fini(struct soft_ctx *sc)
{
	if (!sc->death)
		return;
	pthread_mutex_destroy(&sc->death->lock);
	free(sc->death->qps);
	free(sc->death->cqs);
	free(sc->death);
	sc->death = NULL;
}

static int grow(void **arr, uint32_t *cap, size_t esz)
{
	uint32_t n = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, n * esz);

	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int soft_death_track_qp(struct soft_ctx *sc, struct pv_qp *qp)
{
	struct soft_death *dd = sc->death;
	int ret = 0;

	if (!dd)
		return 0;
	pthread_mutex_lock(&dd->lock);
	if (dd->nqps == dd->qps_cap)
		ret = grow((void **)&dd->qps, &dd->qps_cap, sizeof(*dd->qps));
	if (!ret)
		dd->qps[dd->nqps++] = qp;
	pthread_mutex_unlock(&dd->lock);
	return ret;
}

void soft_death_untrack_qp(struct soft_ctx *sc, struct pv_qp *qp)
{
	struct soft_death *dd = sc->death;

	if (!dd)
		return;
	pthread_mutex_lock(&dd->lock);
	for (uint32_t i = 0; i < dd->nqps; i++)
		if (dd->qps[i] == qp) {
			dd->qps[i] = dd->qps[--dd->nqps];
			break;
		}
	pthread_mutex_unlock(&dd->lock);
}

int soft_death_track_cq(struct soft_ctx *sc, struct pv_cq *cq)
{
	struct soft_death *dd = sc->death;
	int ret = 0;

	if (!dd)
		return 0;
	pthread_mutex_lock(&dd->lock);
	if (dd->ncqs == dd->cqs_cap)
		ret = grow((void **)&dd->cqs, &dd->cqs_cap, sizeof(*dd->cqs));
	if (!ret)
		dd->cqs[dd->ncqs++] = (struct soft_death_cq){ .cq = cq };
	pthread_mutex_unlock(&dd->lock);
	return ret;
}

void soft_death_untrack_cq(struct soft_ctx *sc, struct pv_cq *cq)
{
	struct soft_death *dd = sc->death;

	if (!dd)
		return;
	pthread_mutex_lock(&dd->lock);
	for (uint32_t i = 0; i < dd->ncqs; i++)
		if (dd->cqs[i].cq == cq) {
			dd->cqs[i] = dd->cqs[--dd->ncqs];
			break;
		}
	pthread_mutex_unlock(&dd->lock);
}

/* Writes one CQE where the engine would have; false if the CQ is full
 * (the completion is lost, as on a CQ overrun). */
static bool cqe_push(struct ibv_cq *ibcq, const struct pv_cqe *cqe)
{
	struct soft_cq_dp *c = ibcq ? ((struct pv_cq *)ibcq)->priv : NULL;
	uint32_t prod;
	bool ok = false;

	if (!c || !c->ring.hdr)
		return false;
	pthread_spin_lock(&c->lock);
	prod = __atomic_load_n(&c->ring.hdr->prod, __ATOMIC_ACQUIRE);
	if (prod - c->ring.head < c->ring.num_entries) {
		memcpy(soft_ring_slot(&c->ring, prod), cqe, sizeof(*cqe));
		__atomic_store_n(&c->ring.hdr->prod, prod + 1,
				 __ATOMIC_RELEASE);
		ok = true;
	}
	pthread_spin_unlock(&c->lock);
	return ok;
}

/* Completes what the engine never consumed of one send or receive
 * ring: [its cons, our head). */
static void flush_ring(struct soft_ring *r, pthread_spinlock_t *lock,
		       struct ibv_cq *cq, uint32_t qp_num, bool send)
{
	uint32_t cons;

	pthread_spin_lock(lock);
	cons = __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);
	if (r->head - cons > r->num_entries)	/* a broken engine */
		cons = r->head - r->num_entries;
	for (; cons != r->head; cons++) {
		struct pv_cqe cqe = {
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = send ? IBV_WC_SEND : IBV_WC_RECV,
			.qp_num = qp_num,
		};

		/* wr_id leads both WQE layouts. */
		memcpy(&cqe.wr_id, soft_ring_slot(r, cons), sizeof(cqe.wr_id));
		cqe_push(cq, &cqe);
	}
	__atomic_store_n(&r->hdr->cons, cons, __ATOMIC_RELEASE);
	pthread_spin_unlock(lock);
}

void soft_death_flush(struct soft_ctx *sc)
{
	struct soft_death *dd = sc->death;

	if (!dd || !atomic_load_explicit(&sc->dead, memory_order_relaxed) ||
	    atomic_load_explicit(&dd->flushed, memory_order_acquire))
		return;
	pthread_mutex_lock(&dd->lock);
	if (!atomic_load(&dd->flushed)) {
		for (uint32_t i = 0; i < dd->nqps; i++) {
			struct pv_qp *qp = dd->qps[i];
			struct soft_qp_dp *d = qp->priv;

			/* An XRC_RECV QP has no CQ (and nothing posted). */
			if (!d || !qp->ibv.send_cq)
				continue;
			flush_ring(&d->sq, &d->sq_lock, qp->ibv.send_cq,
				   qp->ibv.qp_num, true);
			if (d->rq.hdr)
				flush_ring(&d->rq, &d->rq_lock,
					   qp->ibv.recv_cq, qp->ibv.qp_num,
					   false);
		}
		atomic_store_explicit(&dd->flushed, true,
				      memory_order_release);
	}
	pthread_mutex_unlock(&dd->lock);
}

int soft_death_cq_event(struct soft_ctx *sc, struct pv_channel *ch,
			uint32_t *ret_cq_handle)
{
	struct soft_death *dd = sc->death;
	int ret = -EIO;

	atomic_store(&sc->dead, true);
	if (!dd)
		return ret;
	soft_death_flush(sc);
	pthread_mutex_lock(&dd->lock);
	for (uint32_t i = 0; i < dd->ncqs; i++) {
		struct soft_death_cq *c = &dd->cqs[i];

		if (c->evented || c->cq->ibv.channel != &ch->ibv)
			continue;
		c->evented = true;
		*ret_cq_handle = c->cq->handle;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&dd->lock);
	return ret;
}
