/* SPDX-License-Identifier: MIT */
/*
 * An MR deregistered while a large message is moving through it (issue
 * 8, finding 5: messages move in chunks, and each chunk checks its MRs
 * again).  A 512 MiB RDMA WRITE takes many engine passes, so a
 * deregistration lands mid-message, as it can on hardware:
 *
 *   1. A deregisters its own source MR: the WRITE completes with
 *      IBV_WC_LOC_PROT_ERR and A's QP is in ERR;
 *   2. B deregisters the target MR: A's WRITE completes with
 *      IBV_WC_REM_ACCESS_ERR.
 *
 * Either way the engine never touches the unmapped memory (it keeps
 * running; the test script checks it) and a fresh QP pair works.
 */
#include "dpt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILE	(64u << 20)
#define NSGE	8u		/* 8 x 64 MiB = 512 MiB per WRITE */

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e, char *buf, size_t len)
{
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = NSGE, .max_recv_sge = 1 };
	struct dpt_conn me;

	e->buf = buf;
	e->cq = dpt_cq(s, 16, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, &cap, 1);
	e->mr = dpt_mr(s, buf, len, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

static void teardown(struct ends *e, bool mr_alive)
{
	CHECK(ibv_destroy_qp(e->qp) == 0, "destroy qp");
	CHECK(ibv_destroy_cq(e->cq) == 0, "destroy cq");
	if (mr_alive)
		CHECK(ibv_dereg_mr(e->mr) == 0, "dereg");
}

static void post_big_write(struct ends *e, uint32_t lkey)
{
	struct ibv_sge sge[NSGE];
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = sge,
				  .num_sge = NSGE,
				  .opcode = IBV_WR_RDMA_WRITE };

	for (uint32_t i = 0; i < NSGE; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)e->buf, TILE, lkey };
	wr.wr.rdma.remote_addr = e->peer.addr;
	wr.wr.rdma.rkey = e->peer.rkey;
	dpt_post_send(e->qp, &wr);
}

static int side_a(struct dpt_side *s)
{
	char *tile = dpt_buf(TILE);
	struct ends e;
	struct ibv_wc wc;
	char go = 1;

	/* 1: our own MR goes away mid-WRITE */
	setup(s, &e, tile, TILE);
	dpt_sync(s);
	post_big_write(&e, e.mr->lkey);
	usleep(5000);		/* let the engine start on it */
	CHECK(ibv_dereg_mr(e.mr) == 0, "dereg local MR mid-message");
	CHECK(dpt_poll(e.cq, &wc, 1, 20000) == 1, "no completion");
	dpt_log(s, "local MR deregistered mid-WRITE: %s",
		ibv_wc_status_str(wc.status));
	CHECK(wc.status == IBV_WC_LOC_PROT_ERR, "status %s, expected %s "
	      "(the deregistration waited for the whole message?)",
	      ibv_wc_status_str(wc.status),
	      ibv_wc_status_str(IBV_WC_LOC_PROT_ERR));
	CHECK(dpt_qp_state(e.qp) == IBV_QPS_ERR, "QP not in ERR");
	dpt_sync(s);
	teardown(&e, false);

	/* 2: the peer's target MR goes away mid-WRITE */
	setup(s, &e, tile, TILE);
	dpt_sync(s);
	post_big_write(&e, e.mr->lkey);
	dpt_send(s, &go, 1);
	CHECK(dpt_poll(e.cq, &wc, 1, 20000) == 1, "no completion");
	dpt_log(s, "remote MR deregistered mid-WRITE: %s",
		ibv_wc_status_str(wc.status));
	CHECK(wc.status == IBV_WC_REM_ACCESS_ERR, "status %s, expected %s",
	      ibv_wc_status_str(wc.status),
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	dpt_sync(s);
	teardown(&e, true);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	size_t len = (size_t)TILE * NSGE;
	char *big = dpt_buf(len);
	struct ends e;
	char go;

	setup(s, &e, big, len);
	dpt_sync(s);
	dpt_sync(s);
	teardown(&e, true);

	setup(s, &e, big, len);
	dpt_sync(s);
	dpt_recv(s, &go, 1);
	CHECK(ibv_dereg_mr(e.mr) == 0, "dereg target MR mid-message");
	dpt_sync(s);
	teardown(&e, false);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
