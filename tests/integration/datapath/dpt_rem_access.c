/* SPDX-License-Identifier: MIT */
/*
 * Remote access errors on RC, each on a fresh QP pair: a wrong rkey,
 * ranges past the end and before the start of the MR, an MR or a
 * responder QP without the right (write, read, atomic).  The requester
 * completes with IBV_WC_REM_ACCESS_ERR and its QP is in ERR
 * (ibv_query_qp); the target memory is untouched, not partly written.
 * The responder's QP gets IBV_EVENT_QP_ACCESS_ERR, the affiliated
 * asynchronous error of IBA 11.6.3.1, and is in ERR.
 */
#include "dpt.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>

#define BUF 8192
#define MR_OFF 2048
#define MR_LEN 4096

struct rcase {
	const char *name;
	enum ibv_wr_opcode op;
	int mr_access;		/* B's MR */
	int qp_access;		/* B's QP (-1: none) */
	uint32_t rkey_xor;
	int64_t off;		/* from the MR's start */
	uint32_t len;
};

#define LW IBV_ACCESS_LOCAL_WRITE
static const struct rcase cases[] = {
	{ "wrong rkey", IBV_WR_RDMA_WRITE, DPT_ACCESS_ALL, 0, 0x5a5a00, 0, 64 },
	{ "past the end", IBV_WR_RDMA_WRITE, DPT_ACCESS_ALL, 0, 0, MR_LEN - 8, 16 },
	{ "before the start", IBV_WR_RDMA_READ, DPT_ACCESS_ALL, 0, 0, -1, 16 },
	{ "read past the end", IBV_WR_RDMA_READ, DPT_ACCESS_ALL, 0, 0, 1, MR_LEN },
	{ "MR without REMOTE_WRITE", IBV_WR_RDMA_WRITE,
	  LW | IBV_ACCESS_REMOTE_READ, 0, 0, 0, 64 },
	{ "MR without REMOTE_READ", IBV_WR_RDMA_READ,
	  LW | IBV_ACCESS_REMOTE_WRITE, 0, 0, 0, 64 },
	{ "MR without REMOTE_ATOMIC", IBV_WR_ATOMIC_FETCH_AND_ADD,
	  LW | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, 0, 0, 0, 8 },
	{ "QP without REMOTE_WRITE", IBV_WR_RDMA_WRITE, DPT_ACCESS_ALL,
	  IBV_ACCESS_REMOTE_READ, 0, 0, 64 },
	{ "QP without remote rights", IBV_WR_RDMA_READ, DPT_ACCESS_ALL,
	  -1, 0, 0, 64 },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void pair_up(struct dpt_side *s, struct ends *e, int mr_access,
		    int mr_off, int mr_len, int qp_access)
{
	struct dpt_qp_opts o = { .access = qp_access, .timeout = 10,
				 .retry_cnt = 2 };
	struct dpt_conn me;

	e->cq = dpt_cq(s, 16, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
	e->mr = dpt_mr(s, e->buf + mr_off, (size_t)mr_len, mr_access);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, &o);
}

static void pair_down(struct ends *e)
{
	CHECK(ibv_destroy_qp(e->qp) == 0, "ibv_destroy_qp");
	CHECK(ibv_destroy_cq(e->cq) == 0, "ibv_destroy_cq");
	CHECK(ibv_dereg_mr(e->mr) == 0, "ibv_dereg_mr");
}

static void run_a(struct dpt_side *s, struct ends *e, const struct rcase *c)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = c->op,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;
	enum ibv_qp_state st;
	char what[96];

	pair_up(s, e, DPT_ACCESS_ALL, 0, BUF, 0);
	sge = (struct ibv_sge){ (uintptr_t)e->buf, c->len, e->mr->lkey };
	if (c->op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = e->peer.addr + (uint64_t)c->off;
		wr.wr.atomic.rkey = e->peer.rkey ^ c->rkey_xor;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = e->peer.addr + (uint64_t)c->off;
		wr.wr.rdma.rkey = e->peer.rkey ^ c->rkey_xor;
	}
	dpt_sync(s);
	dpt_post_send(e->qp, &wr);
	snprintf(what, sizeof(what), "%s", c->name);
	dpt_wc(e->cq, &wc, IBV_WC_REM_ACCESS_ERR, -1, what);
	st = dpt_qp_state(e->qp);
	CHECK(st == IBV_QPS_ERR, "%s: requester QP in %s, not ERR", c->name,
	      dpt_state_str(st));
	dpt_sync(s);
	pair_down(e);
	dpt_log(s, "%s: IBV_WC_REM_ACCESS_ERR, QP in ERR", c->name);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;

	e.buf = dpt_buf(BUF);
	for (int i = 0; i < NCASES; i++)
		run_a(s, &e, &cases[i]);
	return 0;
}

/* The responder's IBV_EVENT_QP_ACCESS_ERR on qp, within 2 s. */
static void access_err_event(struct dpt_side *s, struct ibv_qp *qp,
			     const char *what)
{
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	for (;;) {
		CHECK(poll(&p, 1, 2000) == 1, "%s: no async event on the "
		      "responder", what);
		CHECK(ibv_get_async_event(s->ctx, &ev) == 0,
		      "ibv_get_async_event");
		/* Port and GID events of the device are not this test's. */
		if (ev.event_type != IBV_EVENT_GID_CHANGE &&
		    ev.event_type != IBV_EVENT_PORT_ACTIVE &&
		    ev.event_type != IBV_EVENT_PORT_ERR)
			break;
		ibv_ack_async_event(&ev);
	}
	CHECK(ev.event_type == IBV_EVENT_QP_ACCESS_ERR && ev.element.qp == qp,
	      "%s: responder event %s, not IBV_EVENT_QP_ACCESS_ERR on its QP",
	      what, ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
}

static int side_b(struct dpt_side *s)
{
	struct ends e;

	e.buf = dpt_buf(BUF);
	for (int i = 0; i < NCASES; i++) {
		const struct rcase *c = &cases[i];
		int bad;

		dpt_fill(e.buf, BUF, 42);
		pair_up(s, &e, c->mr_access, MR_OFF, MR_LEN, c->qp_access);
		dpt_sync(s);
		dpt_sync(s);
		bad = dpt_check(e.buf, BUF, 42);
		CHECK(bad < 0, "%s: target memory changed at byte %d", c->name,
		      bad - MR_OFF);
		access_err_event(s, e.qp, c->name);
		CHECK(dpt_qp_state(e.qp) == IBV_QPS_ERR, "%s: responder QP "
		      "in %s, not ERR", c->name,
		      dpt_state_str(dpt_qp_state(e.qp)));
		dpt_log(s, "%s: memory untouched; responder QP in ERR after "
			"IBV_EVENT_QP_ACCESS_ERR", c->name);
		pair_down(&e);
	}
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
