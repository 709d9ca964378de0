/* SPDX-License-Identifier: MIT */
/*
 * One pod pair of the noisy-neighbour test (issue 8, finding 5): either
 * a victim that measures its RC ping-pong RTT, or a hostile pair that
 * floods the engine.  The test script runs a victim pair and a hostile
 * pair at once, on four pods of one engine.
 *
 *   pingpong SECS [MAX_STALL_MS]   A pings B (64-byte SEND/RECV) for SECS
 *       seconds; prints "victim: n=N median=US p99=US p99.9=US max=US"
 *       and, with MAX_STALL_MS, fails if any round trip took longer.
 *   write MB SECS [WINDOW]         A keeps WINDOW (default 16) RDMA WRITEs
 *       of MB MiB each in flight to B for SECS seconds (the local side is
 *       a 64 MiB buffer repeated in SGEs, so only B holds MB MiB).
 *   small SECS [NQP]               A keeps 256 64-byte RDMA WRITEs in
 *       flight on each of NQP (default 8) QPs for SECS seconds.
 *
 * With DPT_FLOOD_GO=PATH, write waits after set-up ("hostile: ready")
 * until PATH exists, so several pairs start at once, and also prints
 * "window: N MiB in SECS s": what completed before its SECS ran out
 * (tests/integration/datapath_pod_fair.sh compares pods' shares).
 */
#include "dpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PP_SIZE		64
#define TILE		(64ull << 20)
#define SMALL_DEPTH	256
#define MAX_QPS		64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *arg(struct dpt_side *s, int i, const char *def)
{
	return s->argc > i ? s->argv[i] : def;
}

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	size_t len;
	struct dpt_conn peer;
};

static void pair_up(struct dpt_side *s, struct pair *p, size_t len,
		    int depth)
{
	struct ibv_qp_cap cap = { .max_send_wr = (uint32_t)depth,
				  .max_recv_wr = 16, .max_send_sge = 16,
				  .max_recv_sge = 1 };
	struct dpt_conn me;

	p->len = len;
	p->cq = dpt_cq(s, 2 * depth + 32, NULL);
	p->qp = dpt_qp(s, IBV_QPT_RC, p->cq, NULL, &cap, 1);
	p->buf = dpt_buf(len);
	p->mr = dpt_mr(s, p->buf, len, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, p->qp, p->mr);
	dpt_swap(s, &me, &p->peer);
	dpt_connect(p->qp, s, &p->peer, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void pp_post(struct pair *p)
{
	dpt_post_recv(p->qp, 1, p->buf, PP_SIZE, p->mr->lkey);
}

/* A SEND of PP_SIZE bytes; 1 byte says "stop". */
static void pp_send(struct pair *p, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)p->buf + PP_SIZE, len,
			       p->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND };

	dpt_post_send(p->qp, &wr);
}

/* Waits for the RECV (and reaps SEND completions); its length or -1. */
static int pp_wait(struct pair *p, int ms)
{
	struct ibv_wc wc;

	for (;;) {
		if (dpt_poll(p->cq, &wc, 1, ms) != 1)
			return -1;
		CHECK(wc.status == IBV_WC_SUCCESS, "ping-pong: %s",
		      ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_RECV)
			return (int)wc.byte_len;
	}
}

static int pingpong(struct dpt_side *s)
{
	double secs = atof(arg(s, 1, "3"));
	long max_stall_ms = atol(arg(s, 2, "0"));
	size_t cap = 1 << 22, n = 0;
	uint64_t *rtt = NULL, end;
	struct pair p;
	int got;

	pair_up(s, &p, 2 * PP_SIZE, 16);
	pp_post(&p);
	dpt_sync(s);
	if (s->name == 'B') {
		while ((got = pp_wait(&p, 20000)) == PP_SIZE) {
			pp_post(&p);
			pp_send(&p, PP_SIZE);
		}
		CHECK(got == 1, "no ping in 20 s");
		dpt_sync(s);
		return 0;
	}
	rtt = calloc(cap, sizeof(*rtt));
	CHECK(rtt, "calloc");
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end && n < cap) {
		uint64_t t0 = now_ns();

		pp_post(&p);
		pp_send(&p, PP_SIZE);
		CHECK(pp_wait(&p, 20000) == PP_SIZE,
		      "no pong in 20 s after %zu round trips", n);
		rtt[n++] = now_ns() - t0;
		if (getenv("DPT_FLOOD_TRACE") && rtt[n - 1] > 10000000)
			printf("victim: %.1f ms stall at %.3f s\n",
			       rtt[n - 1] / 1e6, now_ns() / 1e9);
	}
	pp_send(&p, 1);
	dpt_sync(s);
	CHECK(n > 0, "no round trip");
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	printf("victim: n=%zu median=%.1f p99=%.1f p99.9=%.1f max=%.1f (us)\n",
	       n, rtt[n / 2] / 1e3, rtt[n * 99 / 100] / 1e3,
	       rtt[n * 999 / 1000] / 1e3, rtt[n - 1] / 1e3);
	if (max_stall_ms)
		CHECK(rtt[n - 1] < (uint64_t)max_stall_ms * 1000000u,
		      "longest round trip %.1f ms, bound %ld ms",
		      rtt[n - 1] / 1e6, max_stall_ms);
	free(rtt);
	return 0;
}

static void flood_write(struct dpt_side *s, struct pair *p, uint64_t bytes,
			uint64_t n)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr = { .wr_id = n, .sg_list = sge,
				  .opcode = IBV_WR_RDMA_WRITE };
	uint64_t left = bytes;

	while (left && wr.num_sge < 16) {
		uint64_t k = left < TILE ? left : TILE;

		sge[wr.num_sge++] = (struct ibv_sge){ (uintptr_t)p->buf,
						      (uint32_t)k,
						      p->mr->lkey };
		left -= k;
	}
	wr.wr.rdma.remote_addr = p->peer.addr;
	wr.wr.rdma.rkey = p->peer.rkey;
	dpt_post_send(p->qp, &wr);
}

/* DPT_FLOOD_GO: wait (up to 120 s) for the file that starts all pairs. */
static void wait_go(void)
{
	const char *go = getenv("DPT_FLOOD_GO");
	struct stat sb;

	if (!go)
		return;
	printf("hostile: ready\n");
	fflush(stdout);
	for (int i = 0; i < 120000 && stat(go, &sb) != 0; i++)
		usleep(1000);
	CHECK(stat(go, &sb) == 0, "%s never appeared", go);
}

static int write_flood(struct dpt_side *s)
{
	uint64_t mb = strtoull(arg(s, 1, "1024"), NULL, 10);
	double secs = atof(arg(s, 2, "5"));
	int window = atoi(arg(s, 3, "16")), nqp = atoi(arg(s, 4, "1"));
	uint64_t bytes = mb << 20, posted = 0, done = 0, in_time = 0, end;
	static struct pair p[MAX_QPS];
	struct ibv_wc wc;

	CHECK(mb > 0 && mb <= 1024, "MB 1..1024");
	CHECK(nqp > 0 && nqp <= MAX_QPS, "NQP 1..%d", MAX_QPS);
	/* A only needs one tile; B the whole target (shared by its QPs). */
	for (int i = 0; i < nqp; i++) {
		if (i && s->name == 'B') {
			struct dpt_conn me;
			struct ibv_qp_cap cap = { .max_send_wr = 16,
						  .max_recv_wr = 16,
						  .max_send_sge = 1,
						  .max_recv_sge = 1 };

			p[i] = p[0];
			p[i].cq = dpt_cq(s, 64, NULL);
			p[i].qp = dpt_qp(s, IBV_QPT_RC, p[i].cq, NULL, &cap, 1);
			dpt_conn_fill(s, &me, p[i].qp, p[i].mr);
			dpt_swap(s, &me, &p[i].peer);
			dpt_connect(p[i].qp, s, &p[i].peer, NULL);
			continue;
		}
		pair_up(s, &p[i], s->name == 'A' ? (bytes < TILE ? bytes :
				  TILE) : bytes, window);
	}
	dpt_sync(s);
	if (s->name == 'B') {
		dpt_sync(s);
		return 0;
	}
	wait_go();
	end = now_ns() + (uint64_t)(secs * 1e9);
	for (int i = 0; i < nqp; i++)
		for (int k = 0; k < window; k++, posted++)
			flood_write(s, &p[i], bytes, posted);
	printf("hostile: flooding\n");
	fflush(stdout);
	while (done < posted) {
		for (int i = 0; i < nqp; i++) {
			int got = ibv_poll_cq(p[i].cq, 1, &wc);

			CHECK(got >= 0, "poll");
			if (!got) {
				/* large writes: no need to burn a CPU */
				usleep(200);
				continue;
			}
			CHECK(wc.status == IBV_WC_SUCCESS, "write: %s",
			      ibv_wc_status_str(wc.status));
			done++;
			in_time += now_ns() < end;
			if (getenv("DPT_FLOOD_TRACE"))
				printf("hostile: qp %d done at %.3f s\n", i,
				       now_ns() / 1e9);
			if (now_ns() < end)
				flood_write(s, &p[i], bytes, posted++);
		}
	}
	printf("hostile: %llu writes of %llu MiB\n",
	       (unsigned long long)done, (unsigned long long)mb);
	if (getenv("DPT_FLOOD_GO"))
		printf("window: %llu MiB in %g s\n",
		       (unsigned long long)(in_time * mb), secs);
	dpt_sync(s);
	return 0;
}

static void small_post(struct pair *p, uint64_t n)
{
	struct ibv_sge sge = { (uintptr_t)p->buf, 64, p->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = n, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE };

	wr.wr.rdma.remote_addr = p->peer.addr;
	wr.wr.rdma.rkey = p->peer.rkey;
	dpt_post_send(p->qp, &wr);
}

static int small_flood(struct dpt_side *s)
{
	double secs = atof(arg(s, 1, "5"));
	int nqp = atoi(arg(s, 2, "8"));
	static struct pair p[MAX_QPS];
	uint64_t done = 0, end;
	struct ibv_wc wc[64];

	CHECK(nqp > 0 && nqp <= MAX_QPS, "NQP 1..%d", MAX_QPS);
	for (int i = 0; i < nqp; i++)
		pair_up(s, &p[i], 4096, SMALL_DEPTH);
	dpt_sync(s);
	if (s->name == 'B') {
		dpt_sync(s);
		return 0;
	}
	for (int i = 0; i < nqp; i++)
		for (int k = 0; k < SMALL_DEPTH; k++)
			small_post(&p[i], 0);
	printf("hostile: flooding\n");
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		for (int i = 0; i < nqp; i++) {
			int got = ibv_poll_cq(p[i].cq, 64, wc);

			CHECK(got >= 0, "poll");
			for (int k = 0; k < got; k++) {
				CHECK(wc[k].status == IBV_WC_SUCCESS,
				      "small write: %s",
				      ibv_wc_status_str(wc[k].status));
				small_post(&p[i], ++done);
			}
		}
	}
	printf("hostile: %llu small writes\n", (unsigned long long)done);
	dpt_sync(s);
	return 0;
}

static int side(struct dpt_side *s)
{
	const char *mode = arg(s, 0, "pingpong");

	if (!strcmp(mode, "write"))
		return write_flood(s);
	if (!strcmp(mode, "small"))
		return small_flood(s);
	return pingpong(s);
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side, side);
}
