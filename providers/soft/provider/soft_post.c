/* SPDX-License-Identifier: MIT */
/*
 * ibv_post_send / ibv_post_recv / ibv_post_srq_recv: encode each WR into
 * the next ring entry, publish them all with one release store of prod,
 * then ring the doorbell only if the engine sleeps (pv-soft-ring-abi.h: doorbells).  No system
 * call while the engine is awake.
 *
 * Errors follow ibv_post_send(3): the first bad WR stops the list and is
 * returned in *bad_wr; the WRs before it are posted.  QP state checks use
 * the state the application set (ibv_modify_qp); a QP the engine moved to
 * ERROR still accepts WRs, which it flushes (IBA 10.8.3.2).
 */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "common/pv_usdt.h"
#include "providers/soft/provider/soft_provider.h"

static struct soft_ctx *sc_of(struct ibv_context *c)
{
	return soft_ctx_of(pv_ctx(c));
}

int soft_sq_limits_of(struct pv_qp *qp, struct soft_sq_limits *lim)
{
	struct soft_qp_dp *d = qp->priv;

	if (!d)
		return -EOPNOTSUPP;
	lim->qp_type = qp->ibv.qp_type;
	lim->max_sge = d->max_send_sge;
	lim->max_inline = d->max_inline;
	lim->entry_size = d->sq.entry_size;
	return 0;
}

static int check_send_state(const struct ibv_qp *qp)
{
	switch (qp->state) {
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
		return 0;
	default:
		return -EINVAL;
	}
}

/* A ring that looks full may only be waiting for the engine to store
 * cons: it retires a WQE right around the completion the app just polled
 * (and on a busy 2-core node it can be preempted in between).  Before
 * failing with ENOMEM, give it a moment, yielding the CPU it needs. */
#define SOFT_FULL_WAIT_NS 20000000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reloads cons until the ring has room; false after the grace period. */
bool soft_ring_wait_space(const struct soft_ring *r, uint32_t *cons)
{
	uint64_t deadline = 0;

	for (;;) {
		*cons = __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);
		if (soft_ring_space(r->num_entries, r->head, *cons))
			return true;
		if (!deadline)
			deadline = now_ns() + SOFT_FULL_WAIT_NS;
		else if (now_ns() > deadline)
			return false;
		sched_yield();
	}
}

/* Publishes the entries up to r->head and wakes the engine if needed. */
static void publish(struct soft_ctx *sc, struct soft_ring *r)
{
	__atomic_store_n(&r->hdr->prod, r->head, __ATOMIC_RELEASE);
	soft_doorbell(sc);
}

int soft_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct pv_qp *qp = (struct pv_qp *)ibqp;
	struct soft_ctx *sc = sc_of(ibqp->context);
	struct soft_qp_dp *d = qp->priv;
	struct soft_sq_limits lim;
	uint32_t start, cons;
	int ret = 0;

	*bad_wr = NULL;
	if (soft_sq_limits_of(qp, &lim) < 0) {
		*bad_wr = wr;
		return EOPNOTSUPP;
	}
	if (atomic_load_explicit(&sc->dead, memory_order_relaxed)) {
		soft_death_flush(sc);
		*bad_wr = wr;
		return EIO;
	}
	ret = check_send_state(ibqp);
	if (ret < 0) {
		*bad_wr = wr;
		return -ret;
	}
	pthread_spin_lock(&d->sq_lock);
	/* Again under the lock: a flush after the engine's death (which
	 * takes this lock) must see every WQE published before it. */
	if (atomic_load_explicit(&sc->dead, memory_order_relaxed)) {
		pthread_spin_unlock(&d->sq_lock);
		*bad_wr = wr;
		return EIO;
	}
	start = d->sq.head;
	cons = __atomic_load_n(&d->sq.hdr->cons, __ATOMIC_ACQUIRE);
	for (; wr; wr = wr->next) {
		if (!soft_ring_space(d->sq.num_entries, d->sq.head, cons) &&
		    !soft_ring_wait_space(&d->sq, &cons)) {
			ret = -ENOMEM;
			break;
		}
		ret = soft_encode_send(&lim, wr,
				       soft_ring_slot(&d->sq, d->sq.head));
		if (ret < 0)
			break;
		d->sq.head++;
	}
	if (d->sq.head != start)
		publish(sc, &d->sq);
	/* Under the lock: the WRs this call posted, whatever other
	 * threads post. */
	PV_USDT(podverbs, post_send, ibqp->qp_num, d->sq.head - start, -ret);
	pthread_spin_unlock(&d->sq_lock);
	if (ret < 0)
		*bad_wr = wr;
	return -ret;
}

/* Shared by the QP's RQ and an SRQ (qpn 0, for the trace probe). */
static int post_recv_ring(struct soft_ctx *sc, struct soft_ring *r,
			  pthread_spinlock_t *lock, uint32_t max_sge,
			  uint32_t qpn, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	uint32_t start, cons;
	int ret = 0;

	pthread_spin_lock(lock);
	if (atomic_load_explicit(&sc->dead, memory_order_relaxed)) {
		pthread_spin_unlock(lock);	/* see soft_post_send */
		*bad_wr = wr;
		return EIO;
	}
	start = r->head;
	cons = __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);
	for (; wr; wr = wr->next) {
		if (!soft_ring_space(r->num_entries, r->head, cons) &&
		    !soft_ring_wait_space(r, &cons)) {
			ret = -ENOMEM;
			break;
		}
		/* max_sge bounds the entry: the ring was checked to hold
		 * that many SGEs when it was mapped. */
		ret = soft_encode_recv(max_sge, wr,
				       soft_ring_slot(r, r->head));
		if (ret < 0)
			break;
		r->head++;
	}
	if (r->head != start)
		publish(sc, r);
	PV_USDT(podverbs, post_recv, qpn, r->head - start, -ret);
	pthread_spin_unlock(lock);
	if (ret < 0)
		*bad_wr = wr;
	return -ret;
}

int soft_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct pv_qp *qp = (struct pv_qp *)ibqp;
	struct soft_ctx *sc = sc_of(ibqp->context);
	struct soft_qp_dp *d = qp->priv;

	*bad_wr = NULL;
	/* A QP on an SRQ has no receive queue of its own. */
	if (!d || !d->rq.hdr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return d ? EINVAL : EOPNOTSUPP;
	}
	if (atomic_load_explicit(&sc->dead, memory_order_relaxed)) {
		soft_death_flush(sc);
		*bad_wr = wr;
		return EIO;
	}
	return post_recv_ring(sc, &d->rq, &d->rq_lock, d->max_recv_sge,
			      ibqp->qp_num, wr, bad_wr);
}

int soft_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct pv_srq *srq = (struct pv_srq *)ibsrq;
	struct soft_ctx *sc = sc_of(ibsrq->context);
	struct soft_srq_dp *d = srq->priv;

	*bad_wr = NULL;
	if (!d) {
		*bad_wr = wr;
		return EOPNOTSUPP;
	}
	if (atomic_load_explicit(&sc->dead, memory_order_relaxed)) {
		soft_death_flush(sc);
		*bad_wr = wr;
		return EIO;
	}
	return post_recv_ring(sc, &d->ring, &d->lock, d->max_sge, 0, wr,
			      bad_wr);
}
