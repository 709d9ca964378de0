/* SPDX-License-Identifier: MIT */
/*
 * A client killed mid-transfer: A keeps a window of RDMA WRITEs (and
 * SENDs into B's receives) in flight to B, then SIGKILLs B.  A's QP must
 * end in error (the first failed WR with IBV_WC_RETRY_EXC_ERR: the
 * destination QP is gone, as on hardware where the peer stops answering)
 * and A's process stays well.  With A's objects still open, A runs the
 * command given as its first extra argument, back in the namespace it
 * started in (the test script lists the engine's objects then), with
 * DPT_KILLED_PID set to B's pid.
 */
#include "dpt.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 16
#define CHUNK 65536

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e)
{
	struct dpt_qp_opts o = { .timeout = 10, .retry_cnt = 3 };
	struct dpt_conn me;

	e->cq = dpt_cq(s, 4 * WINDOW, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
	e->buf = dpt_buf(WINDOW * CHUNK);
	e->mr = dpt_mr(s, e->buf, WINDOW * CHUNK, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, &o);
}

static void post_write(struct ends *e, uint64_t n)
{
	int slot = (int)(n % WINDOW);
	struct ibv_sge sge = { (uintptr_t)e->buf + slot * CHUNK, CHUNK,
			       e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = n, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };

	wr.wr.rdma.remote_addr = e->peer.addr + (uint64_t)slot * CHUNK;
	wr.wr.rdma.rkey = e->peer.rkey;
	dpt_post_send(e->qp, &wr);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;
	uint64_t posted = 0, done = 0;
	long killed_at = 0, end;
	int first_err = -1;
	char pid[16];

	setup(s, &e);
	dpt_sync(s);
	for (; posted < WINDOW; posted++)
		post_write(&e, posted);
	end = now_ms() + 300;
	while (first_err < 0) {
		int n = dpt_poll(e.cq, &wc, 1, 20000);

		CHECK(n == 1, "no completion in 20 s (%llu posted, %llu done,"
		      " peer killed: %s)", (unsigned long long)posted,
		      (unsigned long long)done, killed_at ? "yes" : "no");
		if (wc.status != IBV_WC_SUCCESS) {
			first_err = wc.status;
			break;
		}
		done++;
		if (!killed_at && now_ms() >= end) {
			CHECK(done > WINDOW, "only %llu writes done before the "
			      "kill", (unsigned long long)done);
			CHECK(kill(s->peer_pid, SIGKILL) == 0, "kill B");
			killed_at = now_ms();
		}
		post_write(&e, posted++);
	}
	CHECK(killed_at, "error %s before the peer was killed",
	      ibv_wc_status_str(wc.status));
	snprintf(pid, sizeof(pid), "%d", (int)s->peer_pid);
	s->peer_pid = 0;	/* dpt_main: B's SIGKILL is expected */
	dpt_log(s, "%llu writes done; after the kill: %s in %ld ms",
		(unsigned long long)done, ibv_wc_status_str(wc.status),
		now_ms() - killed_at);
	CHECK(first_err == IBV_WC_RETRY_EXC_ERR,
	      "first error %s, expected %s", ibv_wc_status_str(first_err),
	      ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	CHECK(dpt_qp_state(e.qp) == IBV_QPS_ERR, "QP in %s, not ERR",
	      dpt_state_str(dpt_qp_state(e.qp)));
	/* the rest of the window is flushed */
	while (dpt_poll(e.cq, &wc, 1, 500) == 1)
		CHECK(wc.status == IBV_WC_WR_FLUSH_ERR ||
		      wc.status == IBV_WC_RETRY_EXC_ERR,
		      "after the error: %s", ibv_wc_status_str(wc.status));
	if (s->argc > 0) {
		int rc;

		/* the engine lists objects only for its own namespace */
		CHECK(setns(s->home_netns, CLONE_NEWNET) == 0, "setns home");
		setenv("DPT_KILLED_PID", pid, 1);
		rc = system(s->argv[0]);
		CHECK(rc == 0, "check command failed (%d): %s", rc, s->argv[0]);
	}
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;

	setup(s, &e);
	dpt_sync(s);
	for (;;)
		pause();	/* until A kills us */
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
