/* SPDX-License-Identifier: MIT */
/*
 * Local errors on RC, each on a fresh QP pair: a SEND longer than the
 * posted receive (responder IBV_WC_LOC_LEN_ERR, requester
 * IBV_WC_REM_INV_REQ_ERR), a wrong lkey, an SGE past the end of its MR,
 * and an RDMA READ into an MR without LOCAL_WRITE (IBV_WC_LOC_PROT_ERR);
 * the requester's QP is in ERR after each.
 */
#include "dpt.h"

#include <string.h>

enum kind { TOO_LONG, BAD_LKEY, PAST_MR, READ_NO_LW };

static const struct lcase {
	const char *name;
	enum kind kind;
	enum ibv_wc_status want;
} cases[] = {
	{ "SEND longer than the receive", TOO_LONG, IBV_WC_REM_INV_REQ_ERR },
	{ "wrong lkey", BAD_LKEY, IBV_WC_LOC_PROT_ERR },
	{ "SGE past the end of its MR", PAST_MR, IBV_WC_LOC_PROT_ERR },
	{ "RDMA READ into an MR without LOCAL_WRITE", READ_NO_LW,
	  IBV_WC_LOC_PROT_ERR },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr, *ro_mr;
	char *buf;
	struct dpt_conn peer;
};

static void pair_up(struct dpt_side *s, struct ends *e)
{
	struct dpt_qp_opts o = { .timeout = 10, .retry_cnt = 2,
				 .rnr_retry = 1 };
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

static void run_a(struct dpt_side *s, struct ends *e, const struct lcase *c)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 200, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	pair_up(s, e);
	dpt_sync(s);			/* B posted a 100-byte receive */
	switch (c->kind) {
	case TOO_LONG:
		break;
	case BAD_LKEY:
		sge.lkey ^= 0x5a5a00;
		sge.length = 50;
		break;
	case PAST_MR:
		sge.addr = (uintptr_t)e->buf + 4096 - 10;
		sge.length = 20;
		break;
	case READ_NO_LW:
		sge.addr = (uintptr_t)e->ro_mr->addr;
		sge.lkey = e->ro_mr->lkey;
		sge.length = 64;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = e->peer.addr;
		wr.wr.rdma.rkey = e->peer.rkey;
		break;
	}
	dpt_post_send(e->qp, &wr);
	dpt_wc(e->cq, &wc, c->want, -1, c->name);
	CHECK(dpt_qp_state(e->qp) == IBV_QPS_ERR, "%s: QP in %s, not ERR",
	      c->name, dpt_state_str(dpt_qp_state(e->qp)));
	dpt_log(s, "%s: %s, QP in ERR", c->name, ibv_wc_status_str(c->want));
	dpt_sync(s);
	pair_down(e);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;

	e.buf = dpt_buf(8192);
	e.mr = dpt_mr(s, e.buf, 4096, DPT_ACCESS_ALL);
	e.ro_mr = dpt_mr(s, e.buf + 4096, 4096, IBV_ACCESS_REMOTE_READ);
	for (int i = 0; i < NCASES; i++)
		run_a(s, &e, &cases[i]);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;

	e.buf = dpt_buf(4096);
	e.mr = dpt_mr(s, e.buf, 4096, DPT_ACCESS_ALL);
	for (int i = 0; i < NCASES; i++) {
		pair_up(s, &e);
		dpt_post_recv(e.qp, 9, e.buf, 100, e.mr->lkey);
		dpt_sync(s);
		if (cases[i].kind == TOO_LONG) {
			dpt_wc(e.cq, &wc, IBV_WC_LOC_LEN_ERR, -1,
			       "receive of a too long SEND");
			dpt_log(s, "%s: responder IBV_WC_LOC_LEN_ERR",
				cases[i].name);
		} else {
			dpt_no_wc(e.cq, 100, cases[i].name);
		}
		dpt_sync(s);
		pair_down(&e);
	}
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
