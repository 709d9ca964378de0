/* SPDX-License-Identifier: MIT */
/*
 * Which rings have work, and when the engine may sleep.
 *
 * While there is work the engine rescans every mapped send queue after
 * each epoll batch and keeps polling (epoll with a zero timeout) for
 * dp_spin_us after the last work it found, yielding the CPU between
 * passes: on a 2-core node the applications it serves busy-poll their
 * CQs too, and must keep running.  Then it goes idle: it stores
 * engine_idle = 1 in every context page, issues a full fence and scans
 * once more (a producer publishes prod, fences, then reads engine_idle,
 * so either the scan sees the new WQE or the producer sees the flag and
 * rings the doorbell eventfd), and blocks in epoll until a doorbell, a
 * request or the earliest RNR/transport timer.  An idle engine makes no
 * system calls.
 */
#include <sched.h>
#include <stdlib.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_stats.h"

struct eng_dp_sched *eng_dp_sched_get(struct eng *e)
{
	if (!e->dp) {
		e->dp = calloc(1, sizeof(*e->dp));
		if (!e->dp)
			return NULL;
		eng_list_init(&e->dp->qps);
		eng_list_init(&e->dp->ctxs);
	}
	return e->dp;
}

void eng_dp_sched_fini(struct eng *e)
{
	free(e->dp);
	e->dp = NULL;
}

bool eng_dp_run(struct eng *e)
{
	struct eng_dp_sched *s = e->dp;
	struct eng_list *pos, *tmp;
	bool did = false;

	if (!s)
		return false;
	/* Requesters neither free QPs nor unlink them: safe iteration. */
	eng_list_for_each_safe(pos, tmp, &s->qps)
		did |= eng_dp_req_run(e, eng_container_of(pos,
					struct eng_dp_qp, link));
	if (did)
		s->last_work_ns = eng_dp_now_ns();
	return did;
}

static void set_idle(struct eng_dp_sched *s, uint32_t v)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &s->ctxs) {
		struct eng_dp_ctx *x = eng_container_of(pos, struct eng_dp_ctx,
							link);

		__atomic_store_n(&x->page->engine_idle, v, __ATOMIC_RELAXED);
	}
	s->idle_set = v != 0;
}

/* ns until the earliest armed timer, 0 if one is due, -1 if none. */
static int64_t next_timer(struct eng_dp_sched *s, uint64_t now)
{
	struct eng_list *pos, *tmp;
	uint64_t best = 0;

	eng_list_for_each_safe(pos, tmp, &s->qps) {
		struct eng_dp_qp *dq = eng_container_of(pos, struct eng_dp_qp,
							link);

		if (dq->timer_kind != ENG_DP_TIMER_NONE &&
		    (!best || dq->timer_at < best))
			best = dq->timer_at;
	}
	if (!best)
		return -1;
	return best > now ? (int64_t)(best - now) : 0;
}

int64_t eng_dp_wait_ns(struct eng *e)
{
	struct eng_dp_sched *s = e->dp;
	uint64_t now;

	if (!s || (eng_list_empty(&s->qps) && eng_list_empty(&s->ctxs)))
		return -1;
	now = eng_dp_now_ns();
	if (now - s->last_work_ns < eng_lim.dp_spin_us * 1000) {
		sched_yield();
		return 0;
	}
	set_idle(s, 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (eng_dp_run(e)) {
		set_idle(s, 0);
		return 0;
	}
	eng_stat_inc(dp_sleeps);
	return next_timer(s, now);
}

void eng_dp_woke(struct eng *e)
{
	if (e->dp && e->dp->idle_set)
		set_idle(e->dp, 0);
}
