/* SPDX-License-Identifier: MIT */
/*
 * The engine dies under two pods (issue 8, finding 8): A polls its CQ
 * (poll mode), B sleeps in ibv_get_cq_event (event mode).  Each has 8
 * receives posted and one RC SEND stuck in RNR (the peer's QP has no
 * receive, rnr_retry 7 = forever), so 9 work requests are outstanding.
 * A SIGKILLs the engine ($ENGINE_PID).  Within DEATH_MS each side must
 * see all 9 complete with IBV_WC_WR_FLUSH_ERR, IBV_EVENT_DEVICE_FATAL,
 * and ibv_post_send fail; each prints how long each took.
 *
 * A also has a second context that polls only through the extended CQ
 * API (ibv_start_poll / ibv_next_poll / ibv_end_poll), never
 * ibv_poll_cq: its own 9 work requests (a QP on an ibv_create_cq_ex CQ,
 * its SEND stuck on an extra QP of B's with no receive) must complete as
 * flushed within DEATH_MS as well.
 */
#include "dpt.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NRECV		8
#define OUTSTANDING	(NRECV + 1)
#define DEATH_MS	1000
#define GIVE_UP_MS	3000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct ends {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	char *buf;
};

/* Two RC pairs on one CQ; qp[busy] gets the receives and the stuck SEND
 * (A: pair 0, B: pair 1), so each side's SEND targets a QP with no
 * receive. */
static void setup(struct dpt_side *s, struct ends *e, int event_mode)
{
	struct dpt_conn me[2], peer[2];

	e->ch = event_mode ? ibv_create_comp_channel(s->ctx) : NULL;
	CHECK(!event_mode || e->ch, "ibv_create_comp_channel");
	e->cq = dpt_cq(s, 64, e->ch);
	e->buf = dpt_buf(4096);
	e->mr = dpt_mr(s, e->buf, 4096, DPT_ACCESS_ALL);
	for (int i = 0; i < 2; i++) {
		e->qp[i] = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
		dpt_conn_fill(s, &me[i], e->qp[i], e->mr);
		dpt_swap(s, &me[i], &peer[i]);
		dpt_connect(e->qp[i], s, &peer[i], NULL);
	}
}

static void load(struct ends *e, struct ibv_qp *qp)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 64, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 100, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };

	for (int i = 0; i < NRECV; i++)
		dpt_post_recv(qp, (uint64_t)i, e->buf + 512 + i * 64, 64,
			      e->mr->lkey);
	dpt_post_send(qp, &wr);
}

/* The extended-CQ side of A: its own context, one RC QP on an
 * extended CQ, connected to B's extra QP (which never gets a receive). */
struct ex_ends {
	struct dpt_side s;		/* A's, with this context and PD */
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ends e;			/* buf and mr for load() */
};

static void setup_ex(struct dpt_side *a, struct ex_ends *x)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 64, .wc_flags = IBV_WC_EX_WITH_QP_NUM };
	struct dpt_conn me, peer;

	x->s = *a;
	x->s.ctx = ibv_open_device(a->ctx->device);
	CHECK(x->s.ctx, "ibv_open_device for the extended-CQ context");
	x->s.pd = ibv_alloc_pd(x->s.ctx);
	CHECK(x->s.pd, "ibv_alloc_pd");
	x->cq = ibv_create_cq_ex(x->s.ctx, &attr);
	CHECK(x->cq, "ibv_create_cq_ex: %s", strerror(errno));
	memset(&x->e, 0, sizeof(x->e));
	x->e.buf = dpt_buf(4096);
	x->e.mr = dpt_mr(&x->s, x->e.buf, 4096, DPT_ACCESS_ALL);
	x->qp = dpt_qp(&x->s, IBV_QPT_RC, ibv_cq_ex_to_cq(x->cq), NULL,
		       NULL, 1);
	dpt_conn_fill(&x->s, &me, x->qp, x->e.mr);
	dpt_swap(&x->s, &me, &peer);
	dpt_connect(x->qp, &x->s, &peer, NULL);
}

/* B's end of that pair: a QP on B's CQ that gets nothing posted. */
static void setup_ex_peer(struct dpt_side *s, struct ends *e)
{
	struct dpt_conn me, peer;
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);

	dpt_conn_fill(s, &me, qp, e->mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
}

/* What one drain has seen: flushed completions and when the last came. */
struct drained {
	int flushed;
	double t_done;
};

static void drain_step(struct ibv_cq *cq, struct drained *d)
{
	struct ibv_wc wc[16];
	int n;

	if (d->flushed >= OUTSTANDING)
		return;
	n = ibv_poll_cq(cq, 16, wc);
	CHECK(n >= 0, "ibv_poll_cq failed after the engine died");
	for (int i = 0; i < n; i++) {
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR,
		      "completion status %s, not WR_FLUSH_ERR",
		      ibv_wc_status_str(wc[i].status));
		d->flushed++;
	}
	if (n)
		d->t_done = now_ms();
}

/* The same through ibv_start_poll / ibv_next_poll / ibv_end_poll only. */
static void drain_ex_step(struct ibv_cq_ex *cq, struct drained *d)
{
	struct ibv_poll_cq_attr attr = { 0 };
	int rc;

	if (d->flushed >= OUTSTANDING)
		return;
	rc = ibv_start_poll(cq, &attr);
	if (rc == ENOENT)
		return;
	CHECK(rc == 0, "ibv_start_poll failed after the engine died: %d", rc);
	do {
		CHECK(cq->status == IBV_WC_WR_FLUSH_ERR,
		      "extended CQ: completion status %s, not WR_FLUSH_ERR",
		      ibv_wc_status_str(cq->status));
		d->flushed++;
	} while (ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
	d->t_done = now_ms();
}

/* Polls until OUTSTANDING flushed completions arrived (or GIVE_UP_MS
 * from t0); returns how many. */
static int drain(struct ibv_cq *cq, double t0, double *t_done)
{
	struct drained d = { 0, t0 };

	while (d.flushed < OUTSTANDING && now_ms() - t0 < GIVE_UP_MS)
		drain_step(cq, &d);
	*t_done = now_ms();
	return d.flushed;
}

/* IBV_EVENT_DEVICE_FATAL within GIVE_UP_MS (other events of the device
 * are skipped); returns its time or -1. */
static double fatal_event(struct dpt_side *s)
{
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	double t0 = now_ms();

	for (;;) {
		int left = GIVE_UP_MS - (int)(now_ms() - t0);

		if (left <= 0 || poll(&p, 1, left) != 1)
			return -1;
		if (ibv_get_async_event(s->ctx, &ev))
			return -1;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return now_ms();
	}
}

static void post_fails(struct ends *e, struct ibv_qp *qp, const char *who)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 8, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	int rc = ibv_post_send(qp, &wr, &bad);

	CHECK(rc != 0, "%s: ibv_post_send succeeded on a dead device", who);
}

static void verdict(struct dpt_side *s, const char *mode, int flushed,
		    double t_flush, double t_fatal, double t0)
{
	dpt_log(s, "%s: %d/%d WRs flushed after %.1f ms; DEVICE_FATAL %s%.1f "
		"ms", mode, flushed, OUTSTANDING, t_flush - t0,
		t_fatal < 0 ? "never, waited " : "after ",
		t_fatal < 0 ? (double)GIVE_UP_MS : t_fatal - t0);
	CHECK(flushed == OUTSTANDING, "%s: %d of %d outstanding WRs flushed",
	      mode, flushed, OUTSTANDING);
	CHECK(t_flush - t0 <= DEATH_MS, "%s: flush took %.0f ms", mode,
	      t_flush - t0);
	CHECK(t_fatal >= 0 && t_fatal - t0 <= DEATH_MS,
	      "%s: no IBV_EVENT_DEVICE_FATAL within %d ms", mode, DEATH_MS);
}

static int side_a(struct dpt_side *s)
{
	const char *pid_s = getenv("ENGINE_PID");
	struct drained pd, xd;
	double t0, t_fatal;
	struct ex_ends x;
	struct ends e;

	CHECK(pid_s && atoi(pid_s) > 1, "ENGINE_PID not set");
	setup(s, &e, 0);
	setup_ex(s, &x);
	load(&e, e.qp[0]);
	load(&x.e, x.qp);
	dpt_sync(s);			/* B loaded too */
	usleep(100 * 1000);		/* the SENDs are in RNR by now */
	CHECK(ibv_poll_cq(e.cq, 1, (struct ibv_wc[1]){ 0 }) == 0,
	      "a completion before the engine died");
	CHECK(ibv_start_poll(x.cq, &(struct ibv_poll_cq_attr){ 0 }) == ENOENT,
	      "an extended-CQ completion before the engine died");
	t0 = now_ms();
	CHECK(kill(atoi(pid_s), SIGKILL) == 0, "kill engine: %s",
	      strerror(errno));
	dpt_send(s, &t0, sizeof(t0));
	/* Both at once: neither's deadline depends on the other. */
	pd = xd = (struct drained){ 0, t0 };
	t_fatal = -2;
	while ((pd.flushed < OUTSTANDING || xd.flushed < OUTSTANDING) &&
	       now_ms() - t0 < GIVE_UP_MS) {
		drain_step(e.cq, &pd);
		drain_ex_step(x.cq, &xd);
		if (pd.flushed == OUTSTANDING && t_fatal == -2)
			t_fatal = fatal_event(s);
	}
	if (pd.flushed < OUTSTANDING)
		pd.t_done = now_ms();
	if (xd.flushed < OUTSTANDING)
		xd.t_done = now_ms();
	if (t_fatal == -2)
		t_fatal = fatal_event(s);
	post_fails(&e, e.qp[0], "poll mode");
	verdict(s, "poll mode", pd.flushed, pd.t_done, t_fatal, t0);
	t_fatal = fatal_event(&x.s);
	post_fails(&x.e, x.qp, "extended CQ");
	verdict(s, "extended CQ", xd.flushed, xd.t_done, t_fatal, t0);
	dpt_sync(s);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	double t0, t_flush, t_fatal, t_ev;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct ends e;
	int flushed, rc;

	setup(s, &e, 1);
	setup_ex_peer(s, &e);
	load(&e, e.qp[1]);
	CHECK(ibv_req_notify_cq(e.cq, 0) == 0, "ibv_req_notify_cq");
	dpt_sync(s);
	rc = ibv_get_cq_event(e.ch, &ev_cq, &ev_ctx);
	t_ev = now_ms();
	dpt_recv(s, &t0, sizeof(t0));
	dpt_log(s, "event mode: ibv_get_cq_event returned %d after %.1f ms",
		rc, t_ev - t0);
	CHECK(rc == 0 && ev_cq == e.cq, "ibv_get_cq_event failed after the "
	      "engine died (%s)", strerror(errno));
	ibv_ack_cq_events(ev_cq, 1);
	flushed = drain(e.cq, t0, &t_flush);
	t_fatal = fatal_event(s);
	post_fails(&e, e.qp[1], "event mode");
	verdict(s, "event mode", flushed, t_flush, t_fatal, t0);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
