/* SPDX-License-Identifier: MIT */
/*
 * A hostile pod races the engine on its own receive ring (issue 8,
 * finding 1).  B (the attacker) owns its RQ ring's memory, so it reaches
 * the ring through the provider's private structs and, while A (an honest
 * peer) SENDs to it, keeps rewriting the WQE at the ring's head:
 *
 *   even rounds: num_sge flips between the granted max_recv_sge (which
 *     passes the engine's check) and 0xffff, and every 16-byte unit of
 *     the ring is a valid one-byte SGE, so an engine that re-reads
 *     num_sge after its check keeps collecting segments past its array;
 *   odd rounds: num_sge stays 1 and sge[0].addr flips between the MR's
 *     start and a canary just below it, so an engine that reads addr
 *     twice (bounds check, then use) writes outside the MR.
 *
 * A QP that the engine declares fatal (or in error) ends a round; the
 * pair makes fresh QPs and goes on for SECS seconds (first argument,
 * default 10).  Then a clean ping-pong must work, B's canaries around
 * the MR must be intact, and A reports rounds and outcomes.  If the
 * engine dies, A's next completion never comes and A fails.
 */
#include "dpt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libverbs/pv_provider.h"
#include "providers/soft/provider/soft_dp.h"

#define MSG		4096u		/* bytes per SEND */
#define CANARY		2048u		/* bytes guarded on each side */
#define MAX_RSGE	32u		/* the engine's default max_sge cap */
#define NREC		48u		/* receives posted per round */
#define SENDS		40u		/* SENDs per round at most */
#define CANARY_BYTE	0xc5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

struct attack {
	struct soft_ring *rq;
	uint64_t mr_start;
	uint32_t lkey;
	int mode;			/* 0: num_sge, 1: sge addr */
	atomic_bool stop;
	pthread_t th;
};

/* The ring as an array of 16-byte units, every one a valid 1-byte SGE;
 * a WQE header read as a unit is {wr_id = addr, num_sge = 1, lkey}. */
static void ring_pattern(struct attack *a)
{
	struct pv_wqe_sge u = { a->mr_start, 1, a->lkey };
	size_t bytes = (size_t)a->rq->num_entries * a->rq->entry_size;

	for (size_t off = 0; off + sizeof(u) <= bytes; off += sizeof(u))
		memcpy(a->rq->entries + off, &u, sizeof(u));
}

static void *flipper(void *arg)
{
	struct attack *a = arg;
	unsigned seed = (unsigned)now_ns();

	while (!atomic_load(&a->stop)) {
		for (uint32_t slot = 0; slot < 4; slot++) {
			char *e = a->rq->entries + (size_t)slot *
				  a->rq->entry_size;
			volatile struct pv_recv_wqe *w = (void *)e;
			volatile struct pv_wqe_sge *sge = (void *)(e + 16);

			if (a->mode == 0) {
				/* legal at the check, huge while it loops */
				w->num_sge = MAX_RSGE;
				spin_ns(100 + rand_r(&seed) % 2000);
				w->num_sge = 0xffff;
				spin_ns(5000 + rand_r(&seed) % 30000);
			} else {
				sge->addr = a->mr_start;
				spin_ns(rand_r(&seed) % 200);
				sge->addr = a->mr_start - CANARY / 2;
				spin_ns(rand_r(&seed) % 200);
			}
		}
	}
	return NULL;
}

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *big;		/* canary | MR | canary */
	uint8_t *buf;		/* the MR */
	struct dpt_conn peer;
};

static void round_setup(struct dpt_side *s, struct ends *e)
{
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64,
				  .max_send_sge = 1,
				  .max_recv_sge = MAX_RSGE };
	struct dpt_qp_opts o = { .timeout = 8, .retry_cnt = 1,
				 .rnr_retry = 0xff };
	struct dpt_conn me;

	e->cq = dpt_cq(s, 256, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, &cap, 1);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, &o);
}

static void round_end(struct ends *e)
{
	CHECK(ibv_destroy_qp(e->qp) == 0, "destroy qp");
	CHECK(ibv_destroy_cq(e->cq) == 0, "destroy cq");
}

static void mem_setup(struct dpt_side *s, struct ends *e)
{
	e->big = dpt_buf(CANARY + MSG + CANARY);
	memset(e->big, CANARY_BYTE, CANARY + MSG + CANARY);
	e->buf = e->big + CANARY;
	e->mr = dpt_mr(s, e->buf, MSG, DPT_ACCESS_ALL);
}

static size_t canary_damage(const struct ends *e)
{
	size_t bad = 0;

	for (uint32_t i = 0; i < CANARY; i++)
		bad += (e->big[i] != CANARY_BYTE) +
		       (e->buf[MSG + i] != CANARY_BYTE);
	return bad;
}

/* A: sends until an error or SENDS done; returns the first bad status
 * or IBV_WC_SUCCESS. */
static int a_round(struct ends *e)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, MSG, e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct ibv_wc wc;

	for (uint32_t i = 0; i < SENDS; i++) {
		wr.wr_id = i;
		dpt_post_send(e->qp, &wr);
		CHECK(dpt_poll(e->cq, &wc, 1, 5000) == 1,
		      "no completion for SEND %u in 5 s: the engine is dead "
		      "or stuck", i);
		if (wc.status != IBV_WC_SUCCESS)
			return wc.status;
	}
	return IBV_WC_SUCCESS;
}

static void ping_pong(struct dpt_side *s, struct ends *e)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, MSG, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	dpt_post_recv(e->qp, 1, e->buf, MSG, e->mr->lkey);
	dpt_sync(s);
	if (s->name == 'A') {
		dpt_fill(e->buf, MSG, 11);
		dpt_post_send(e->qp, &wr);
		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "ping");
		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "pong");
		CHECK(dpt_check(e->buf, MSG, 12) < 0, "pong data");
	} else {
		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "ping");
		CHECK(dpt_check(e->buf, MSG, 11) < 0, "ping data");
		dpt_fill(e->buf, MSG, 12);
		dpt_post_send(e->qp, &wr);
		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "pong");
	}
}

static int side_a(struct dpt_side *s)
{
	double secs = s->argc > 0 ? atof(s->argv[0]) : 10, end;
	unsigned rounds = 0, ok = 0, errs[32] = { 0 };
	struct ends e;
	int more;

	mem_setup(s, &e);
	end = now_s() + secs;
	do {
		int st;

		round_setup(s, &e);
		dpt_sync(s);		/* B's flipper runs */
		st = a_round(&e);
		if (st == IBV_WC_SUCCESS)
			ok++;
		else
			errs[st & 31]++;
		rounds++;
		more = now_s() < end;
		dpt_send(s, &more, sizeof(more));
		dpt_sync(s);		/* B stopped its flipper */
		round_end(&e);
	} while (more);
	dpt_log(s, "%u attack rounds in %.0f s: %u clean, %u REM_OP_ERR, "
		"%u REM_INV_REQ_ERR, %u other", rounds, secs, ok,
		errs[IBV_WC_REM_OP_ERR], errs[IBV_WC_REM_INV_REQ_ERR],
		rounds - ok - errs[IBV_WC_REM_OP_ERR] -
		errs[IBV_WC_REM_INV_REQ_ERR]);
	round_setup(s, &e);
	ping_pong(s, &e);
	dpt_log(s, "fresh ping-pong after the attack: ok");
	dpt_sync(s);
	round_end(&e);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct attack a = { 0 };
	struct ends e;
	unsigned rounds = 0;
	int more;

	mem_setup(s, &e);
	do {
		struct pv_qp *pq;
		struct soft_qp_dp *d;

		round_setup(s, &e);
		pq = (struct pv_qp *)e.qp;
		d = pq->priv;
		CHECK(d && d->rq.hdr, "no RQ ring in the provider's QP");
		for (uint32_t i = 0; i < NREC; i++)
			dpt_post_recv(e.qp, i, e.buf, MSG, e.mr->lkey);
		a.rq = &d->rq;
		a.mr_start = (uintptr_t)e.buf;
		a.lkey = e.mr->lkey;
		a.mode = (int)(rounds & 1);
		if (a.mode == 0)
			ring_pattern(&a);
		atomic_store(&a.stop, false);
		CHECK(pthread_create(&a.th, NULL, flipper, &a) == 0,
		      "pthread_create");
		dpt_sync(s);
		dpt_recv(s, &more, sizeof(more));
		atomic_store(&a.stop, true);
		pthread_join(a.th, NULL);
		dpt_sync(s);
		round_end(&e);
		rounds++;
	} while (more);
	CHECK(canary_damage(&e) == 0, "%zu canary bytes around the MR "
	      "overwritten: the engine wrote outside the MR",
	      canary_damage(&e));
	dpt_log(s, "%u rounds; canaries around the MR intact", rounds);
	round_setup(s, &e);
	ping_pong(s, &e);
	dpt_sync(s);
	round_end(&e);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
