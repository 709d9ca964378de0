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
 *
 * Spinning only pays when a CPU is free for it.  When applications
 * busy-poll on every core, a yielding engine gets the CPU back only at
 * the next scheduler tick (up to 10 ms later), which is far worse than
 * sleeping and being woken by a doorbell.  So a yield that took longer
 * than ENG_DP_STARVED_NS suspends spinning, for 10 ms at first and
 * doubling up to 1 s while contention lasts.
 */
#include <sched.h>
#include <stdlib.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_stats.h"

#define ENG_DP_STARVED_NS	(300ull * 1000)
#define ENG_DP_BACKOFF_MIN_NS	(10ull * 1000 * 1000)
#define ENG_DP_BACKOFF_MAX_NS	(1000ull * 1000 * 1000)

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

/* Yields between spin passes and notices when the CPU is contended. */
static void spin_yield(struct eng_dp_sched *s, uint64_t now)
{
	uint64_t after;

	/* Contention long over: start again from the shortest backoff. */
	if (s->backoff_ns && now > s->nospin_until_ns + 4 * s->backoff_ns)
		s->backoff_ns = 0;
	sched_yield();
	after = eng_dp_now_ns();
	if (after - now < ENG_DP_STARVED_NS)
		return;
	s->backoff_ns = s->backoff_ns ? s->backoff_ns * 2
				      : ENG_DP_BACKOFF_MIN_NS;
	if (s->backoff_ns > ENG_DP_BACKOFF_MAX_NS)
		s->backoff_ns = ENG_DP_BACKOFF_MAX_NS;
	s->nospin_until_ns = after + s->backoff_ns;
	eng_stat_inc(dp_spin_backoffs);
}

int64_t eng_dp_wait_ns(struct eng *e)
{
	struct eng_dp_sched *s = e->dp;
	uint64_t now;

	if (!s || (eng_list_empty(&s->qps) && eng_list_empty(&s->ctxs)))
		return -1;
	now = eng_dp_now_ns();
	if (now - s->last_work_ns < eng_lim.dp_spin_us * 1000 &&
	    now >= s->nospin_until_ns) {
		spin_yield(s, now);
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
