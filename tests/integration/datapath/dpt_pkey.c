/* SPDX-License-Identifier: MIT */
/*
 * P_Key isolation: an RC SEND from A to B.  With "ok" as the extra
 * argument the devices share a partition and the SEND arrives; with
 * "isolated" they do not and the requester ends in IBV_WC_RETRY_EXC_ERR
 * (the engine drops what crosses partitions, as a switch or HCA would),
 * while B sees nothing.  Each side's P_Key table (index 0) is printed.
 */
#include "dpt.h"

#include <string.h>

static int isolated(struct dpt_side *s)
{
	CHECK(s->argc == 1 && (!strcmp(s->argv[0], "ok") ||
			       !strcmp(s->argv[0], "isolated")),
	      "usage: dpt_pkey NS_A NS_B ok|isolated");
	return !strcmp(s->argv[0], "isolated");
}

static void setup(struct dpt_side *s, struct ibv_cq **cq, struct ibv_qp **qp,
		  struct ibv_mr **mr)
{
	struct dpt_qp_opts o = { .timeout = 10, .retry_cnt = 2 };
	struct dpt_conn me, peer;
	char *buf = dpt_buf(4096);
	__be16 pkey;

	CHECK(ibv_query_pkey(s->ctx, 1, 0, &pkey) == 0, "ibv_query_pkey");
	dpt_log(s, "P_Key[0] 0x%04x", be16toh(pkey));
	*cq = dpt_cq(s, 16, NULL);
	*qp = dpt_qp(s, IBV_QPT_RC, *cq, NULL, NULL, 1);
	*mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, *qp, *mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(*qp, s, &peer, &o);
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int iso = isolated(s);

	setup(s, &cq, &qp, &mr);
	dpt_sync(s);
	{
		struct ibv_sge sge = { (uintptr_t)mr->addr, 64, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		dpt_post_send(qp, &wr);
	}
	dpt_wc(cq, &wc, iso ? IBV_WC_RETRY_EXC_ERR : IBV_WC_SUCCESS, -1,
	       iso ? "SEND across partitions" : "SEND within a partition");
	dpt_sync(s);
	dpt_log(s, "%s", iso ? "across partitions: IBV_WC_RETRY_EXC_ERR" :
		"same partition: delivered");
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int iso = isolated(s);

	setup(s, &cq, &qp, &mr);
	dpt_post_recv(qp, 1, mr->addr, 4096, mr->lkey);
	dpt_sync(s);
	dpt_sync(s);
	if (iso)
		dpt_no_wc(cq, 100, "receive across partitions");
	else
		dpt_wc(cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "receive");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
