/* SPDX-License-Identifier: MIT */
/*
 * Thread domains and parent domains between two pods.  Each side makes a
 * TD and a parent domain over its PD with that TD, a pd_context and
 * allocator hooks, and builds its CQ (ibv_create_cq_ex with
 * IBV_CQ_INIT_ATTR_MASK_PD), RC QP, an SRQ and MR from the parent
 * domain.
 * Checked:
 *  - unknown comp_mask bits (ibv_alloc_td, ibv_alloc_parent_domain), no
 *    PD, a parent domain as the PD, one allocator hook alone: EINVAL;
 *  - the CQ's, the QP's and the SRQ's provider-side bookkeeping come from
 *    the alloc hook (one call each, of three resource types), called
 *    with our pd_context, and go back through the free hook at their
 *    destroy;
 *  - a CQ asking for a plain PD or none as its parent domain: EINVAL;
 *  - the MR made through the parent domain names it as its pd;
 *  - ibv_dealloc_pd on the PD and ibv_dealloc_td on the TD while the
 *    parent domain holds them: EBUSY, and both still work afterwards;
 *  - A WRITEs a pattern into B's buffer and SENDs one after it over the
 *    parent domain's QP; B finds both intact;
 *  - the parent domain while its QP, then its SRQ, then its CQ exists:
 *    EBUSY;
 *  - after the parent domain is gone, the TD and the PD go cleanly.
 */
#include "dpt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LEN 8192
#define SEED 0x5eedu

/* What the allocator hooks saw: calls with our pd_context, calls with
 * any other, and the buffers handed out and not yet freed (a free must
 * name one of them, with the type it was allocated for). */
#define LIVE_MAX 8
struct hooks {
	int allocs, frees, wrong;
	int nlive;
	void *live[LIVE_MAX];
	uint64_t type[LIVE_MAX];
};

static struct hooks hooks;

static void *hook_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t resource_type)
{
	void *p;

	if (pd_context != &hooks || !pd)
		hooks.wrong++;
	if (hooks.nlive == LIVE_MAX ||
	    posix_memalign(&p, alignment < 8 ? 8 : alignment, size))
		return NULL;
	hooks.allocs++;
	hooks.live[hooks.nlive] = p;
	hooks.type[hooks.nlive++] = resource_type;
	return p;
}

static void hook_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t resource_type)
{
	int i = 0;

	while (i < hooks.nlive && hooks.live[i] != ptr)
		i++;
	if (pd_context != &hooks || i == hooks.nlive ||
	    hooks.type[i] != resource_type)
		hooks.wrong++;
	if (i < hooks.nlive) {
		hooks.live[i] = hooks.live[--hooks.nlive];
		hooks.type[i] = hooks.type[hooks.nlive];
	}
	hooks.frees++;
	free(ptr);
	(void)pd;
}

struct ends {
	struct ibv_pd *real;
	struct ibv_td *td;
	struct ibv_pd *pdom;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

/* An extended CQ whose bookkeeping comes from parent domain pd. */
static struct ibv_cq *cq_on(struct dpt_side *s, struct ibv_pd *pd)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.wc_flags = IBV_WC_STANDARD_FLAGS, .parent_domain = pd,
	};
	struct ibv_cq_ex *x = ibv_create_cq_ex(s->ctx, &a);

	return x ? ibv_cq_ex_to_cq(x) : NULL;
}

static void bad_args(struct dpt_side *s, struct ends *e)
{
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_parent_domain_init_attr pa = { .pd = e->real };

	errno = 0;
	CHECK(!ibv_alloc_td(s->ctx, &ta) && errno == EINVAL,
	      "alloc_td with comp_mask 1: errno %d", errno);
	pa.comp_mask = 1u << 7;
	errno = 0;
	CHECK(!ibv_alloc_parent_domain(s->ctx, &pa) && errno == EINVAL,
	      "parent domain with comp_mask bit 7: errno %d", errno);
	pa.comp_mask = 0;
	pa.pd = NULL;
	errno = 0;
	CHECK(!ibv_alloc_parent_domain(s->ctx, &pa) && errno == EINVAL,
	      "parent domain without a pd: errno %d", errno);
	pa.pd = e->pdom;
	errno = 0;
	CHECK(!ibv_alloc_parent_domain(s->ctx, &pa) && errno == EINVAL,
	      "parent domain of a parent domain: errno %d", errno);
	pa.pd = e->real;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	pa.alloc = hook_alloc;
	errno = 0;
	CHECK(!ibv_alloc_parent_domain(s->ctx, &pa) && errno == EINVAL,
	      "alloc hook without free hook: errno %d", errno);
	errno = 0;
	CHECK(!cq_on(s, e->real) && errno == EINVAL,
	      "CQ with a plain PD as its parent domain: errno %d", errno);
	errno = 0;
	CHECK(!cq_on(s, NULL) && errno == EINVAL,
	      "CQ with IBV_CQ_INIT_ATTR_MASK_PD and no parent domain: errno %d",
	      errno);
}

static void setup(struct dpt_side *s, struct ends *e)
{
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_parent_domain_init_attr pa = { 0 };
	struct dpt_conn me;

	e->real = s->pd;
	e->td = ibv_alloc_td(s->ctx, &ta);
	CHECK(e->td, "ibv_alloc_td: errno %d", errno);
	pa.pd = e->real;
	pa.td = e->td;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
		       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.alloc = hook_alloc;
	pa.free = hook_free;
	pa.pd_context = &hooks;
	e->pdom = ibv_alloc_parent_domain(s->ctx, &pa);
	CHECK(e->pdom, "ibv_alloc_parent_domain: errno %d", errno);
	CHECK(e->pdom->context == s->ctx, "parent domain's context");
	bad_args(s, e);
	CHECK(ibv_dealloc_pd(e->real) == EBUSY,
	      "dealloc_pd under a parent domain is not EBUSY");
	CHECK(ibv_dealloc_td(e->td) == EBUSY,
	      "dealloc_td under a parent domain is not EBUSY");

	s->pd = e->pdom;
	e->cq = cq_on(s, e->pdom);
	CHECK(e->cq, "ibv_create_cq_ex on the parent domain: errno %d", errno);
	CHECK(hooks.allocs == 1 && !hooks.wrong,
	      "CQ create: %d hook allocs, %d with a wrong pd_context",
	      hooks.allocs, hooks.wrong);
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, NULL, NULL, 1);
	CHECK(hooks.allocs == 2 && !hooks.wrong,
	      "QP create: %d hook allocs, %d with a wrong pd_context",
	      hooks.allocs, hooks.wrong);
	CHECK(hooks.type[0] != hooks.type[1],
	      "CQ and QP bookkeeping with one resource type");
	{
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 16, .max_sge = 1 },
		};

		e->srq = ibv_create_srq(e->pdom, &sa);
	}
	CHECK(e->srq, "ibv_create_srq on the parent domain: errno %d", errno);
	CHECK(e->srq->pd == e->pdom, "SRQ's pd is not the parent domain");
	CHECK(hooks.allocs == 3 && !hooks.wrong &&
	      hooks.type[2] != hooks.type[0] && hooks.type[2] != hooks.type[1],
	      "SRQ create: %d hook allocs, %d wrong", hooks.allocs,
	      hooks.wrong);
	CHECK(e->qp->pd == e->pdom, "QP's pd is not the parent domain");
	e->buf = dpt_buf(LEN);
	e->mr = dpt_mr(s, e->buf, LEN, DPT_ACCESS_ALL);
	CHECK(e->mr->pd == e->pdom, "MR's pd is not the parent domain");
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
	dpt_connect(e->qp, s, &e->peer, NULL);
}

static void teardown(struct dpt_side *s, struct ends *e)
{
	CHECK(ibv_dealloc_pd(e->pdom) == EBUSY,
	      "dealloc of a parent domain with a QP is not EBUSY");
	CHECK(ibv_destroy_qp(e->qp) == 0, "destroy_qp");
	CHECK(hooks.frees == 1 && !hooks.wrong,
	      "QP destroy: %d hook frees, %d wrong", hooks.frees, hooks.wrong);
	CHECK(ibv_dealloc_pd(e->pdom) == EBUSY,
	      "dealloc of a parent domain with an SRQ is not EBUSY");
	CHECK(ibv_destroy_srq(e->srq) == 0, "destroy_srq");
	CHECK(hooks.frees == 2 && !hooks.wrong,
	      "SRQ destroy: %d hook frees, %d wrong", hooks.frees, hooks.wrong);
	CHECK(ibv_dealloc_pd(e->pdom) == EBUSY,
	      "dealloc of a parent domain with a CQ is not EBUSY");
	CHECK(ibv_destroy_cq(e->cq) == 0, "destroy_cq");
	CHECK(hooks.frees == 3 && !hooks.wrong && hooks.nlive == 0,
	      "CQ destroy: %d hook frees, %d wrong, %d left", hooks.frees,
	      hooks.wrong, hooks.nlive);
	CHECK(ibv_dereg_mr(e->mr) == 0, "dereg_mr");
	CHECK(ibv_dealloc_pd(e->pdom) == 0, "dealloc parent domain: %d",
	      errno);
	CHECK(ibv_dealloc_td(e->td) == 0, "dealloc_td after the parent domain");
	s->pd = e->real;
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	setup(s, &e);
	dpt_fill(e.buf, LEN, SEED);
	dpt_sync(s);		/* B's receive is posted */
	sge = (struct ibv_sge){ (uintptr_t)e.buf, LEN, e.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = e.peer.addr;
	wr.wr.rdma.rkey = e.peer.rkey;
	dpt_post_send(e.qp, &wr);
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "write through the parent domain");
	sge.length = 64;
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	dpt_post_send(e.qp, &wr);
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "send through the parent domain");
	dpt_sync(s);		/* B has checked */
	teardown(s, &e);
	dpt_log(s, "parent domain: errors, EBUSY and data OK");
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;
	char *rbuf = dpt_buf(4096);
	struct ibv_mr *rmr;

	setup(s, &e);
	rmr = dpt_mr(s, rbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	dpt_post_recv(e.qp, 7, rbuf, 64, rmr->lkey);
	dpt_sync(s);
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "receive over the parent domain");
	CHECK(wc.byte_len == 64, "received %u bytes", wc.byte_len);
	CHECK(dpt_check(e.buf, LEN, SEED) < 0, "written pattern differs");
	CHECK(dpt_check(rbuf, 64, SEED) < 0, "sent pattern differs");
	dpt_sync(s);
	CHECK(ibv_dereg_mr(rmr) == 0, "dereg_mr");
	teardown(s, &e);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
