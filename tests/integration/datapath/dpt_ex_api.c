/* SPDX-License-Identifier: MIT */
/*
 * The extended verbs: ibv_query_device_ex; ibv_create_cq_ex polled with
 * ibv_start_poll/ibv_next_poll/ibv_end_poll and the ibv_wc_read_*
 * accessors; ibv_create_qp_ex with send_ops_flags and the ibv_wr_*
 * builders (send, send_imm, rdma_write with inline data, rdma_write_imm,
 * rdma_read, both atomics, set_sge/set_sge_list), ibv_wr_abort posting
 * nothing, and variants we do not offer failing with EOPNOTSUPP.
 */
#include "dpt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
		  IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP)
#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
	     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
	     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

struct ends {
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

/* One polled completion, read through the accessors. */
struct exwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, imm;
	unsigned flags;
};

static struct ibv_qp *qp_ex(struct dpt_side *s, struct ibv_cq_ex *cq,
			    uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(s->ctx, &ia);
}

static void setup(struct dpt_side *s, struct ends *e)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = WC_FLAGS };
	struct ibv_device_attr_ex dx;
	struct dpt_conn me;

	CHECK(ibv_query_device_ex(s->ctx, NULL, &dx) == 0,
	      "ibv_query_device_ex");
	CHECK(dx.orig_attr.max_qp > 0, "max_qp 0");
	e->cq = ibv_create_cq_ex(s->ctx, &ca);
	CHECK(e->cq, "ibv_create_cq_ex: %s", strerror(errno));
	e->qp = qp_ex(s, e->cq, OPS);
	CHECK(e->qp, "ibv_create_qp_ex: %s", strerror(errno));
	e->qpx = ibv_qp_to_qp_ex(e->qp);
	CHECK(e->qpx, "ibv_qp_to_qp_ex");
	e->buf = dpt_buf(65536);
	e->mr = dpt_mr(s, e->buf, 65536, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

static void read_wc(struct ibv_cq_ex *cq, struct exwc *w)
{
	w->wr_id = cq->wr_id;
	w->status = cq->status;
	w->opcode = ibv_wc_read_opcode(cq);
	w->byte_len = ibv_wc_read_byte_len(cq);
	w->qp_num = ibv_wc_read_qp_num(cq);
	w->flags = ibv_wc_read_wc_flags(cq);
	w->imm = (w->flags & IBV_WC_WITH_IMM) ? ntohl(ibv_wc_read_imm_data(cq)) : 0;
}

/* Polls n completions through start/next/end_poll. */
static void poll_ex(struct ibv_cq_ex *cq, struct exwc *w, int n)
{
	struct ibv_poll_cq_attr pa = { 0 };
	int got = 0, rc, tries = 0;

	while (got < n) {
		rc = ibv_start_poll(cq, &pa);
		if (rc == ENOENT) {
			CHECK(++tries < 10000000, "only %d of %d completions",
			      got, n);
			continue;
		}
		CHECK(rc == 0, "ibv_start_poll: %d", rc);
		do {
			read_wc(cq, &w[got++]);
			rc = got < n ? ibv_next_poll(cq) : ENOENT;
		} while (rc == 0);
		CHECK(rc == ENOENT, "ibv_next_poll: %d", rc);
		ibv_end_poll(cq);
	}
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	struct exwc w[8];
	struct ibv_qp_ex *q;
	struct ibv_sge two[2];
	char inl[32];
	uint64_t *res;
	int rc, bad;

	setup(s, &e);
	q = e.qpx;
	res = (uint64_t *)(e.buf + 32768);
	dpt_fill(e.buf, 16384, 1);
	dpt_fill(inl, sizeof(inl), 2);
	two[0] = (struct ibv_sge){ (uintptr_t)e.buf, 100, e.mr->lkey };
	two[1] = (struct ibv_sge){ (uintptr_t)e.buf + 100, 156, e.mr->lkey };
	dpt_sync(s);			/* B posted receives */

	ibv_wr_start(q);
	q->wr_id = 1; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)e.buf, 1000);
	q->wr_id = 2; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(q, htonl(0x1234));
	ibv_wr_set_sge_list(q, 2, two);
	q->wr_id = 3; q->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_rdma_write(q, e.peer.rkey, e.peer.addr + 8192);
	ibv_wr_set_inline_data(q, inl, sizeof(inl));
	q->wr_id = 4; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(q, e.peer.rkey, e.peer.addr + 12288, htonl(0x5678));
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)e.buf + 2000, 3000);
	q->wr_id = 5; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(q, e.peer.rkey, e.peer.addr + 20000);
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)e.buf + 40000, 4000);
	q->wr_id = 6; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(q, e.peer.rkey, e.peer.addr + 30000, 5);
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)&res[0], 8);
	q->wr_id = 7; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(q, e.peer.rkey, e.peer.addr + 30008, 7, 9);
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)&res[1], 8);
	rc = ibv_wr_complete(q);
	CHECK(rc == 0, "ibv_wr_complete: %s", strerror(rc));
	memset(inl, 0, sizeof(inl));

	poll_ex(e.cq, w, 7);
	static const enum ibv_wc_opcode op[] = {
		IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE,
		IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
	};
	for (int i = 0; i < 7; i++) {
		CHECK(w[i].wr_id == (uint64_t)i + 1 && w[i].status == IBV_WC_SUCCESS,
		      "completion %d: wr_id %llu status %s", i,
		      (unsigned long long)w[i].wr_id,
		      ibv_wc_status_str(w[i].status));
		CHECK(w[i].opcode == op[i], "wr_id %d: opcode %d, expected %d",
		      i + 1, w[i].opcode, op[i]);
		CHECK(w[i].qp_num == e.qp->qp_num, "qp_num %u", w[i].qp_num);
	}
	CHECK(w[4].byte_len == 4000, "RDMA READ byte_len %u", w[4].byte_len);
	bad = dpt_check(e.buf + 40000, 4000, 3);
	CHECK(bad < 0, "RDMA READ data differs at byte %d", bad);
	CHECK(res[0] == 100 && res[1] == 7, "atomics returned %llu, %llu",
	      (unsigned long long)res[0], (unsigned long long)res[1]);

	/* aborted batch: nothing is posted */
	ibv_wr_start(q);
	q->wr_id = 99; q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, e.mr->lkey, (uintptr_t)e.buf, 10);
	ibv_wr_abort(q);
	dpt_sync(s);			/* B checks everything */
	dpt_sync(s);
	{
		struct ibv_poll_cq_attr pa = { 0 };

		rc = ibv_start_poll(e.cq, &pa);
		if (rc == 0)
			ibv_end_poll(e.cq);
		CHECK(rc == ENOENT, "completion after ibv_wr_abort (wr_id %llu)",
		      (unsigned long long)e.cq->wr_id);
	}

	/* what we do not offer fails so that callers fall back */
	errno = 0;
	CHECK(!qp_ex(s, e.cq, IBV_QP_EX_WITH_TSO) && errno == EOPNOTSUPP,
	      "QP with TSO: %s", strerror(errno));
	{
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 4, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
		struct ibv_cq_ex *ts;

		errno = 0;
		ts = ibv_create_cq_ex(s->ctx, &ca);
		CHECK(ts || errno == EOPNOTSUPP, "CQ with timestamps: %s",
		      strerror(errno));
		dpt_log(s, "CQ with completion timestamps: %s",
			ts ? "supported" : "EOPNOTSUPP");
		if (ts)
			ibv_destroy_cq(ibv_cq_ex_to_cq(ts));
	}
	dpt_log(s, "query_device_ex, cq_ex polling and read_*, qp_ex wr_* "
		"(send, send_imm, write inline, write_imm, read, FAA, CAS), "
		"wr_abort, EOPNOTSUPP: ok");
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct exwc w[3];
	uint64_t *t;
	int bad;

	setup(s, &e);
	t = (uint64_t *)(e.buf + 30000);
	t[0] = 100;
	t[1] = 7;
	dpt_fill(e.buf + 20000, 4000, 3);
	for (int i = 0; i < 3; i++)
		dpt_post_recv(e.qp, 10 + i, e.buf + 1024 * (unsigned)i * 2, 2048,
			      e.mr->lkey);
	dpt_sync(s);
	poll_ex(e.cq, w, 3);
	CHECK(w[0].wr_id == 10 && w[0].opcode == IBV_WC_RECV &&
	      w[0].byte_len == 1000 && !(w[0].flags & IBV_WC_WITH_IMM),
	      "recv 1: wr_id %llu opcode %d len %u flags 0x%x",
	      (unsigned long long)w[0].wr_id, w[0].opcode, w[0].byte_len,
	      w[0].flags);
	CHECK(w[1].wr_id == 11 && w[1].byte_len == 256 && w[1].imm == 0x1234,
	      "recv 2: wr_id %llu len %u imm 0x%x",
	      (unsigned long long)w[1].wr_id, w[1].byte_len, w[1].imm);
	CHECK(w[2].wr_id == 12 && w[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      w[2].byte_len == 3000 && w[2].imm == 0x5678,
	      "recv 3: wr_id %llu opcode %d len %u imm 0x%x",
	      (unsigned long long)w[2].wr_id, w[2].opcode, w[2].byte_len,
	      w[2].imm);
	for (int i = 0; i < 3; i++)
		CHECK(w[i].status == IBV_WC_SUCCESS &&
		      w[i].qp_num == e.qp->qp_num, "recv %d status/qp_num", i);
	bad = dpt_check(e.buf, 1000, 1);
	CHECK(bad < 0, "ibv_wr_send data differs at %d", bad);
	bad = dpt_check(e.buf + 2048, 256, 1);
	CHECK(bad < 0, "ibv_wr_send_imm (sge list) data differs at %d", bad);
	{
		char inl[32];

		dpt_fill(inl, sizeof(inl), 2);
		CHECK(memcmp(e.buf + 8192, inl, sizeof(inl)) == 0,
		      "inline RDMA WRITE data differs");
	}
	{
		char *want = dpt_buf(16384);

		dpt_fill(want, 16384, 1);
		CHECK(memcmp(e.buf + 12288, want + 2000, 3000) == 0,
		      "ibv_wr_rdma_write_imm data differs");
		free(want);
	}
	CHECK(t[0] == 105 && t[1] == 9, "atomic targets %llu, %llu",
	      (unsigned long long)t[0], (unsigned long long)t[1]);
	dpt_sync(s);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
