/* SPDX-License-Identifier: MIT */
/*
 * The post and poll fast paths on rings this test plays the engine for
 * (soft_post.c, soft_poll.c, soft_cq_ex.c, soft_qp_ex.c): what lands in
 * the ring, when the doorbell rings, *bad_wr and errno semantics, arming.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "providers/soft/provider/soft_provider.h"

#define NENT 4
#define ESZ 128

struct ring_mem {
	struct pv_ring_hdr hdr;
	_Alignas(64) char entries[NENT * ESZ];
};

static struct pv_context pctx;
static struct soft_ctx sc;
static struct pv_ctx_page page;
static struct ring_mem sqm, rqm, cqm;
static struct soft_qp_dp qdp;
static struct soft_cq_dp cdp;
static struct pv_qp qp;
static struct pv_cq cq;

static void ring_init(struct ring_mem *m, struct soft_ring *r, bool producer)
{
	memset(m, 0, sizeof(*m));
	m->hdr.magic = PV_RING_MAGIC;
	m->hdr.version = PV_RING_VERSION;
	m->hdr.entry_size = ESZ;
	m->hdr.num_entries = NENT;
	m->hdr.entries_off = offsetof(struct ring_mem, entries);
	assert_int_equal(soft_ring_check(&m->hdr, sizeof(*m), 0, ESZ, NENT), 0);
	soft_ring_attach(r, &m->hdr, producer);
}

static int setup(void **s)
{
	memset(&pctx, 0, sizeof(pctx));
	memset(&sc, 0, sizeof(sc));
	memset(&page, 0, sizeof(page));
	memset(&qdp, 0, sizeof(qdp));
	memset(&cdp, 0, sizeof(cdp));
	memset(&qp, 0, sizeof(qp));
	memset(&cq, 0, sizeof(cq));
	pctx.priv = &sc;
	sc.conn.fd = -1;
	sc.page = &page;
	sc.doorbell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ring_init(&sqm, &qdp.sq, true);
	ring_init(&rqm, &qdp.rq, true);
	ring_init(&cqm, &cdp.ring, false);
	pthread_spin_init(&qdp.sq_lock, 0);
	pthread_spin_init(&qdp.rq_lock, 0);
	pthread_spin_init(&cdp.lock, 0);
	qdp.max_send_sge = 2;
	qdp.max_recv_sge = 2;
	qdp.max_inline = 32;
	qp.ibv.context = &pctx.vctx.context;
	qp.ibv.qp_type = IBV_QPT_RC;
	qp.ibv.state = IBV_QPS_RTS;
	qp.priv = &qdp;
	qp.is_ex = true;
	soft_qp_ex_install(&qp);
	cq.ibv.context = &pctx.vctx.context;
	cq.priv = &cdp;
	cq.is_ex = true;
	soft_cq_ex_install(&cq);
	return 0;
}

static int teardown(void **s)
{
	close(sc.doorbell_fd);
	return 0;
}

static uint64_t doorbells(void)
{
	uint64_t v = 0;

	if (read(sc.doorbell_fd, &v, sizeof(v)) < 0)
		return 0;
	return v;
}

static struct pv_send_wqe *sq_entry(uint32_t i)
{
	return (struct pv_send_wqe *)(sqm.entries + (i % NENT) * ESZ);
}

static void test_soft_post__send_list_publishes_once_no_doorbell_awake(void **s)
{
	struct ibv_sge sg = { .addr = 0x1000, .length = 8, .lkey = 1 };
	struct ibv_send_wr w[2] = {
		{ .wr_id = 1, .sg_list = &sg, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .next = &w[1] },
		{ .wr_id = 2, .sg_list = &sg, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE },
	};
	struct ibv_send_wr *bad = (void *)1;

	assert_int_equal(soft_post_send(&qp.ibv, w, &bad), 0);
	assert_null(bad);
	assert_int_equal(sqm.hdr.prod, 2);
	assert_int_equal(sq_entry(1)->wr_id, 2);
	assert_int_equal(doorbells(), 0);
	/* The engine sleeps: the next post rings. */
	page.engine_idle = 1;
	w[0].next = NULL;
	assert_int_equal(soft_post_send(&qp.ibv, w, &bad), 0);
	assert_int_equal(doorbells(), 1);
}

static void test_soft_post__full_ring_is_enomem_at_the_first_unposted(void **s)
{
	struct ibv_send_wr w[NENT + 1];
	struct ibv_send_wr *bad = NULL;

	memset(w, 0, sizeof(w));
	for (int i = 0; i <= NENT; i++) {
		w[i].wr_id = (uint64_t)i;
		w[i].opcode = IBV_WR_SEND;
		w[i].next = i < NENT ? &w[i + 1] : NULL;
	}
	assert_int_equal(soft_post_send(&qp.ibv, w, &bad), ENOMEM);
	assert_ptr_equal(bad, &w[NENT]);
	assert_int_equal(sqm.hdr.prod, NENT);
	/* The engine consumes one: room again. */
	sqm.hdr.cons = 1;
	assert_int_equal(soft_post_send(&qp.ibv, &w[NENT], &bad), 0);
	assert_int_equal(sq_entry(NENT)->wr_id, NENT);
}

static void test_soft_post__bad_wr_mid_list_keeps_earlier_ones(void **s)
{
	struct ibv_sge sg[3] = { { 0 } };
	struct ibv_send_wr w[2] = {
		{ .wr_id = 1, .sg_list = sg, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .next = &w[1] },
		{ .wr_id = 2, .sg_list = sg, .num_sge = 3,
		  .opcode = IBV_WR_SEND },
	};
	struct ibv_send_wr *bad = NULL;

	assert_int_equal(soft_post_send(&qp.ibv, w, &bad), EINVAL);
	assert_ptr_equal(bad, &w[1]);
	assert_int_equal(sqm.hdr.prod, 1);
}

static void test_soft_post__state_and_dead_engine(void **s)
{
	struct ibv_send_wr w = { .opcode = IBV_WR_SEND };
	struct ibv_recv_wr r = { .wr_id = 5 };
	struct ibv_send_wr *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;

	qp.ibv.state = IBV_QPS_RTR;
	assert_int_equal(soft_post_send(&qp.ibv, &w, &bad), EINVAL);
	assert_ptr_equal(bad, &w);
	/* Receives may be posted from INIT on, not in RESET. */
	assert_int_equal(soft_post_recv(&qp.ibv, &r, &rbad), 0);
	qp.ibv.state = IBV_QPS_RESET;
	assert_int_equal(soft_post_recv(&qp.ibv, &r, &rbad), EINVAL);
	assert_ptr_equal(rbad, &r);
	qp.ibv.state = IBV_QPS_RTS;
	atomic_store(&sc.dead, true);
	assert_int_equal(soft_post_send(&qp.ibv, &w, &bad), EIO);
	assert_int_equal(sqm.hdr.prod, 0);
}

static void test_soft_post__recv_checks_sges(void **s)
{
	struct ibv_sge sg[3] = { { .addr = 1, .length = 2, .lkey = 3 } };
	struct ibv_recv_wr r[2] = {
		{ .wr_id = 1, .sg_list = sg, .num_sge = 1, .next = &r[1] },
		{ .wr_id = 2, .sg_list = sg, .num_sge = 3 },
	};
	struct ibv_recv_wr *bad = NULL;

	assert_int_equal(soft_post_recv(&qp.ibv, r, &bad), EINVAL);
	assert_ptr_equal(bad, &r[1]);
	assert_int_equal(rqm.hdr.prod, 1);
}

static void push_cqe(uint32_t i, uint64_t wr_id, uint32_t status)
{
	struct pv_cqe *c = (struct pv_cqe *)(cqm.entries + (i % NENT) * ESZ);

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->status = status;
	c->opcode = IBV_WC_RECV;
	c->byte_len = 10 + (uint32_t)wr_id;
	cqm.hdr.prod = i + 1;
}

static void test_soft_post__poll_takes_at_most_n_and_releases(void **s)
{
	struct ibv_wc wc[4];

	assert_int_equal(soft_poll_cq(&cq.ibv, 4, wc), 0);
	push_cqe(0, 7, IBV_WC_SUCCESS);
	push_cqe(1, 8, IBV_WC_WR_FLUSH_ERR);
	push_cqe(2, 9, IBV_WC_SUCCESS);
	assert_int_equal(soft_poll_cq(&cq.ibv, 2, wc), 2);
	assert_int_equal(wc[0].wr_id, 7);
	assert_int_equal(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(cqm.hdr.cons, 2);
	assert_int_equal(soft_poll_cq(&cq.ibv, 4, wc), 1);
	assert_int_equal(wc[0].byte_len, 19);
	assert_int_equal(cqm.hdr.cons, 3);
	/* Still drains after the engine died. */
	atomic_store(&sc.dead, true);
	push_cqe(3, 10, IBV_WC_SUCCESS);
	assert_int_equal(soft_poll_cq(&cq.ibv, 4, wc), 1);
}

static void test_soft_post__arm_never_narrows(void **s)
{
	assert_int_equal(soft_arm_cq(&cq.ibv, 1), 0);
	assert_int_equal(cqm.hdr.arm, PV_CQ_ARM_SOLICITED);
	assert_int_equal(soft_arm_cq(&cq.ibv, 0), 0);
	assert_int_equal(cqm.hdr.arm, PV_CQ_ARM_NEXT);
	assert_int_equal(soft_arm_cq(&cq.ibv, 1), 0);
	assert_int_equal(cqm.hdr.arm, PV_CQ_ARM_NEXT);
}

static void test_soft_post__cq_ex_walks_the_ring(void **s)
{
	struct ibv_cq_ex *x = &cq.ex;
	struct ibv_poll_cq_attr a = { 0 };

	assert_int_equal(x->start_poll(x, &a), ENOENT);
	push_cqe(0, 1, IBV_WC_SUCCESS);
	push_cqe(1, 2, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(x->start_poll(x, &a), 0);
	assert_int_equal(x->wr_id, 1);
	assert_int_equal(x->read_byte_len(x), 11);
	assert_int_equal(x->read_opcode(x), IBV_WC_RECV);
	assert_int_equal(x->next_poll(x), 0);
	assert_int_equal(x->status, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(x->next_poll(x), ENOENT);
	x->end_poll(x);
	assert_int_equal(cqm.hdr.cons, 2);
	/* The lock was released by end_poll (and by the ENOENT start). */
	assert_int_equal(pthread_spin_trylock(&cdp.lock), 0);
	pthread_spin_unlock(&cdp.lock);
}

static void test_soft_post__wr_builders_post_on_complete_only(void **s)
{
	struct ibv_qp_ex *x = &qp.ex;
	char data[] = "0123456789";

	x->wr_start(x);
	x->wr_id = 21;
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_send(x);
	x->wr_set_inline_data(x, data, 10);
	x->wr_id = 22;
	x->wr_rdma_write(x, 0x55, 0x9000);
	x->wr_set_sge(x, 3, 0x1000, 64);
	assert_int_equal(sqm.hdr.prod, 0);	/* nothing visible yet */
	assert_int_equal(x->wr_complete(x), 0);
	assert_int_equal(sqm.hdr.prod, 2);
	assert_int_equal(sq_entry(0)->inline_len, 10);
	assert_memory_equal(sq_entry(0) + 1, "0123456789", 10);
	assert_int_equal(sq_entry(1)->rkey, 0x55);
	assert_int_equal(sq_entry(1)->num_sge, 1);
	/* An error anywhere drops the whole batch. */
	x->wr_start(x);
	x->wr_send(x);
	x->wr_set_inline_data(x, data, 10);
	x->wr_send(x);
	x->wr_set_inline_data(x, data, 33);	/* over max_inline */
	assert_int_equal(x->wr_complete(x), EINVAL);
	assert_int_equal(sqm.hdr.prod, 2);
	x->wr_start(x);
	x->wr_atomic_fetch_add(x, 1, 0x40, 1);
	x->wr_abort(x);
	assert_int_equal(sqm.hdr.prod, 2);
	assert_int_equal(pthread_spin_trylock(&qdp.sq_lock), 0);
	pthread_spin_unlock(&qdp.sq_lock);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_soft_post__send_list_publishes_once_no_doorbell_awake),
		T(test_soft_post__full_ring_is_enomem_at_the_first_unposted),
		T(test_soft_post__bad_wr_mid_list_keeps_earlier_ones),
		T(test_soft_post__state_and_dead_engine),
		T(test_soft_post__recv_checks_sges),
		T(test_soft_post__poll_takes_at_most_n_and_releases),
		T(test_soft_post__arm_never_narrows),
		T(test_soft_post__cq_ex_walks_the_ring),
		T(test_soft_post__wr_builders_post_on_complete_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
