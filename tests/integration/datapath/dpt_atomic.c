/* SPDX-License-Identifier: MIT */
/*
 * RC atomics, A (requester) on B's memory: CMP_AND_SWP that matches and
 * one that does not, FETCH_AND_ADD (with carry across 32 bits), 200 adds
 * in flight at once (the device applies them atomically with respect to
 * each other), and a misaligned target (IBA 9.4.5: an Invalid Request
 * NAK, IBV_WC_REM_INV_REQ_ERR, QP to error).
 */
#include "dpt.h"

#include <string.h>

#define NADD 200

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint64_t *buf;		/* A: results; B: targets */
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e)
{
	struct ibv_qp_cap cap = { .max_send_wr = 256, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct dpt_conn me;

	e->cq = dpt_cq(s, 512, NULL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, &cap, 1);
	e->buf = dpt_buf(4096 + NADD * 8);
	e->mr = dpt_mr(s, e->buf, 4096 + NADD * 8, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

/* One atomic on B's slot `slot`; the original value lands in A's
 * buf[res]. */
static void atomic_op(struct ends *e, enum ibv_wr_opcode op, int slot,
		      int res, uint64_t cmp_add, uint64_t swap, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)&e->buf[res], 8, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.atomic.remote_addr = e->peer.addr + (uint64_t)slot * 8;
	wr.wr.atomic.rkey = e->peer.rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	dpt_post_send(e->qp, &wr);
}

static void done(struct ends *e, int opcode, const char *what)
{
	struct ibv_wc wc;

	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, opcode, what);
	CHECK(wc.byte_len == 8 || wc.byte_len == 0,
	      "%s: byte_len %u", what, wc.byte_len);
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	uint64_t slot[4];
	struct ibv_wc wc;

	setup(s, &e);
	dpt_sync(s);			/* B initialised its slots */

	atomic_op(&e, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 0, 0x1111, 0x2222, 1);
	done(&e, IBV_WC_COMP_SWAP, "CAS (match)");
	CHECK(e.buf[0] == 0x1111, "CAS returned 0x%llx",
	      (unsigned long long)e.buf[0]);

	atomic_op(&e, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 1, 0x1111, 0x3333, 2);
	done(&e, IBV_WC_COMP_SWAP, "CAS (mismatch)");
	CHECK(e.buf[1] == 0x2222, "CAS (mismatch) returned 0x%llx",
	      (unsigned long long)e.buf[1]);

	atomic_op(&e, IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 2, 1, 0, 3);
	done(&e, IBV_WC_FETCH_ADD, "FAA");
	CHECK(e.buf[2] == 0xffffffffull, "FAA returned 0x%llx",
	      (unsigned long long)e.buf[2]);

	/* NADD adds in flight, each result in its own slot */
	for (int i = 0; i < NADD; i++)
		atomic_op(&e, IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 512 + i,
			  (uint64_t)i + 1, 0, 100 + i);
	for (int i = 0; i < NADD; i++)
		done(&e, IBV_WC_FETCH_ADD, "FAA burst");
	/* Every result is distinct: no two adds saw the same value. */
	for (int i = 0; i < NADD; i++)
		for (int j = i + 1; j < NADD; j++)
			CHECK(e.buf[512 + i] != e.buf[512 + j],
			      "adds %d and %d both saw %llu", i, j,
			      (unsigned long long)e.buf[512 + i]);
	dpt_sync(s);			/* B checks the slots */
	dpt_recv(s, slot, sizeof(slot));

	/* misaligned target: remote invalid request, QP to error */
	{
		struct ibv_sge sge = { (uintptr_t)&e.buf[3], 8, e.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 9, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED,
		};
		wr.wr.atomic.remote_addr = e.peer.addr + 8 * 3 + 4;
		wr.wr.atomic.rkey = e.peer.rkey;
		wr.wr.atomic.compare_add = 1;
		dpt_post_send(e.qp, &wr);
		dpt_wc(e.cq, &wc, IBV_WC_REM_INV_REQ_ERR, -1, "misaligned FAA");
		CHECK(dpt_qp_state(e.qp) == IBV_QPS_ERR, "QP state %s after "
		      "misaligned atomic", dpt_state_str(dpt_qp_state(e.qp)));
	}
	dpt_sync(s);
	dpt_log(s, "CAS match/mismatch, FAA, %d concurrent FAA, misaligned: ok",
		NADD);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	uint64_t sum = (uint64_t)NADD * (NADD + 1) / 2;

	setup(s, &e);
	e.buf[0] = 0x1111;
	e.buf[1] = 0xffffffffull;
	e.buf[2] = 1000;
	e.buf[3] = 0;
	dpt_sync(s);
	dpt_sync(s);
	CHECK(e.buf[0] == 0x2222, "CAS target 0x%llx",
	      (unsigned long long)e.buf[0]);
	CHECK(e.buf[1] == 0x100000000ull, "FAA target 0x%llx",
	      (unsigned long long)e.buf[1]);
	CHECK(e.buf[2] == 1000 + sum, "after %d adds: %llu, expected %llu",
	      NADD, (unsigned long long)e.buf[2],
	      (unsigned long long)(1000 + sum));
	dpt_send(s, e.buf, 4 * sizeof(uint64_t));
	dpt_sync(s);
	CHECK(e.buf[3] == 0, "misaligned atomic changed memory: 0x%llx",
	      (unsigned long long)e.buf[3]);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
