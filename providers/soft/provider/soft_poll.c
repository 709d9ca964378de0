/* SPDX-License-Identifier: MIT */
/*
 * ibv_poll_cq from the CQ ring and ibv_req_notify_cq through its arm word
 * (pv-soft-ring-abi.h: completion events): neither makes a system call.  Polling keeps draining the
 * ring after the engine died, so the completions it wrote are not lost;
 * every 2^SOFT_POLL_LIVENESS_SHIFT empty polls it checks the engine is
 * still there, and once it is not, the outstanding work requests complete
 * as flushed (soft_death.c) and the async event reports the device gone,
 * as hardware does.  An empty poll yields the CPU (see below;
 * PODVERBS_POLL_YIELD=0 turns it off on machines with cores to spare).
 */
#include <errno.h>
#include <sched.h>

#include "common/pv_usdt.h"
#include "providers/soft/provider/soft_provider.h"

/* Empty polls between two checks of the engine connection (2^n). */
#define SOFT_POLL_LIVENESS_SHIFT 12

int soft_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct pv_cq *cq = (struct pv_cq *)ibcq;
	struct soft_cq_dp *d = cq->priv;
	uint32_t prod, head;
	int got = 0;

	if (!d)
		return -1;
	pthread_spin_lock(&d->lock);
	head = d->ring.head;
	prod = __atomic_load_n(&d->ring.hdr->prod, __ATOMIC_ACQUIRE);
	/* prod - head beyond the ring would be a broken engine; clamp so we
	 * never read an entry twice. */
	if (prod - head > d->ring.num_entries)
		prod = head + d->ring.num_entries;
	while (got < n && head != prod) {
		soft_cqe_to_wc(soft_ring_slot(&d->ring, head), &wc[got]);
		head++;
		got++;
	}
	if (got) {
		d->ring.head = head;
		__atomic_store_n(&d->ring.hdr->cons, head, __ATOMIC_RELEASE);
	}
	pthread_spin_unlock(&d->lock);
	PV_USDT(podverbs, poll_cq, cq->handle, got);
	if (got) {
		d->empty_polls = 0;
	} else {
		struct soft_ctx *sc = soft_ctx_of(pv_ctx(ibcq->context));

		soft_ctx_maybe_check_alive(sc, SOFT_POLL_LIVENESS_SHIFT);
		/* Dead: the outstanding WRs complete as flushed, once. */
		soft_death_flush(sc);
		/* Our "NIC" is a process sharing the CPUs: an app spinning
		 * on an empty CQ can hold the very core the engine needs to
		 * produce the completion (on 2 cores, two such apps starve
		 * it for a scheduler slice, milliseconds).  After a short
		 * spin, yield (~0.2 us when nothing else waits). */
		if (sc->poll_yield && ++d->empty_polls >= sc->poll_yield) {
			d->empty_polls = 0;
			sched_yield();
		}
	}
	return got;
}

int soft_arm_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct pv_cq *cq = (struct pv_cq *)ibcq;
	struct soft_cq_dp *d = cq->priv;

	if (!d)
		return EOPNOTSUPP;
	/* NEXT wins over SOLICITED if both are asked for before an event
	 * (IBA 11.4.2.2): never narrow an existing request. */
	if (solicited_only) {
		uint32_t none = PV_CQ_ARM_NONE;

		__atomic_compare_exchange_n(&d->ring.hdr->arm, &none,
					    PV_CQ_ARM_SOLICITED, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		__atomic_store_n(&d->ring.hdr->arm, PV_CQ_ARM_NEXT,
				 __ATOMIC_SEQ_CST);
	}
	return 0;
}
