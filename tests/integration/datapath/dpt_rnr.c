/* SPDX-License-Identifier: MIT */
/*
 * Receiver not ready on RC, each on a fresh QP pair: with no receive
 * posted, rnr_retry 0 and 1 end in IBV_WC_RNR_RETRY_EXC_ERR and the QP in
 * ERR; rnr_retry 7 (infinite) keeps retrying until the responder posts a
 * receive 500 ms later, then the SEND completes and its data arrives.
 */
#include "dpt.h"

#include <string.h>
#include <unistd.h>

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void pair_up(struct dpt_side *s, struct ends *e, uint8_t rnr_retry)
{
	struct dpt_qp_opts o = { .rnr_retry = rnr_retry, .min_rnr_timer = 14,
				 .timeout = 14 };
	struct dpt_conn me;

	e->cq = dpt_cq(s, 16, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, &o);
}

static void pair_down(struct ends *e)
{
	CHECK(ibv_destroy_qp(e->qp) == 0, "ibv_destroy_qp");
	CHECK(ibv_destroy_cq(e->cq) == 0, "ibv_destroy_cq");
}

static void post_send(struct ends *e)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 256, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };

	dpt_post_send(e->qp, &wr);
}

static int side_a(struct dpt_side *s)
{
	static const uint8_t exhaust[] = { 0xff /* 0 */, 1 };
	struct ends e;
	struct ibv_wc wc;

	e.buf = dpt_buf(4096);
	e.mr = dpt_mr(s, e.buf, 4096, DPT_ACCESS_ALL);
	dpt_fill(e.buf, 256, 3);
	for (unsigned i = 0; i < sizeof(exhaust); i++) {
		int n = exhaust[i] == 0xff ? 0 : exhaust[i];

		pair_up(s, &e, exhaust[i]);
		post_send(&e);
		dpt_wc(e.cq, &wc, IBV_WC_RNR_RETRY_EXC_ERR, -1,
		       "SEND with no receive posted");
		CHECK(dpt_qp_state(e.qp) == IBV_QPS_ERR, "QP in %s after "
		      "RNR retries exhausted", dpt_state_str(dpt_qp_state(e.qp)));
		dpt_log(s, "rnr_retry %d: IBV_WC_RNR_RETRY_EXC_ERR, QP in ERR", n);
		dpt_sync(s);
		pair_down(&e);
	}

	pair_up(s, &e, 7);
	post_send(&e);
	dpt_no_wc(e.cq, 500, "SEND while the responder has no receive");
	dpt_sync(s);			/* B posts its receive now */
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND,
	       "SEND after the receive was posted (rnr_retry 7)");
	dpt_sync(s);
	dpt_log(s, "rnr_retry 7: waited, then IBV_WC_SUCCESS");
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;
	int bad;

	e.buf = dpt_buf(4096);
	e.mr = dpt_mr(s, e.buf, 4096, DPT_ACCESS_ALL);
	for (int i = 0; i < 2; i++) {
		pair_up(s, &e, 7);
		dpt_sync(s);
		pair_down(&e);
	}
	pair_up(s, &e, 7);
	dpt_sync(s);
	dpt_post_recv(e.qp, 5, e.buf, 4096, e.mr->lkey);
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "late receive");
	CHECK(wc.byte_len == 256, "byte_len %u", wc.byte_len);
	bad = dpt_check(e.buf, 256, 3);
	CHECK(bad < 0, "data differs at byte %d", bad);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
