/* SPDX-License-Identifier: MIT */
/*
 * RC data correctness, one operation at a time, A (requester) to B
 * (responder): SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM,
 * RDMA_READ, inline SEND, multi-SGE gather and scatter, unsignaled work.
 * Every step checks the bytes, the completion fields, and that nothing
 * else completed.
 */
#include "dpt.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#define BUF_LEN (256 * 1024)
#define IMM1 0x12345678u
#define IMM2 0xcafef00du

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e, int sq_sig_all)
{
	struct dpt_conn me;

	e->cq = dpt_cq(s, 256, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, sq_sig_all);
	e->buf = dpt_buf(BUF_LEN);
	e->mr = dpt_mr(s, e->buf, BUF_LEN, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

static struct ibv_send_wr wr_one(struct ibv_sge *sge, uint64_t id,
				 enum ibv_wr_opcode op)
{
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	return wr;
}

static void send_done(struct ends *e, uint64_t id, int opcode,
		      const char *what)
{
	struct ibv_wc wc;

	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, opcode, what);
	CHECK(wc.wr_id == id, "%s: wr_id %llu", what,
	      (unsigned long long)wc.wr_id);
	CHECK(wc.qp_num == e->qp->qp_num, "%s: qp_num %u", what, wc.qp_num);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	char inl[64];
	int bad;

	setup(s, &e, 0);
	dpt_sync(s);			/* B posted its receives */

	/* SEND 4 KiB */
	dpt_fill(e.buf, 4096, 1);
	sge = (struct ibv_sge){ (uintptr_t)e.buf, 4096, e.mr->lkey };
	wr = wr_one(&sge, 11, IBV_WR_SEND);
	dpt_post_send(e.qp, &wr);
	send_done(&e, 11, IBV_WC_SEND, "SEND");

	/* SEND_WITH_IMM 100 bytes */
	dpt_fill(e.buf + 8192, 100, 2);
	sge = (struct ibv_sge){ (uintptr_t)e.buf + 8192, 100, e.mr->lkey };
	wr = wr_one(&sge, 12, IBV_WR_SEND_WITH_IMM);
	wr.imm_data = htonl(IMM1);
	dpt_post_send(e.qp, &wr);
	send_done(&e, 12, IBV_WC_SEND, "SEND_WITH_IMM");

	/* RDMA_WRITE 64 KiB + 3 bytes to B's buffer at offset 65536 */
	dpt_fill(e.buf + 16384, 65539, 3);
	sge = (struct ibv_sge){ (uintptr_t)e.buf + 16384, 65539, e.mr->lkey };
	wr = wr_one(&sge, 13, IBV_WR_RDMA_WRITE);
	wr.wr.rdma.remote_addr = e.peer.addr + 65536;
	wr.wr.rdma.rkey = e.peer.rkey;
	dpt_post_send(e.qp, &wr);
	send_done(&e, 13, IBV_WC_RDMA_WRITE, "RDMA_WRITE");
	dpt_sync(s);			/* B checks its memory */
	dpt_sync(s);

	/* RDMA_WRITE_WITH_IMM 256 bytes at B's offset 200000 */
	dpt_fill(e.buf + 100000, 256, 4);
	sge = (struct ibv_sge){ (uintptr_t)e.buf + 100000, 256, e.mr->lkey };
	wr = wr_one(&sge, 14, IBV_WR_RDMA_WRITE_WITH_IMM);
	wr.imm_data = htonl(IMM2);
	wr.wr.rdma.remote_addr = e.peer.addr + 200000;
	wr.wr.rdma.rkey = e.peer.rkey;
	dpt_post_send(e.qp, &wr);
	send_done(&e, 14, IBV_WC_RDMA_WRITE, "RDMA_WRITE_WITH_IMM");
	dpt_sync(s);

	/* RDMA_READ 12345 bytes from B's offset 150000 (B filled seed 5) */
	dpt_sync(s);
	memset(e.buf + 120000, 0, 20000);
	sge = (struct ibv_sge){ (uintptr_t)e.buf + 120001, 12345, e.mr->lkey };
	wr = wr_one(&sge, 15, IBV_WR_RDMA_READ);
	wr.wr.rdma.remote_addr = e.peer.addr + 150000;
	wr.wr.rdma.rkey = e.peer.rkey;
	dpt_post_send(e.qp, &wr);
	send_done(&e, 15, IBV_WC_RDMA_READ, "RDMA_READ");
	bad = dpt_check(e.buf + 120001, 12345, 5);
	CHECK(bad < 0, "RDMA_READ data differs at byte %d", bad);
	CHECK(e.buf[120000] == 0 && e.buf[120001 + 12345] == 0,
	      "RDMA_READ wrote outside its SGE");

	/* inline SEND of 64 bytes from a stack buffer, clobbered at once */
	dpt_fill(inl, sizeof(inl), 6);
	sge = (struct ibv_sge){ (uintptr_t)inl, sizeof(inl), 0 };
	wr = wr_one(&sge, 16, IBV_WR_SEND);
	wr.send_flags |= IBV_SEND_INLINE;
	dpt_post_send(e.qp, &wr);
	memset(inl, 0xee, sizeof(inl));
	send_done(&e, 16, IBV_WC_SEND, "inline SEND");

	/* multi-SGE SEND: 100 + 200 + 300 bytes gathered from 3 places */
	{
		struct ibv_sge sg[3] = {
			{ (uintptr_t)e.buf + 1000, 100, e.mr->lkey },
			{ (uintptr_t)e.buf + 3000, 200, e.mr->lkey },
			{ (uintptr_t)e.buf + 5000, 300, e.mr->lkey },
		};
		dpt_fill(e.buf + 1000, 100, 7);
		dpt_fill(e.buf + 3000, 200, 8);
		dpt_fill(e.buf + 5000, 300, 9);
		wr = wr_one(sg, 17, IBV_WR_SEND);
		wr.num_sge = 3;
		dpt_post_send(e.qp, &wr);
		send_done(&e, 17, IBV_WC_SEND, "multi-SGE SEND");
	}

	/* unsignaled: 10 writes, only the last signaled */
	{
		struct ibv_send_wr ws[10];
		struct ibv_sge ss[10];
		struct ibv_send_wr *badwr;

		for (int i = 0; i < 10; i++) {
			dpt_fill(e.buf + 200000 + i * 1000, 1000, 20 + i);
			ss[i] = (struct ibv_sge){ (uintptr_t)e.buf + 200000 + i * 1000,
						  1000, e.mr->lkey };
			ws[i] = wr_one(&ss[i], 100 + i, IBV_WR_RDMA_WRITE);
			ws[i].send_flags = i == 9 ? IBV_SEND_SIGNALED : 0;
			ws[i].wr.rdma.remote_addr = e.peer.addr + i * 1000;
			ws[i].wr.rdma.rkey = e.peer.rkey;
			ws[i].next = i < 9 ? &ws[i + 1] : NULL;
		}
		CHECK(ibv_post_send(e.qp, ws, &badwr) == 0, "post 10 writes");
		send_done(&e, 109, IBV_WC_RDMA_WRITE, "last of 10 writes");
		dpt_no_wc(e.cq, 200, "unsignaled writes");
	}
	dpt_sync(s);			/* B checks everything */
	dpt_sync(s);
	dpt_log(s, "SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ, inline, "
		"multi-SGE, unsignaled: ok");
	return 0;
}

static void recv_done(struct ends *e, struct ibv_wc *wc, uint64_t id,
		      int opcode, uint32_t len, const char *what)
{
	dpt_wc(e->cq, wc, IBV_WC_SUCCESS, opcode, what);
	CHECK(wc->wr_id == id, "%s: wr_id %llu, expected %llu", what,
	      (unsigned long long)wc->wr_id, (unsigned long long)id);
	CHECK(wc->byte_len == len, "%s: byte_len %u, expected %u", what,
	      wc->byte_len, len);
	CHECK(wc->qp_num == e->qp->qp_num, "%s: qp_num %u", what, wc->qp_num);
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;
	int bad;

	setup(s, &e, 1);
	/* recv 1: SEND; 2: SEND_WITH_IMM; 3: WRITE_WITH_IMM; 4: inline;
	 * 5: multi-SGE scatter (two SGEs: 250 + 1000) */
	dpt_post_recv(e.qp, 1, e.buf, 8192, e.mr->lkey);
	dpt_post_recv(e.qp, 2, e.buf + 8192, 4096, e.mr->lkey);
	dpt_post_recv(e.qp, 3, e.buf + 12288, 16, e.mr->lkey);
	dpt_post_recv(e.qp, 4, e.buf + 13000, 100, e.mr->lkey);
	{
		struct ibv_sge sg[2] = {
			{ (uintptr_t)e.buf + 20000, 250, e.mr->lkey },
			{ (uintptr_t)e.buf + 30000, 1000, e.mr->lkey },
		};
		struct ibv_recv_wr wr = { .wr_id = 5, .sg_list = sg,
					  .num_sge = 2 }, *badwr;
		CHECK(ibv_post_recv(e.qp, &wr, &badwr) == 0, "post 2-SGE recv");
	}
	dpt_sync(s);

	recv_done(&e, &wc, 1, IBV_WC_RECV, 4096, "recv of SEND");
	CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "SEND carried IMM flag");
	bad = dpt_check(e.buf, 4096, 1);
	CHECK(bad < 0, "SEND data differs at byte %d", bad);

	recv_done(&e, &wc, 2, IBV_WC_RECV, 100, "recv of SEND_WITH_IMM");
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no IBV_WC_WITH_IMM");
	CHECK(ntohl(wc.imm_data) == IMM1, "imm 0x%x", ntohl(wc.imm_data));
	bad = dpt_check(e.buf + 8192, 100, 2);
	CHECK(bad < 0, "SEND_WITH_IMM data differs at byte %d", bad);

	dpt_sync(s);			/* after RDMA_WRITE */
	bad = dpt_check(e.buf + 65536, 65539, 3);
	CHECK(bad < 0, "RDMA_WRITE data differs at byte %d", bad);
	CHECK(e.buf[65535] == 0 && e.buf[65536 + 65539] == 0,
	      "RDMA_WRITE wrote outside its range");
	dpt_no_wc(e.cq, 100, "RDMA_WRITE at the responder");
	dpt_sync(s);

	dpt_sync(s);			/* after RDMA_WRITE_WITH_IMM */
	recv_done(&e, &wc, 3, IBV_WC_RECV_RDMA_WITH_IMM, 256,
		  "recv of RDMA_WRITE_WITH_IMM");
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no IBV_WC_WITH_IMM");
	CHECK(ntohl(wc.imm_data) == IMM2, "imm 0x%x", ntohl(wc.imm_data));
	bad = dpt_check(e.buf + 200000, 256, 4);
	CHECK(bad < 0, "RDMA_WRITE_WITH_IMM data differs at byte %d", bad);

	dpt_fill(e.buf + 150000, 12345, 5);
	dpt_sync(s);			/* A reads it */

	recv_done(&e, &wc, 4, IBV_WC_RECV, 64, "recv of inline SEND");
	bad = dpt_check(e.buf + 13000, 64, 6);
	CHECK(bad < 0, "inline data differs at byte %d", bad);

	recv_done(&e, &wc, 5, IBV_WC_RECV, 600, "recv of multi-SGE SEND");
	{
		char want[600];

		dpt_fill(want, 100, 7);
		dpt_fill(want + 100, 200, 8);
		dpt_fill(want + 300, 300, 9);
		CHECK(memcmp(e.buf + 20000, want, 250) == 0 &&
		      memcmp(e.buf + 30000, want + 250, 350) == 0,
		      "multi-SGE gather/scatter data differs");
		CHECK(e.buf[30000 + 350] == 0, "scatter wrote past 600 bytes");
	}

	dpt_sync(s);			/* after the 10 writes */
	for (int i = 0; i < 10; i++) {
		bad = dpt_check(e.buf + i * 1000, 1000, 20 + i);
		CHECK(bad < 0, "unsignaled write %d differs at byte %d", i, bad);
	}
	dpt_no_wc(e.cq, 100, "responder after the writes");
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
