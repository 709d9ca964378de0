/* SPDX-License-Identifier: MIT */
/*
 * SRQ resize past the initial ring (ibv_modify_srq IBV_SRQ_MAX_WR, the
 * device advertising IBV_DEVICE_SRQ_RESIZE), between two pods.  B's SRQ
 * starts with max_wr 4 (a ring of 4) and is filled; it grows to 64 and
 * gets more receives; A sends, B takes part of them; it grows again to
 * 300 with WQEs still posted (so the ring's counters no longer start at
 * zero) and gets more.  Every message lands in the receive posted for
 * it, in posting order: nothing posted before a resize is lost, doubled
 * or reordered.  Also: ibv_query_srq reports the new size, and growing
 * past the device's max_srq_wr fails with EINVAL, leaving the SRQ as it
 * was.
 */
#include "dpt.h"

#include <errno.h>
#include <string.h>

#define SLOT 256
#define TOTAL 340	/* 4 + 60 + 276 receives */
#define MSG(i) (64u + (unsigned)(i) % 128u)
/* Registered memory is shared by whole pages: a buffer of whole pages. */
#define BUFSZ (((size_t)TOTAL * SLOT + 4095) & ~(size_t)4095)

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
};

static void setup(struct dpt_side *s, struct ends *e, struct ibv_srq *srq)
{
	struct dpt_conn me, peer;

	e->cq = dpt_cq(s, 512, NULL);
	e->buf = dpt_buf(BUFSZ);
	e->mr = dpt_mr(s, e->buf, BUFSZ, DPT_ACCESS_ALL);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, srq, NULL, 0);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &peer);
	dpt_connect(e->qp, s, &peer, NULL);
	dpt_sync(s);	/* both QPs in RTS before anything is sent */
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	int n;

	setup(s, &e, NULL);
	for (int i = 0; i < TOTAL; i++)
		dpt_fill(e.buf + (size_t)i * SLOT, MSG(i), (unsigned)i);
	/* B says how many to send next; 0 ends. */
	for (int i = 0;;) {
		dpt_recv(s, &n, sizeof(n));
		if (!n)
			break;
		for (int k = 0; k < n; k++, i++) {
			struct ibv_sge sge = { (uintptr_t)e.buf +
					       (size_t)i * SLOT, MSG(i),
					       e.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = (uint64_t)i, .sg_list = &sge,
				.num_sge = 1, .opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
			};
			struct ibv_wc wc;

			dpt_post_send(e.qp, &wr);
			dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
		}
		dpt_log(s, "sent %d messages (%d in all)", n, i);
		dpt_sync(s);
	}
	return 0;
}

static void post(struct ibv_srq *srq, struct ends *e, int from, int to)
{
	for (int i = from; i < to; i++) {
		struct ibv_sge sge = { (uintptr_t)e->buf + (size_t)i * SLOT,
				       SLOT, e->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;
		int ret = ibv_post_srq_recv(srq, &wr, &bad);

		CHECK(ret == 0, "ibv_post_srq_recv %d: %s", i, strerror(ret));
	}
}

/* Asks A for n messages and checks each lands in receive next.. in
 * order, with its own data. */
static void take(struct dpt_side *s, struct ends *e, int *next, int n)
{
	dpt_send(s, &n, sizeof(n));
	for (int k = 0; k < n; k++, (*next)++) {
		struct ibv_wc wc;
		int i = *next;

		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "recv");
		CHECK(wc.wr_id == (uint64_t)i, "receive %d completed wr_id "
		      "%llu: out of order", i, (unsigned long long)wc.wr_id);
		CHECK(wc.byte_len == MSG(i), "receive %d: %u bytes", i,
		      wc.byte_len);
		CHECK(dpt_check(e->buf + (size_t)i * SLOT, MSG(i),
				(unsigned)i) < 0, "receive %d: data", i);
	}
	dpt_sync(s);
}

static void grow(struct dpt_side *s, struct ibv_srq *srq, uint32_t max_wr)
{
	struct ibv_srq_attr a = { .max_wr = max_wr };
	int ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);

	CHECK(ret == 0, "ibv_modify_srq(max_wr %u): %s", max_wr,
	      strerror(ret));
	memset(&a, 0, sizeof(a));
	CHECK(ibv_query_srq(srq, &a) == 0, "ibv_query_srq");
	CHECK(a.max_wr >= max_wr, "ibv_query_srq: max_wr %u after growing "
	      "to %u", a.max_wr, max_wr);
	dpt_log(s, "SRQ grown to max_wr %u", a.max_wr);
}

static int side_b(struct dpt_side *s)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_device_attr da;
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	struct ends e;
	int next = 0, ret;

	CHECK(ibv_query_device(s->ctx, &da) == 0, "ibv_query_device");
	CHECK(da.device_cap_flags & IBV_DEVICE_SRQ_RESIZE,
	      "IBV_DEVICE_SRQ_RESIZE not advertised");
	srq = ibv_create_srq(s->pd, &sa);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	CHECK(sa.attr.max_wr < 64, "SRQ created with max_wr %u, not a small "
	      "ring", sa.attr.max_wr);
	setup(s, &e, srq);
	post(srq, &e, 0, 4);
	grow(s, srq, 64);
	post(srq, &e, 4, 64);
	take(s, &e, &next, 10);		/* 54 still posted */
	grow(s, srq, 300);
	post(srq, &e, 64, TOTAL);
	a = (struct ibv_srq_attr){ .max_wr = da.max_srq_wr + 1 };
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	CHECK(ret == EINVAL, "growing past max_srq_wr %d: %d, not EINVAL",
	      da.max_srq_wr, ret);
	take(s, &e, &next, TOTAL - 10);
	dpt_log(s, "%d receives completed in posting order across two "
		"resizes", next);
	ret = 0;
	dpt_send(s, &ret, sizeof(ret));
	CHECK(ibv_destroy_qp(e.qp) == 0, "ibv_destroy_qp");
	CHECK(ibv_destroy_srq(srq) == 0, "ibv_destroy_srq");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
