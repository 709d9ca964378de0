/* SPDX-License-Identifier: MIT */
/*
 * Which rings have work, and when the engine may sleep.
 *
 * While there is work the engine rescans the mapped send queues, round
 * robin over the connections and within each over its QPs, within a
 * bounded budget per QP, per pod and per pass, after
 * each epoll batch and keeps polling (epoll with a zero timeout) for
 * dp_spin_us after the last work it found, yielding the CPU between
 * passes: on a 2-core node the applications it serves busy-poll their
 * CQs too, and must keep running.  Then it goes idle: it stores
 * engine_idle = 1 in every context page, issues a full fence and scans
 * once more (a producer publishes prod, fences, then reads engine_idle,
 * so either the scan sees the new WQE or the producer sees the flag and
 * rings the doorbell eventfd), and blocks in epoll until a doorbell, a
 * request or the earliest RNR/transport timer.  An idle engine makes no
 * system calls.  A packet for a QP from the wire counts as work too
 * (eng_dp_wire_work): across nodes the answer to it (the next post of a
 * ping-pong, the next window of a stream) comes within microseconds, and
 * a spinning engine sees it on the ring instead of through a doorbell
 * and a wake-up.
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

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_budget.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_stats.h"

#define ENG_DP_STARVED_NS	(300ull * 1000)
#define ENG_DP_BACKOFF_MIN_NS	(10ull * 1000 * 1000)
#define ENG_DP_BACKOFF_MAX_NS	(1000ull * 1000 * 1000)
/* Idle QPs of a connection looked at per pass while the engine spins
 * (a post to one is seen within nidle / this passes, or at once when the
 * engine sleeps: the scan before sleeping looks at all of them). */
#define ENG_DP_IDLE_PEEK	16

/* Bounded work (issue 8, finding 5): the budgets are engine limits
 * (eng_dp_budget.h). */

struct eng_dp_sched *eng_dp_sched_get(struct eng *e)
{
	if (!e->dp) {
		e->dp = calloc(1, sizeof(*e->dp));
		if (!e->dp)
			return NULL;
		eng_list_init(&e->dp->qps);
		eng_list_init(&e->dp->conns);
		eng_list_init(&e->dp->ctxs);
	}
	return e->dp;
}

void eng_dp_sched_fini(struct eng *e)
{
	free(e->dp);
	e->dp = NULL;
}

/* The pod's share of the pass so far (reset when a new pass starts).
 * Kept per device, the pod's, not per connection: a pod that opens more
 * connections gets no more of a pass. */
static void pass_share(struct eng_dp_sched *s, struct eng_dev *x)
{
	if (x->dp_pass_seq != s->pass_seq) {
		x->dp_pass_seq = s->pass_seq;
		x->dp_pass_bytes = 0;
		x->dp_pass_wqes = 0;
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static struct eng_dp_budget turn_budget(const struct eng_dp_budget *pass,
					const struct eng_dev *x)
{
	return eng_dp_turn_budget(pass, x->dp_pass_bytes, x->dp_pass_wqes);
}

/* One turn of dq within what the pass and its pod have left (b). */
static bool qp_turn(struct eng *e, struct eng_dp_qp *dq, struct eng_dev *x,
		    struct eng_dp_budget *pass, struct eng_dp_budget b)
{
	uint64_t b0 = b.bytes;
	uint32_t w0 = b.wqes;
	bool did = eng_dp_req_run(e, dq, &b);

	pass->bytes -= min_u64(pass->bytes, b0 - b.bytes);
	pass->wqes -= (uint32_t)min_u64(pass->wqes, w0 - b.wqes);
	x->dp_pass_bytes += b0 - b.bytes;
	x->dp_pass_wqes += w0 - b.wqes;
	return did;
}

/* A QP with nothing to do that only a new WQE or a state change can
 * change: same-node (no wire transport state), not in ERR (which has
 * WQEs to flush), no WQE in progress, no timer, its SQ empty.  Such a QP leaves its connection's round robin for its idle
 * list (issue 14: 1024 idle QPs used to be looked at in every pass). */
static bool qp_quiet(const struct eng_dp_qp *dq)
{
	return !dq->wrc && !dq->busy && dq->timer_kind == ENG_DP_TIMER_NONE &&
	       !dq->resp_timer_at && dq->qp->state != IBV_QPS_ERR &&
	       eng_dp_ring_avail(&dq->sq) == 0;
}

static void qp_to_idle(struct eng_conn *c, struct eng_dp_qp *dq)
{
	eng_list_del(&dq->rr);
	eng_list_add_tail(&c->dp_idle, &dq->rr);
	dq->idle = true;
	c->dp_nqps--;
	c->dp_nidle++;
}

static void qp_to_active(struct eng_conn *c, struct eng_dp_qp *dq)
{
	eng_list_del(&dq->rr);
	eng_list_add_tail(&c->dp_qps, &dq->rr);
	dq->idle = false;
	c->dp_nidle--;
	c->dp_nqps++;
}

/* Looks at up to max idle QPs of c (round robin; all of them when max
 * is UINT32_MAX) and puts back in the round robin those that have a WQE
 * or changed state.  One load of the SQ's prod each. */
static void idle_peek(struct eng_conn *c, uint32_t max)
{
	uint32_t n = c->dp_nidle < max ? c->dp_nidle : max;

	for (uint32_t i = 0; i < n; i++) {
		struct eng_dp_qp *dq = eng_container_of(c->dp_idle.next,
							struct eng_dp_qp, rr);

		if (!qp_quiet(dq)) {
			qp_to_active(c, dq);
			continue;
		}
		eng_list_del(&dq->rr);
		eng_list_add_tail(&c->dp_idle, &dq->rr);
	}
}

/* One connection's turn: a few of its idle QPs peeked at, then its
 * active QPs in round robin (each moves to the tail of its connection's
 * list as it takes its turn, or to the idle list) until its pod's share
 * or the pass is spent.  A pod that had its share costs O(1) per
 * connection, never a look at each of its QPs (issue 14: at 1024 QPs a
 * pass used to walk them all for 128 WQEs).  full: every idle QP is
 * peeked at (the scan before sleeping, which must see every ring).
 * Requesters neither free QPs nor unlink them. */
static bool conn_turn(struct eng *e, struct eng_dp_sched *s,
		      struct eng_conn *c, struct eng_dp_budget *pass,
		      bool full, bool *starved)
{
	struct eng_dev *x = c->dev;
	bool did = false;
	uint32_t n;

	if (!x)
		return false;	/* device deleted: nothing of it moves */
	pass_share(s, x);
	idle_peek(c, full ? UINT32_MAX : ENG_DP_IDLE_PEEK);
	n = c->dp_nqps;
	for (uint32_t i = 0; i < n; i++) {
		struct eng_dp_budget b = turn_budget(pass, x);
		struct eng_dp_qp *dq = eng_container_of(c->dp_qps.next,
							struct eng_dp_qp, rr);
		bool qd;

		if (!b.bytes || !b.wqes) {
			/* The pod (or the pass) had its share: the rest
			 * waits for the next pass, which comes at once. */
			*starved = true;
			break;
		}
		eng_list_del(&dq->rr);
		eng_list_add_tail(&c->dp_qps, &dq->rr);
		qd = qp_turn(e, dq, x, pass, b);
		if (!qd && qp_quiet(dq))
			qp_to_idle(c, dq);
		did |= qd;
	}
	return did;
}

void eng_dp_sched_add(struct eng_dp_sched *s, struct eng_dp_qp *dq)
{
	struct eng_conn *c = dq->qp->o.conn;

	eng_list_add_tail(&s->qps, &dq->link);
	if (!c->dp_nqps && !c->dp_nidle) {
		eng_list_init(&c->dp_qps);
		eng_list_init(&c->dp_idle);
		eng_list_add_tail(&s->conns, &c->dp_link);
		s->nconns++;
	}
	c->dp_nqps++;
	dq->idle = false;
	eng_list_add_tail(&c->dp_qps, &dq->rr);
}

void eng_dp_sched_del(struct eng_dp_sched *s, struct eng_dp_qp *dq)
{
	struct eng_conn *c = dq->qp->o.conn;

	eng_list_del(&dq->link);
	eng_list_del(&dq->rr);
	if (dq->idle)
		c->dp_nidle--;
	else
		c->dp_nqps--;
	if (!c->dp_nqps && !c->dp_nidle) {
		eng_list_del(&c->dp_link);
		s->nconns--;
	}
}

static bool run_pass(struct eng *e, bool full)
{
	struct eng_dp_sched *s = e->dp;
	struct eng_dp_budget pass = eng_dp_pass_budget();
	bool did = false, starved = false;
	uint32_t n;

	if (!s)
		return false;
	s->pass_seq++;
	/* Connections in round robin too, each to the tail as it takes its
	 * turn, so a pass cut short resumes with those it did not reach. */
	n = s->nconns;
	for (uint32_t i = 0; i < n && !eng_list_empty(&s->conns); i++) {
		struct eng_list *p = s->conns.next;

		if (!pass.bytes || !pass.wqes) {
			starved = true;
			break;
		}
		eng_list_del(p);
		eng_list_add_tail(&s->conns, p);
		did |= conn_turn(e, s, eng_container_of(p, struct eng_conn,
							dp_link),
				 &pass, full, &starved);
	}
	if (did || starved)
		s->last_work_ns = eng_dp_now_ns();
	return did || starved;
}

bool eng_dp_run(struct eng *e)
{
	return run_pass(e, false);
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
		/* A held request's deadline; not once its device is gone
		 * (nothing of the QP runs then, so it would never clear). */
		if (dq->resp_timer_at && dq->qp->o.conn->dev &&
		    (!best || dq->resp_timer_at < best))
			best = dq->resp_timer_at;
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
	if (run_pass(e, true)) {
		set_idle(s, 0);
		return 0;
	}
	eng_stat_inc(dp_sleeps);
	if (now < s->nospin_until_ns)
		eng_stat_inc(dp_sleeps_nospin);
	return next_timer(s, now);
}

void eng_dp_wire_work(struct eng *e)
{
	if (e->dp)
		e->dp->last_work_ns = eng_dp_now_ns();
}

void eng_dp_woke(struct eng *e)
{
	if (e->dp && e->dp->idle_set)
		set_idle(e->dp, 0);
}
