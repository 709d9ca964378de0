/* SPDX-License-Identifier: MIT */
/*
 * Completion events through a completion channel, waited for with poll():
 * a CQ armed for solicited events ignores an ordinary SEND and wakes for
 * one with IBV_SEND_SOLICITED; armed for any event it wakes for the next
 * completion; unarmed it stays quiet.  A waits for its own send
 * completions the same way (ibv_req_notify_cq before each post).
 */
#include "dpt.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

struct ends {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e)
{
	struct dpt_conn me;

	e->ch = ibv_create_comp_channel(s->ctx);
	CHECK(e->ch, "ibv_create_comp_channel: %s", strerror(errno));
	e->cq = dpt_cq(s, 64, e->ch);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
	e->buf = dpt_buf(65536);
	e->mr = dpt_mr(s, e->buf, 65536, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

/* Waits up to ms for an event on the channel; 1 and acked if one came. */
static int cq_event(struct ends *e, int ms)
{
	struct pollfd p = { .fd = e->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	int n = poll(&p, 1, ms);

	CHECK(n >= 0, "poll: %s", strerror(errno));
	if (n == 0)
		return 0;
	CHECK(ibv_get_cq_event(e->ch, &cq, &cq_ctx) == 0,
	      "ibv_get_cq_event: %s", strerror(errno));
	CHECK(cq == e->cq, "event for another CQ");
	ibv_ack_cq_events(cq, 1);
	return 1;
}

static void send_evented(struct ends *e, uint64_t id, int flags)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 32, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_wc wc;

	CHECK(ibv_req_notify_cq(e->cq, 0) == 0, "ibv_req_notify_cq");
	dpt_post_send(e->qp, &wr);
	CHECK(cq_event(e, 5000), "send %llu: no completion event in 5 s",
	      (unsigned long long)id);
	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "evented send");
	CHECK(wc.wr_id == id, "wr_id %llu", (unsigned long long)wc.wr_id);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;

	setup(s, &e);
	dpt_sync(s);			/* B armed for solicited */
	send_evented(&e, 1, 0);
	dpt_sync(s);
	dpt_sync(s);
	send_evented(&e, 2, IBV_SEND_SOLICITED);
	dpt_sync(s);
	dpt_sync(s);			/* B armed for any */
	send_evented(&e, 3, 0);
	dpt_sync(s);
	dpt_sync(s);			/* B did not re-arm */
	send_evented(&e, 4, 0);
	dpt_sync(s);
	dpt_sync(s);
	dpt_log(s, "solicited-only arm, solicited event, next-completion arm, "
		"no event unarmed, evented sends: ok");
	return 0;
}

static void recv_one(struct ends *e, uint64_t id)
{
	struct ibv_wc wc;

	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "recv");
	CHECK(wc.wr_id == id, "recv wr_id %llu, expected %llu",
	      (unsigned long long)wc.wr_id, (unsigned long long)id);
}

static int side_b(struct dpt_side *s)
{
	struct ends e;

	setup(s, &e);
	for (int i = 1; i <= 4; i++)
		dpt_post_recv(e.qp, (uint64_t)i, e.buf + i * 1024, 1024,
			      e.mr->lkey);
	CHECK(ibv_req_notify_cq(e.cq, 1) == 0, "arm solicited");
	dpt_sync(s);
	dpt_sync(s);			/* A sent an ordinary SEND */
	CHECK(!cq_event(&e, 300), "event for an unsolicited SEND while "
	      "armed for solicited only");
	recv_one(&e, 1);
	dpt_sync(s);
	dpt_sync(s);			/* A sent a solicited SEND */
	CHECK(cq_event(&e, 5000), "no event for a solicited SEND in 5 s");
	recv_one(&e, 2);
	CHECK(ibv_req_notify_cq(e.cq, 0) == 0, "arm next");
	dpt_sync(s);
	dpt_sync(s);			/* an ordinary SEND */
	CHECK(cq_event(&e, 5000), "no event for the next completion in 5 s");
	recv_one(&e, 3);
	dpt_sync(s);
	dpt_sync(s);			/* another; CQ not re-armed */
	CHECK(!cq_event(&e, 300), "event on a CQ that was not re-armed");
	recv_one(&e, 4);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
