/* SPDX-License-Identifier: MIT */
/*
 * The engine's data-path error semantics, through our libibverbs, with
 * QPs of one context connected to each other (loopback through the same
 * device's GID, which goes through the same engine path as pod to pod).
 * Each case checks the completion statuses and events a RC NIC gives.
 *
 *   usage: eng-dp-loop [CASE]     (run inside a namespace with a device)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s: ", \
	__func__, __LINE__, #c); fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); exit(1); } } while (0)

#define BUF 4096
#define ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static uint8_t *buf_a, *buf_b;
static struct ibv_mr *mr_a, *mr_b;

struct qp_opts {
	uint8_t rnr_retry, min_rnr, timeout, retry_cnt;
	struct ibv_srq *srq;
};

static const struct qp_opts defaults = { 7, 1, 14, 7, NULL };

static struct ibv_qp *qp_new(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	CHECK(qp, "create_qp: %s", strerror(errno));
	return qp;
}

static void qp_connect(struct ibv_qp *qp, uint32_t dqpn,
		       const struct qp_opts *o)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = ALL };
	int r;

	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CHECK(r == 0, "INIT: %s", strerror(r));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = o->min_rnr;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	CHECK(r == 0, "RTR: %s", strerror(r));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = 1;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC);
	CHECK(r == 0, "RTS: %s", strerror(r));
}

/* A connected pair on one CQ each. */
struct pair {
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
};

static void pair_new(struct pair *p, const struct qp_opts *o)
{
	p->cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	p->cqb = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	CHECK(p->cqa && p->cqb, "create_cq");
	p->a = qp_new(p->cqa, NULL);
	p->b = qp_new(p->cqb, o->srq);
	qp_connect(p->a, p->b->qp_num, o);
	qp_connect(p->b, p->a->qp_num, o);
}

static void pair_free(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	ibv_destroy_cq(p->cqa);
	ibv_destroy_cq(p->cqb);
}

static void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		CHECK(n >= 0, "poll_cq");
		if (n == 1)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
		CHECK(t.tv_sec - t0.tv_sec < 10, "no completion in 10 s");
	}
}

static void expect_wc(struct ibv_cq *cq, uint64_t wr_id, int status)
{
	struct ibv_wc wc;

	wait_wc(cq, &wc);
	CHECK(wc.wr_id == wr_id && (int)wc.status == status,
	      "wr_id %llu status %s (%d), expected %llu %s",
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	      wc.status, (unsigned long long)wr_id,
	      ibv_wc_status_str(status));
}

static void post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
		 void *laddr, uint32_t len, uint32_t lkey, uint64_t raddr,
		 uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)laddr, len, lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED },
		*bad;
	int r;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	r = ibv_post_send(qp, &wr, &bad);
	CHECK(r == 0, "post_send: %s", strerror(r));
}

static void post_recv(struct ibv_qp *qp, uint64_t id, void *addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
		*bad;

	CHECK(ibv_post_recv(qp, &wr, &bad) == 0, "post_recv");
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	CHECK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) == 0, "query_qp");
	return a.qp_state;
}

static void case_remote_access(void)
{
	struct ibv_mr *ro = ibv_reg_mr(pd, buf_b + 2 * BUF, BUF,
				       IBV_ACCESS_LOCAL_WRITE);
	struct {
		uint64_t raddr;
		uint32_t rkey, len;
	} bad[] = {
		{ (uintptr_t)buf_b, mr_b->rkey ^ 0x100, 8 },	/* bad key */
		{ (uintptr_t)buf_b + BUF - 4, mr_b->rkey, 8 },	/* 4 past */
		{ (uintptr_t)buf_b - 1, mr_b->rkey, 1 },	/* 1 before */
		{ (uintptr_t)buf_b + 2 * BUF, ro->rkey, 8 },	/* no right */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pair p;

		pair_new(&p, &defaults);
		post(p.a, IBV_WR_RDMA_WRITE, 1, buf_a, bad[i].len, mr_a->lkey,
		     bad[i].raddr, bad[i].rkey);
		post(p.a, IBV_WR_RDMA_WRITE, 2, buf_a, 8, mr_a->lkey,
		     (uintptr_t)buf_b, mr_b->rkey);
		expect_wc(p.cqa, 1, IBV_WC_REM_ACCESS_ERR);
		expect_wc(p.cqa, 2, IBV_WC_WR_FLUSH_ERR);
		CHECK(qp_state(p.a) == IBV_QPS_ERR, "requester not in ERR");
		pair_free(&p);
	}
	/* Exactly the last byte is fine. */
	{
		struct pair p;

		pair_new(&p, &defaults);
		post(p.a, IBV_WR_RDMA_WRITE, 3, buf_a, 1, mr_a->lkey,
		     (uintptr_t)buf_b + BUF - 1, mr_b->rkey);
		expect_wc(p.cqa, 3, IBV_WC_SUCCESS);
		pair_free(&p);
	}
	ibv_dereg_mr(ro);
}

static void case_rnr(void)
{
	struct qp_opts o = defaults;
	struct pair p;

	o.rnr_retry = 2;
	o.min_rnr = 1;
	pair_new(&p, &o);
	post(p.a, IBV_WR_SEND, 7, buf_a, 16, mr_a->lkey, 0, 0);
	expect_wc(p.cqa, 7, IBV_WC_RNR_RETRY_EXC_ERR);
	pair_free(&p);
	/* A receive posted during the RNR wait lets the send through. */
	o.rnr_retry = 7;
	o.min_rnr = 14;		/* 1.28 ms */
	pair_new(&p, &o);
	post(p.a, IBV_WR_SEND, 8, buf_a, 16, mr_a->lkey, 0, 0);
	post_recv(p.b, 9, buf_b, BUF, mr_b->lkey);
	expect_wc(p.cqa, 8, IBV_WC_SUCCESS);
	expect_wc(p.cqb, 9, IBV_WC_SUCCESS);
	pair_free(&p);
}

static void case_lengths_and_lkeys(void)
{
	struct pair p;

	pair_new(&p, &defaults);
	post_recv(p.b, 1, buf_b, 4, mr_b->lkey);
	post(p.a, IBV_WR_SEND, 2, buf_a, 16, mr_a->lkey, 0, 0);
	expect_wc(p.cqa, 2, IBV_WC_REM_INV_REQ_ERR);
	expect_wc(p.cqb, 1, IBV_WC_LOC_LEN_ERR);
	pair_free(&p);

	pair_new(&p, &defaults);
	post(p.a, IBV_WR_SEND, 3, buf_a, 16, mr_a->lkey + 0x100, 0, 0);
	expect_wc(p.cqa, 3, IBV_WC_LOC_PROT_ERR);
	pair_free(&p);

	pair_new(&p, &defaults);	/* local bounds: one byte past */
	post(p.a, IBV_WR_SEND, 4, buf_a + BUF - 8, 9, mr_a->lkey, 0, 0);
	expect_wc(p.cqa, 4, IBV_WC_LOC_PROT_ERR);
	pair_free(&p);
}

static void case_atomics(void)
{
	uint64_t *target = (uint64_t *)(void *)(buf_b + 64);
	struct ibv_sge sge = { (uintptr_t)buf_a, 8, 0 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct pair p;

	sge.lkey = mr_a->lkey;
	pair_new(&p, &defaults);
	*target = 40;
	wr.wr_id = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = mr_b->rkey;
	wr.wr.atomic.compare_add = 2;
	CHECK(ibv_post_send(p.a, &wr, &bad) == 0, "post");
	expect_wc(p.cqa, 1, IBV_WC_SUCCESS);
	CHECK(*target == 42 && *(uint64_t *)(void *)buf_a == 40, "FAA");
	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	CHECK(ibv_post_send(p.a, &wr, &bad) == 0, "post");
	expect_wc(p.cqa, 2, IBV_WC_SUCCESS);
	CHECK(*target == 7 && *(uint64_t *)(void *)buf_a == 42, "CAS");
	wr.wr_id = 3;			/* compare fails: no swap */
	CHECK(ibv_post_send(p.a, &wr, &bad) == 0, "post");
	expect_wc(p.cqa, 3, IBV_WC_SUCCESS);
	CHECK(*target == 7 && *(uint64_t *)(void *)buf_a == 7, "CAS miss");
	wr.wr_id = 4;			/* misaligned */
	wr.wr.atomic.remote_addr = (uintptr_t)target + 4;
	CHECK(ibv_post_send(p.a, &wr, &bad) == 0, "post");
	expect_wc(p.cqa, 4, IBV_WC_REM_INV_REQ_ERR);
	pair_free(&p);
}

static void case_dead_peer(void)
{
	struct qp_opts o = defaults;
	struct pair p;

	o.timeout = 4;		/* 65 us */
	o.retry_cnt = 2;
	pair_new(&p, &o);
	ibv_destroy_qp(p.b);
	p.b = NULL;
	post(p.a, IBV_WR_RDMA_WRITE, 5, buf_a, 8, mr_a->lkey,
	     (uintptr_t)buf_b, mr_b->rkey);
	expect_wc(p.cqa, 5, IBV_WC_RETRY_EXC_ERR);
	pair_free(&p);
}

static void wait_async(int type)
{
	struct pollfd pf = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	for (;;) {
		CHECK(poll(&pf, 1, 5000) == 1, "no async event %d", type);
		CHECK(ibv_get_async_event(ctx, &ev) == 0, "get_async_event");
		ibv_ack_async_event(&ev);
		if ((int)ev.event_type == type)
			return;
	}
}

static void case_flush_and_overflow(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct pair p;
	struct ibv_cq *tiny;
	struct ibv_qp *q;
	struct ibv_wc wc;

	pair_new(&p, &defaults);
	for (int i = 0; i < 3; i++)
		post_recv(p.b, 10 + i, buf_b, BUF, mr_b->lkey);
	CHECK(ibv_modify_qp(p.b, &a, IBV_QP_STATE) == 0, "to ERR");
	for (int i = 0; i < 3; i++)
		expect_wc(p.cqb, 10 + i, IBV_WC_WR_FLUSH_ERR);
	post_recv(p.b, 20, buf_b, BUF, mr_b->lkey);	/* after ERR too */
	expect_wc(p.cqb, 20, IBV_WC_WR_FLUSH_ERR);
	pair_free(&p);

	/* A CQ that is never polled overflows: CQ_ERR, QP to ERR. */
	tiny = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	CHECK(tiny, "cq");
	pair_new(&p, &defaults);
	q = qp_new(tiny, NULL);
	qp_connect(q, p.b->qp_num, &defaults);
	for (int i = 0; i < 16; i++)
		post(q, IBV_WR_RDMA_WRITE, 100 + i, buf_a, 8, mr_a->lkey,
		     (uintptr_t)buf_b, mr_b->rkey);
	wait_async(IBV_EVENT_CQ_ERR);
	CHECK(qp_state(q) == IBV_QPS_ERR, "QP on overflowed CQ not in ERR");
	while (ibv_poll_cq(tiny, 1, &wc) == 1)
		;
	ibv_destroy_qp(q);
	ibv_destroy_cq(tiny);
	pair_free(&p);
}

static void case_srq_limit(void)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq_attr sa = { .srq_limit = 3 };
	struct ibv_srq *srq = ibv_create_srq(pd, &si);
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge = { (uintptr_t)buf_b, BUF, mr_b->lkey };
	struct qp_opts o = defaults;
	struct pair p;

	CHECK(srq, "create_srq");
	wr.sg_list = &sge;
	for (int i = 0; i < 4; i++) {
		wr.wr_id = 30 + i;
		CHECK(ibv_post_srq_recv(srq, &wr, &bad) == 0, "post_srq_recv");
	}
	CHECK(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT) == 0, "arm");
	o.srq = srq;
	pair_new(&p, &o);
	post(p.a, IBV_WR_SEND, 1, buf_a, 8, mr_a->lkey, 0, 0);
	expect_wc(p.cqb, 30, IBV_WC_SUCCESS);
	post(p.a, IBV_WR_SEND, 2, buf_a, 8, mr_a->lkey, 0, 0);
	expect_wc(p.cqb, 31, IBV_WC_SUCCESS);
	wait_async(IBV_EVENT_SRQ_LIMIT_REACHED);
	pair_free(&p);
	ibv_destroy_srq(srq);
}

static void case_solicited(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, ch, 0), *ev_cq;
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_sge sge = { (uintptr_t)buf_a, 8, mr_a->lkey };
	struct pollfd pf = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cqa = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *q, *a;
	struct ibv_wc wc;
	void *cq_ctx;

	CHECK(ch && cq && cqa, "channel/cq");
	q = qp_new(cq, NULL);		/* receives on the evented CQ */
	a = qp_new(cqa, NULL);
	qp_connect(q, a->qp_num, &defaults);
	qp_connect(a, q->qp_num, &defaults);
	post_recv(q, 1, buf_b, BUF, mr_b->lkey);
	post_recv(q, 2, buf_b, BUF, mr_b->lkey);
	CHECK(ibv_req_notify_cq(cq, 1) == 0, "arm solicited");
	wr.sg_list = &sge;
	CHECK(ibv_post_send(a, &wr, &bad) == 0, "post");
	wait_wc(cq, &wc);
	CHECK(poll(&pf, 1, 100) == 0, "event for an unsolicited message");
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK(ibv_post_send(a, &wr, &bad) == 0, "post");
	CHECK(poll(&pf, 1, 5000) == 1, "no solicited event");
	CHECK(ibv_get_cq_event(ch, &ev_cq, &cq_ctx) == 0 && ev_cq == cq,
	      "get_cq_event");
	ibv_ack_cq_events(cq, 1);
	wait_wc(cq, &wc);
	ibv_destroy_qp(q);
	ibv_destroy_qp(a);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(ch);
}

static void setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	CHECK(list && list[0], "no device");
	ctx = ibv_open_device(list[0]);
	CHECK(ctx, "open");
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	CHECK(ibv_query_gid(ctx, 1, 0, &gid) == 0, "gid");
	buf_a = aligned_alloc(4096, 4 * BUF);
	buf_b = aligned_alloc(4096, 4 * BUF);
	CHECK(pd && buf_a && buf_b, "pd/buffers");
	memset(buf_a, 0xa5, 4 * BUF);
	mr_a = ibv_reg_mr(pd, buf_a, BUF, ALL);
	mr_b = ibv_reg_mr(pd, buf_b, BUF, ALL);
	CHECK(mr_a && mr_b, "reg_mr: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{ "remote_access", case_remote_access },
		{ "rnr", case_rnr },
		{ "lengths_and_lkeys", case_lengths_and_lkeys },
		{ "atomics", case_atomics },
		{ "dead_peer", case_dead_peer },
		{ "flush_and_overflow", case_flush_and_overflow },
		{ "srq_limit", case_srq_limit },
		{ "solicited", case_solicited },
	};

	setup();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		cases[i].fn();
		printf("ok %s\n", cases[i].name);
	}
	return 0;
}
