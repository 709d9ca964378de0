/* SPDX-License-Identifier: MIT */
/*
 * Posts made before a control call take effect before it (issue 12,
 * item 6).  The engine serves a request and runs posted work from the
 * same loop; a request must not overtake the WQEs the same client posted
 * before it:
 *  1. NSEND signaled SENDs to a peer with receives, then at once
 *     ibv_resize_cq to fewer entries than their completions: the resize
 *     must fail with EINVAL (ibv_resize_cq(3): the new size must hold the
 *     outstanding completions; rxe and the NICs refuse), and the CQ keeps
 *     every completion (no overflow);
 *  2. NSEND SENDs, then at once ibv_modify_qp to ERR: every one completes
 *     exactly once, in post order; against a live local peer each was
 *     executed before the transition (IBV_WC_SUCCESS, the peer got it),
 *     none flushed and none lost;
 *  3. NSEND SENDs, then at once ibv_destroy_qp: the peer receives them
 *     all.
 * Before each step side A sleeps past the engine's spin time, so the
 * engine is idle and sees the doorbell and the request in one wake-up.
 */
#include "dpt.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define NSEND 8
#define SMALL 4		/* < NSEND: cannot hold the completions */
#define IDLE_US 200000	/* well past dp_spin_us */

static void post_sends(struct ibv_qp *qp, char *buf, uint32_t lkey,
		       uint64_t first)
{
	for (int i = 0; i < NSEND; i++) {
		struct ibv_sge sge = { (uintptr_t)buf + 64 * i, 64, lkey };
		struct ibv_send_wr wr = {
			.wr_id = first + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		dpt_post_send(qp, &wr);
	}
}

/* Every wr_id first..first+NSEND-1 once, in order; returns how many
 * completed with IBV_WC_SUCCESS (all before any flushed one). */
static int check_order(struct ibv_cq *cq, uint64_t first, const char *what)
{
	struct ibv_wc wc[NSEND];
	int n = dpt_poll(cq, wc, NSEND, 5000), ok = 0;

	CHECK(n == NSEND, "%s: %d completions for %d SENDs", what, n, NSEND);
	for (int i = 0; i < n; i++) {
		CHECK(wc[i].wr_id == first + (uint64_t)i,
		      "%s: completion %d is wr_id %llu, expected %llu", what,
		      i, (unsigned long long)wc[i].wr_id,
		      (unsigned long long)(first + i));
		if (wc[i].status == IBV_WC_SUCCESS) {
			CHECK(ok == i, "%s: success after a flush", what);
			ok++;
			continue;
		}
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR, "%s: wr_id %llu %s",
		      what, (unsigned long long)wc[i].wr_id,
		      ibv_wc_status_str(wc[i].status));
	}
	dpt_no_wc(cq, 100, what);
	return ok;
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 32, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	char *buf = dpt_buf(4096);
	struct ibv_mr *mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct dpt_conn me, peer;
	int ret, ok;

	dpt_conn_fill(s, &me, qp, mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	dpt_sync(s);	/* B's receives are posted */

	/* 1. resize below the outstanding completions */
	usleep(IDLE_US);
	post_sends(qp, buf, mr->lkey, 100);
	errno = 0;
	ret = ibv_resize_cq(cq, SMALL);
	CHECK(ret == EINVAL, "resize to %d under %d posted signaled SENDs: "
	      "returned %d (%s), expected EINVAL: the request overtook the "
	      "posted work", SMALL, NSEND, ret, strerror(ret));
	ok = check_order(cq, 100, "after the refused resize");
	CHECK(ok == NSEND, "%d of %d SENDs succeeded", ok, NSEND);
	CHECK(ibv_resize_cq(cq, SMALL) == 0, "resize of the empty CQ");
	CHECK(ibv_resize_cq(cq, 32) == 0, "resize back to 32");

	/* 2. modify to ERR right after posting */
	usleep(IDLE_US);
	post_sends(qp, buf, mr->lkey, 200);
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == 0, "modify to ERR");
	ok = check_order(cq, 200, "SENDs posted before modify to ERR");
	CHECK(ok == NSEND, "%d of %d SENDs posted before modify to ERR ran "
	      "before it (the others were flushed)", ok, NSEND);
	dpt_sync(s);	/* B counted its receives */

	/* 3. destroy right after posting, on a fresh QP */
	qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	dpt_conn_fill(s, &me, qp, mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	dpt_sync(s);
	usleep(IDLE_US);
	post_sends(qp, buf, mr->lkey, 300);
	CHECK(ibv_destroy_qp(qp) == 0, "destroy QP");
	dpt_sync(s);
	dpt_log(s, "resize under %d posted SENDs refused (EINVAL), all %d "
		"kept; %d SENDs before modify to ERR and %d before destroy "
		"all ran first: ok", NSEND, NSEND, NSEND, NSEND);
	return 0;
}

static void recv_all(struct dpt_side *s, struct ibv_qp *qp,
		     struct ibv_cq *cq, char *buf, uint32_t lkey,
		     const char *what)
{
	struct ibv_wc wc[NSEND];
	int n;

	for (int i = 0; i < NSEND; i++)
		dpt_post_recv(qp, i, buf + 64 * i, 64, lkey);
	dpt_sync(s);
	n = dpt_poll(cq, wc, NSEND, 5000);
	CHECK(n == NSEND, "%s: peer received %d of %d", what, n, NSEND);
	for (int i = 0; i < n; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS, "%s: receive %s", what,
		      ibv_wc_status_str(wc[i].status));
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 64, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	char *buf = dpt_buf(4096);
	struct ibv_mr *mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);
	struct dpt_conn me, peer;
	struct ibv_wc wc[2 * NSEND];
	int n;

	dpt_conn_fill(s, &me, qp, mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	for (int i = 0; i < 2 * NSEND; i++)
		dpt_post_recv(qp, i, buf + 64 * (i % 32), 64, mr->lkey);
	dpt_sync(s);
	dpt_sync(s);	/* A is done with steps 1 and 2 */
	n = dpt_poll(cq, wc, 2 * NSEND, 5000);
	CHECK(n == 2 * NSEND, "received %d of %d SENDs of steps 1-2", n,
	      2 * NSEND);

	/* 3: a fresh QP (A's old one is in ERR) */
	qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	dpt_conn_fill(s, &me, qp, mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(qp, s, &peer, NULL);
	recv_all(s, qp, cq, buf, mr->lkey, "SENDs posted before destroy");
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
