/* SPDX-License-Identifier: MIT */
/*
 * Flush: with SENDs stuck in RNR retries (the peer posted no receive,
 * rnr_retry 7) and receives outstanding, ibv_modify_qp to ERR completes
 * every outstanding WR - signaled or not, send and receive - exactly once
 * with IBV_WC_WR_FLUSH_ERR; WRs posted while in ERR are flushed too.
 */
#include "dpt.h"

#include <string.h>

#define NRECV 5
#define NSEND 3

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 64, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	char *buf = dpt_buf(4096);
	struct ibv_mr *mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct dpt_conn me, peer;
	struct ibv_wc wc[16];
	int seen[256] = { 0 }, n;

	dpt_conn_fill(s, &me, qp, mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	for (int i = 0; i < NRECV; i++)
		dpt_post_recv(qp, 100 + i, buf + 1024, 1024, mr->lkey);
	for (int i = 0; i < NSEND; i++) {
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 1 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			/* the middle one unsignaled: flushed all the same */
			.send_flags = i == 1 ? 0 : IBV_SEND_SIGNALED,
		};
		dpt_post_send(qp, &wr);
	}
	dpt_no_wc(cq, 300, "SENDs to a peer without receives (RNR)");
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == 0, "modify to ERR");
	CHECK(dpt_qp_state(qp) == IBV_QPS_ERR, "QP not in ERR");

	n = dpt_poll(cq, wc, NRECV + NSEND, 5000);
	CHECK(n == NRECV + NSEND, "%d flush completions, expected %d", n,
	      NRECV + NSEND);
	for (int i = 0; i < n; i++) {
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR,
		      "wr_id %llu: status %s", (unsigned long long)wc[i].wr_id,
		      ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].wr_id < 256 && !seen[wc[i].wr_id]++,
		      "wr_id %llu completed twice or unknown",
		      (unsigned long long)wc[i].wr_id);
		CHECK(wc[i].qp_num == qp->qp_num, "qp_num %u", wc[i].qp_num);
	}
	dpt_no_wc(cq, 200, "after the flush");

	/* posted in ERR: flushed */
	dpt_post_recv(qp, 200, buf, 64, mr->lkey);
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 201, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		dpt_post_send(qp, &wr);
	}
	n = dpt_poll(cq, wc, 2, 5000);
	CHECK(n == 2, "%d completions for 2 WRs posted in ERR", n);
	for (int i = 0; i < n; i++)
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		      (wc[i].wr_id == 200 || wc[i].wr_id == 201),
		      "posted in ERR: wr_id %llu status %s",
		      (unsigned long long)wc[i].wr_id,
		      ibv_wc_status_str(wc[i].status));
	dpt_sync(s);
	dpt_log(s, "%d receives + %d sends (one unsignaled) flushed once each; "
		"WRs posted in ERR flushed: ok", NRECV, NSEND);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 1);
	struct dpt_conn me, peer;

	dpt_conn_fill(s, &me, qp, NULL);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	dpt_sync(s);
	dpt_no_wc(cq, 10, "responder that posted nothing");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
