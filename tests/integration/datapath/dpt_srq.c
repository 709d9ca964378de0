/* SPDX-License-Identifier: MIT */
/*
 * SRQ between two pods: B has two RC QPs on one SRQ; A sends on both.
 * Each receive completes on the QP the message came in on, with its data;
 * IBV_EVENT_SRQ_LIMIT_REACHED fires once the SRQ holds fewer WQEs than
 * srq_limit (not at the limit), and the limit is then disarmed (reads 0);
 * a QP on the SRQ moved to ERR raises IBV_EVENT_QP_LAST_WQE_REACHED.
 */
#include "dpt.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#define NPOST 8
#define LIMIT 4

struct ends {
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer[2];
};

static void setup(struct dpt_side *s, struct ends *e, int with_srq)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct dpt_conn me[2];

	e->cq = dpt_cq(s, 64, NULL);
	e->srq = NULL;
	if (with_srq) {
		e->srq = ibv_create_srq(s->pd, &sa);
		CHECK(e->srq, "ibv_create_srq: %s", strerror(errno));
	}
	e->buf = dpt_buf(65536);
	e->mr = dpt_mr(s, e->buf, 65536, DPT_ACCESS_ALL);
	for (int i = 0; i < 2; i++) {
		e->qp[i] = dpt_qp(s, IBV_QPT_RC, e->cq, e->srq, NULL, 1);
		dpt_conn_fill(s, &me[i], e->qp[i], e->mr);
	}
	dpt_send(s, me, sizeof(me));
	dpt_recv(s, e->peer, sizeof(e->peer));
	for (int i = 0; i < 2; i++)
		dpt_connect(e->qp[i], s, &e->peer[i], NULL);
}

/* Message i: 100 + i bytes of seed i on QP i % 2. */
static void send_msg(struct ends *e, int i)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + i * 1024, 100u + i,
			       e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	dpt_fill(e->buf + i * 1024, 100u + i, (unsigned)i);
	dpt_post_send(e->qp[i % 2], &wr);
	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "SEND to the SRQ");
}

static int side_a(struct dpt_side *s)
{
	struct ends e;

	setup(s, &e, 0);
	dpt_sync(s);			/* B posted to its SRQ */
	for (int i = 0; i < NPOST - LIMIT; i++)
		send_msg(&e, i);
	dpt_sync(s);			/* B: at the limit, no event yet */
	dpt_sync(s);
	send_msg(&e, NPOST - LIMIT);
	dpt_sync(s);			/* B: below it, event */
	dpt_sync(s);
	dpt_log(s, "SRQ receives on 2 QPs, limit event below %d, disarmed, "
		"last WQE reached: ok", LIMIT);
	return 0;
}

/* Waits up to ms for an async event; returns 0 when none came. */
static int async_event(struct dpt_side *s, struct ibv_async_event *ev, int ms)
{
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	CHECK(n >= 0, "poll async_fd: %s", strerror(errno));
	if (n == 0)
		return 0;
	CHECK(ibv_get_async_event(s->ctx, ev) == 0, "ibv_get_async_event: %s",
	      strerror(errno));
	return 1;
}

static void check_recvs(struct ends *e, int from, int to)
{
	struct ibv_wc wc;

	for (int i = from; i < to; i++) {
		int bad;

		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "SRQ recv");
		CHECK(wc.byte_len == 100u + i, "recv %d: byte_len %u", i,
		      wc.byte_len);
		CHECK(wc.qp_num == e->qp[i % 2]->qp_num,
		      "message %d completed on QP %u, sent to QP %u", i,
		      wc.qp_num, e->qp[i % 2]->qp_num);
		bad = dpt_check(e->buf + wc.wr_id * 1024, 100u + i, (unsigned)i);
		CHECK(bad < 0, "message %d differs at byte %d", i, bad);
	}
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_srq_attr sa = { .srq_limit = LIMIT };
	struct ibv_async_event ev;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

	setup(s, &e, 1);
	for (int i = 0; i < NPOST; i++) {
		struct ibv_sge sge = { (uintptr_t)e.buf + i * 1024, 1024,
				       e.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;
		CHECK(ibv_post_srq_recv(e.srq, &wr, &bad) == 0,
		      "ibv_post_srq_recv");
	}
	CHECK(ibv_modify_srq(e.srq, &sa, IBV_SRQ_LIMIT) == 0,
	      "ibv_modify_srq(limit %d)", LIMIT);
	dpt_sync(s);
	dpt_sync(s);
	check_recvs(&e, 0, NPOST - LIMIT);
	CHECK(!async_event(s, &ev, 200), "async event %s with %d WQEs left "
	      "(limit %d)", ibv_event_type_str(ev.event_type), LIMIT, LIMIT);
	dpt_sync(s);
	dpt_sync(s);
	check_recvs(&e, NPOST - LIMIT, NPOST - LIMIT + 1);
	CHECK(async_event(s, &ev, 5000), "no SRQ limit event in 5 s");
	CHECK(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	      ev.element.srq == e.srq, "event %s, not SRQ_LIMIT_REACHED",
	      ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	CHECK(ibv_query_srq(e.srq, &sa) == 0, "ibv_query_srq");
	CHECK(sa.srq_limit == 0, "srq_limit %u after the event (not disarmed)",
	      sa.srq_limit);

	CHECK(ibv_modify_qp(e.qp[0], &qa, IBV_QP_STATE) == 0, "QP to ERR");
	CHECK(async_event(s, &ev, 5000), "no LAST_WQE_REACHED in 5 s");
	CHECK(ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
	      ev.element.qp == e.qp[0], "event %s, not QP_LAST_WQE_REACHED",
	      ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
