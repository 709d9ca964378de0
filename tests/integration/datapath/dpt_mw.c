/* SPDX-License-Identifier: MIT */
/*
 * Memory windows type 1 and type 2 between two pods.  B owns an MR with
 * IBV_ACCESS_MW_BIND and no remote rights of its own, and windows over
 * parts of it; A, the requester, runs one operation per round on a fresh
 * RC pair (an error leaves the QPs in ERR).  Checked:
 *  - the device advertises IBV_DEVICE_MEM_WINDOW, _TYPE_2B and max_mw,
 *    and a client gets exactly max_mw windows, then ENOMEM;
 *  - type 1 (ibv_bind_mw): a WRITE and a READ through the window's rkey
 *    inside its range work; the MR's own rkey gets none of the window's
 *    rights; out of the range, a right the window lacks, the rkey before
 *    a rebind, the rkey after an unbind (zero length) or a dealloc fail
 *    with IBV_WC_REM_ACCESS_ERR, memory untouched;
 *  - type 2 (IBV_WR_BIND_MW): works through the QP it was bound on and
 *    not through another QP; IBV_WR_LOCAL_INV and a SEND_WITH_INV from
 *    the peer (the receive says IBV_WC_WITH_INV and the rkey) invalidate
 *    it; a send with an rkey that names no window bound there completes
 *    with IBV_WC_REM_INV_REQ_ERR; binding a bound type 2 window fails;
 *  - bind errors (MR without MW_BIND, remote write on an MR without
 *    local write, a range past the MR, index bits changed) complete with
 *    IBV_WC_MW_BIND_ERR; an MR with a bound window cannot be
 *    deregistered or reregistered (EBUSY);
 *  - the extended API (ibv_wr_bind_mw, ibv_wr_local_inv) does the same;
 *  - a zero-based type 2 window is reached by offsets from 0 (the data
 *    lands at the window's start), not by its addresses, not past its
 *    length; a zero-based type 1 bind fails;
 *  - a window of another PD of B's, bound and working through a QP of
 *    that PD, gives nothing through a QP of B's first PD;
 *  - B tallies what it expects the engine to count (a "tally:" line:
 *    remote access errors, refused binds and invalidates, binds and
 *    invalidates done) for datapath_mw.sh to hold against `pvctl stats`.
 */
#include "dpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF (4 * 4096)
#define LW IBV_ACCESS_LOCAL_WRITE
#define RR IBV_ACCESS_REMOTE_READ
#define RW IBV_ACCESS_REMOTE_WRITE
#define LEN 1024
#define OP_NONE 0xffffu

/* A round: B's word to A.  Before it, both sides make npairs pairs. */
struct head {
	uint32_t stop, npairs;
};

struct round {
	uint64_t addr;
	uint32_t rkey;
	uint32_t op;		/* enum ibv_wr_opcode, or OP_NONE */
	uint32_t len;
	uint32_t seed;		/* WRITE: pattern; READ: expected */
	uint32_t want;		/* A's WC status */
	uint32_t pair;		/* which pair A uses */
	char what[80];
};

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* An RC QP that also takes the ibv_wr_* window operations. */
static struct ibv_qp *qp_ex(struct dpt_side *s, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_SEND_WITH_INV,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(s->ctx, &ia);

	CHECK(qp, "ibv_create_qp_ex with the window operations: %s",
	      strerror(errno));
	return qp;
}

static void pairs_up(struct dpt_side *s, struct pair *p, uint32_t n)
{
	struct dpt_qp_opts o = { .timeout = 10, .retry_cnt = 2 };

	for (uint32_t i = 0; i < n; i++) {
		struct dpt_conn me, peer;

		p[i].cq = dpt_cq(s, 16, NULL);
		p[i].qp = qp_ex(s, p[i].cq);
		dpt_conn_fill(s, &me, p[i].qp, NULL);
		dpt_swap(s, &me, &peer);
		dpt_connect(p[i].qp, s, &peer, &o);
	}
	/* All in RTS before A posts: an error at a responder still in RTR
	 * would move it to ERR before its RTS. */
	dpt_sync(s);
}

static void pairs_down(struct pair *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		CHECK(ibv_destroy_qp(p[i].qp) == 0, "ibv_destroy_qp");
		CHECK(ibv_destroy_cq(p[i].cq) == 0, "ibv_destroy_cq");
	}
}

static void a_act(struct dpt_side *s, struct pair *p, char *buf,
		  struct ibv_mr *mr, const struct round *rd)
{
	struct ibv_sge sge = { (uintptr_t)buf, rd->len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				  .opcode = rd->op,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	if (rd->op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = rd->addr;
		wr.wr.atomic.rkey = rd->rkey;
		wr.wr.atomic.compare_add = 1;
	} else if (rd->op == IBV_WR_SEND_WITH_INV) {
		wr.invalidate_rkey = rd->rkey;
	} else {
		wr.wr.rdma.remote_addr = rd->addr;
		wr.wr.rdma.rkey = rd->rkey;
	}
	if (rd->op == IBV_WR_RDMA_READ)
		memset(buf, 0, rd->len);
	else
		dpt_fill(buf, rd->len, rd->seed);
	dpt_post_send(p->qp, &wr);
	dpt_wc(p->cq, &wc, rd->want, -1, rd->what);
	if (rd->op == IBV_WR_RDMA_READ && rd->want == IBV_WC_SUCCESS)
		CHECK(dpt_check(buf, rd->len, rd->seed) < 0, "%s: READ data",
		      rd->what);
	dpt_log(s, "%s: %s", rd->what, ibv_wc_status_str(rd->want));
}

static int side_a(struct dpt_side *s)
{
	char *buf = dpt_buf(4096);
	struct ibv_mr *mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);

	for (;;) {
		struct pair p[2];
		struct round rd;
		struct head h;

		dpt_recv(s, &h, sizeof(h));
		if (h.stop)
			break;
		pairs_up(s, p, h.npairs);
		dpt_recv(s, &rd, sizeof(rd));
		if (rd.op != OP_NONE)
			a_act(s, &p[rd.pair], buf, mr, &rd);
		dpt_sync(s);
		pairs_down(p, h.npairs);
	}
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	return 0;
}

/* ---- side B ---- */

struct b {
	struct dpt_side *s;
	char *buf;
	struct ibv_mr *mr;	/* LW | MW_BIND over buf */
	struct pair p[2];
	uint32_t npairs;
	char *shadow;		/* buf as b_begin saw it */
	/* What the engine must have counted (datapath_mw.sh). */
	unsigned rem_access, mw_refused, bound, inv, limit_hits;
};

static void b_begin(struct b *b, uint32_t npairs)
{
	struct head h = { .npairs = npairs };

	dpt_send(b->s, &h, sizeof(h));
	b->npairs = npairs;
	memcpy(b->shadow, b->buf, BUF);
	pairs_up(b->s, b->p, npairs);
}

/* A's turn; then B's memory [off, off + LEN) must hold seed, and none
 * of the rest of it may have changed since b_begin: data lands only
 * inside the window (or nowhere). */
static void b_end(struct b *b, struct round *rd, uint32_t off, unsigned seed)
{
	int bad;

	dpt_send(b->s, rd, sizeof(*rd));
	dpt_sync(b->s);
	if (rd->op != OP_NONE && rd->want == IBV_WC_REM_ACCESS_ERR)
		b->rem_access++;
	if (rd->want == IBV_WC_REM_INV_REQ_ERR)
		b->mw_refused++;
	bad = dpt_check(b->buf + off, LEN, seed);
	CHECK(bad < 0, "%s: B's memory differs at byte %d", rd->what, bad);
	CHECK(memcmp(b->buf, b->shadow, off) == 0 &&
	      memcmp(b->buf + off + LEN, b->shadow + off + LEN,
		     BUF - off - LEN) == 0,
	      "%s: B's memory changed outside [%u, %u)", rd->what, off,
	      off + LEN);
	pairs_down(b->p, b->npairs);
}

static struct round rd_of(uint64_t addr, uint32_t rkey, uint32_t op,
			  uint32_t seed, uint32_t want, const char *what)
{
	struct round rd = { .addr = addr, .rkey = rkey, .op = op,
			    .len = LEN, .seed = seed, .want = want };

	snprintf(rd.what, sizeof(rd.what), "%s", what);
	return rd;
}

static uint64_t at(const struct b *b, uint32_t off)
{
	return (uintptr_t)b->buf + off;
}

/* The bind's completion on B's pair i. */
static void b_bind_wc(struct b *b, int i, enum ibv_wc_status want,
		      int opcode, const char *what)
{
	struct ibv_wc wc;

	dpt_wc(b->p[i].cq, &wc, want, want == IBV_WC_SUCCESS ? opcode : -1,
	       what);
	if (want == IBV_WC_MW_BIND_ERR)
		b->mw_refused++;
	else if (opcode == IBV_WC_BIND_MW)
		b->bound++;
	else if (opcode == IBV_WC_LOCAL_INV)
		b->inv++;
}

static void b_bind1(struct b *b, struct ibv_mw *mw, struct ibv_mr *mr,
		    uint32_t off, uint32_t len, int acc,
		    enum ibv_wc_status want, const char *what)
{
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = len ? mr : NULL,
			       .addr = len ? at(b, off) : 0, .length = len,
			       .mw_access_flags = (unsigned)acc },
	};
	uint32_t old = mw->rkey;
	int ret = ibv_bind_mw(b->p[0].qp, mw, &bind);

	CHECK(ret == 0, "%s: ibv_bind_mw: %s", what, strerror(ret));
	CHECK(mw->rkey == ibv_inc_rkey(old), "%s: rkey 0x%x after bind, "
	      "want 0x%x", what, mw->rkey, ibv_inc_rkey(old));
	b_bind_wc(b, 0, want, IBV_WC_BIND_MW, what);
}

static void b_bind2(struct b *b, int i, struct ibv_mw *mw, uint32_t rkey,
		    struct ibv_mr *mr, uint32_t off, uint32_t len, int acc,
		    enum ibv_wc_status want, const char *what)
{
	struct ibv_send_wr wr = { .wr_id = 2, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED };

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = at(b, off), .length = len,
		.mw_access_flags = (unsigned)acc };
	dpt_post_send(b->p[i].qp, &wr);
	b_bind_wc(b, i, want, IBV_WC_BIND_MW, what);
}

static void b_local_inv(struct b *b, uint32_t rkey, const char *what)
{
	struct ibv_send_wr wr = { .wr_id = 3, .opcode = IBV_WR_LOCAL_INV,
				  .send_flags = IBV_SEND_SIGNALED,
				  .invalidate_rkey = rkey };

	dpt_post_send(b->p[0].qp, &wr);
	b_bind_wc(b, 0, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, what);
}

/* A round where A does nothing (B's own bind checks). */
static void b_quiet(struct b *b, uint32_t off, unsigned seed)
{
	struct round rd = { .op = OP_NONE };

	snprintf(rd.what, sizeof(rd.what), "B only");
	b_end(b, &rd, off, seed);
}

static void type1(struct b *b)
{
	struct ibv_mw *mw = ibv_alloc_mw(b->s->pd, IBV_MW_TYPE_1);
	struct round rd;
	uint32_t old;

	CHECK(mw && mw->type == IBV_MW_TYPE_1, "ibv_alloc_mw(type 1): %s",
	      strerror(errno));
	b_begin(b, 1);
	b_bind1(b, mw, b->mr, 1024, LEN, RW | RR, IBV_WC_SUCCESS,
		"bind type 1");
	rd = rd_of(at(b, 1024), mw->rkey, IBV_WR_RDMA_WRITE, 1,
		   IBV_WC_SUCCESS, "type 1: WRITE in the window");
	b_end(b, &rd, 1024, 1);
	CHECK(ibv_dereg_mr(b->mr) == EBUSY, "dereg of an MR with a bound "
	      "window must fail with EBUSY");
	CHECK(ibv_rereg_mr(b->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   LW) == IBV_REREG_MR_ERR_CMD && errno == EBUSY,
	      "rereg of an MR with a bound window must fail with EBUSY");

	struct { uint32_t off; uint32_t rkey_from_mr; uint32_t op;
		 const char *what; } bad[] = {
		{ 1024 - 8, 0, IBV_WR_RDMA_WRITE, "type 1: WRITE from before "
		  "the window" },
		{ 1024 + 8, 0, IBV_WR_RDMA_WRITE, "type 1: WRITE past the "
		  "window's end" },
		{ 1024, 1, IBV_WR_RDMA_WRITE, "the MR's own rkey: no window "
		  "rights" },
		{ 1024, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, "type 1: atomic, "
		  "a right the window lacks" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b_begin(b, 1);
		rd = rd_of(at(b, bad[i].off), bad[i].rkey_from_mr ?
			   b->mr->rkey : mw->rkey, bad[i].op, 9,
			   IBV_WC_REM_ACCESS_ERR, bad[i].what);
		if (bad[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD)
			rd.len = 8;
		b_end(b, &rd, 1024, 1);
	}

	b_begin(b, 1);
	rd = rd_of(at(b, 1024), mw->rkey, IBV_WR_RDMA_READ, 1, IBV_WC_SUCCESS,
		   "type 1: READ in the window");
	b_end(b, &rd, 1024, 1);

	/* Rebind elsewhere: the old rkey is gone, the new one works. */
	old = mw->rkey;
	b_begin(b, 1);
	b_bind1(b, mw, b->mr, 4096, LEN, RW, IBV_WC_SUCCESS, "rebind");
	rd = rd_of(at(b, 1024), old, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 1: the rkey before a rebind");
	b_end(b, &rd, 1024, 1);
	b_begin(b, 1);
	rd = rd_of(at(b, 4096), mw->rkey, IBV_WR_RDMA_WRITE, 2, IBV_WC_SUCCESS,
		   "type 1: WRITE after the rebind");
	b_end(b, &rd, 4096, 2);

	/* Zero length unbinds. */
	b_begin(b, 1);
	b_bind1(b, mw, NULL, 0, 0, 0, IBV_WC_SUCCESS, "unbind");
	rd = rd_of(at(b, 4096), mw->rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 1: after unbinding");
	b_end(b, &rd, 4096, 2);

	b_begin(b, 1);
	b_bind1(b, mw, b->mr, 4096, LEN, RW, IBV_WC_SUCCESS, "bind again");
	old = mw->rkey;
	CHECK(ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
	rd = rd_of(at(b, 4096), old, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 1: after ibv_dealloc_mw");
	b_end(b, &rd, 4096, 2);
}

static void type2_inv(struct b *b, struct ibv_mw *mw)
{
	struct ibv_sge sge = { at(b, 12288), 64, b->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &sge,
				   .num_sge = 1 }, *rbad;
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	struct round rd;
	struct ibv_wc wc;

	/* Local invalidate. */
	b_begin(b, 1);
	b_bind2(b, 0, mw, rkey, b->mr, 8192, LEN, RW, IBV_WC_SUCCESS,
		"bind type 2");
	b_local_inv(b, rkey, "IBV_WR_LOCAL_INV");
	rd = rd_of(at(b, 8192), rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 2: after IBV_WR_LOCAL_INV");
	b_end(b, &rd, 8192, 3);
	mw->rkey = rkey;

	/* The peer's SEND_WITH_INV. */
	rkey = ibv_inc_rkey(mw->rkey);
	b_begin(b, 1);
	b_bind2(b, 0, mw, rkey, b->mr, 8192, LEN, RW, IBV_WC_SUCCESS,
		"bind type 2 again");
	CHECK(ibv_post_recv(b->p[0].qp, &rwr, &rbad) == 0, "post_recv");
	rd = rd_of(0, rkey, IBV_WR_SEND_WITH_INV, 4, IBV_WC_SUCCESS,
		   "type 2: SEND_WITH_INV");
	rd.len = 64;
	dpt_send(b->s, &rd, sizeof(rd));
	dpt_wc(b->p[0].cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "recv w/ inv");
	CHECK((wc.wc_flags & IBV_WC_WITH_INV) && wc.invalidated_rkey == rkey,
	      "the receive has flags 0x%x, rkey 0x%x: want IBV_WC_WITH_INV "
	      "and 0x%x", wc.wc_flags, wc.invalidated_rkey, rkey);
	CHECK(dpt_check(b->buf + 12288, 64, 4) < 0, "SEND_WITH_INV data");
	b->inv++;
	dpt_sync(b->s);
	pairs_down(b->p, b->npairs);
	dpt_log(b->s, "SEND_WITH_INV: IBV_WC_WITH_INV, invalidated_rkey "
		"0x%x", rkey);
	b_begin(b, 1);
	rd = rd_of(at(b, 8192), rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 2: after SEND_WITH_INV");
	b_end(b, &rd, 8192, 3);
	mw->rkey = rkey;

	/* A send that names no window bound there. */
	b_begin(b, 1);
	CHECK(ibv_post_recv(b->p[0].qp, &rwr, &rbad) == 0, "post_recv");
	rd = rd_of(0, rkey ^ 0x5a5a0000u, IBV_WR_SEND_WITH_INV, 4,
		   IBV_WC_REM_INV_REQ_ERR, "SEND_WITH_INV of a wrong rkey");
	rd.len = 64;
	b_end(b, &rd, 8192, 3);
}

/* The same through the extended API: ibv_wr_bind_mw, ibv_wr_local_inv. */
static void type2_ex(struct b *b, struct ibv_mw *mw)
{
	struct ibv_mw_bind_info bi = { .mr = b->mr, .addr = at(b, 0),
				       .length = LEN,
				       .mw_access_flags = RW };
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	struct ibv_qp_ex *x;
	struct round rd;

	b_begin(b, 1);
	x = ibv_qp_to_qp_ex(b->p[0].qp);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, rkey, &bi);
	CHECK(ibv_wr_complete(x) == 0, "ibv_wr_complete (bind)");
	b_bind_wc(b, 0, IBV_WC_SUCCESS, IBV_WC_BIND_MW, "ibv_wr_bind_mw");
	rd = rd_of(at(b, 0), rkey, IBV_WR_RDMA_WRITE, 6, IBV_WC_SUCCESS,
		   "type 2 bound by ibv_wr_bind_mw: WRITE");
	b_end(b, &rd, 0, 6);
	mw->rkey = rkey;

	rkey = ibv_inc_rkey(mw->rkey);
	b_begin(b, 1);
	x = ibv_qp_to_qp_ex(b->p[0].qp);
	ibv_wr_start(x);
	x->wr_id = 6;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, rkey, &bi);
	ibv_wr_local_inv(x, rkey);
	CHECK(ibv_wr_complete(x) == 0, "ibv_wr_complete (bind, invalidate)");
	b_bind_wc(b, 0, IBV_WC_SUCCESS, IBV_WC_BIND_MW, "ibv_wr_bind_mw");
	b_bind_wc(b, 0, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, "ibv_wr_local_inv");
	rd = rd_of(at(b, 0), rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 2: after ibv_wr_local_inv");
	b_end(b, &rd, 0, 6);
	mw->rkey = rkey;
}

static void type2(struct b *b)
{
	struct ibv_mw *mw = ibv_alloc_mw(b->s->pd, IBV_MW_TYPE_2);
	uint32_t rkey;
	struct round rd;

	CHECK(mw && mw->type == IBV_MW_TYPE_2, "ibv_alloc_mw(type 2): %s",
	      strerror(errno));
	rkey = ibv_inc_rkey(mw->rkey);
	/* Bound through pair 1's QP: reachable there, not on pair 0. */
	b_begin(b, 2);
	b_bind2(b, 1, mw, rkey, b->mr, 8192, LEN, RW | RR, IBV_WC_SUCCESS,
		"bind type 2 on QP 1");
	rd = rd_of(at(b, 8192), rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "type 2: through another QP");
	b_end(b, &rd, 8192, 0);
	mw->rkey = rkey;	/* the QP is gone: so is the binding */

	rkey = ibv_inc_rkey(mw->rkey);
	b_begin(b, 1);
	b_bind2(b, 0, mw, rkey, b->mr, 8192, LEN, RW | RR, IBV_WC_SUCCESS,
		"bind type 2");
	rd = rd_of(at(b, 8192), rkey, IBV_WR_RDMA_WRITE, 3, IBV_WC_SUCCESS,
		   "type 2: WRITE through its QP");
	b_end(b, &rd, 8192, 3);
	mw->rkey = rkey;	/* pair destroyed: unbound again */

	type2_inv(b, mw);
	type2_ex(b, mw);

	rkey = ibv_inc_rkey(mw->rkey);
	b_begin(b, 1);
	b_bind2(b, 0, mw, rkey, b->mr, 8192, LEN, RW, IBV_WC_SUCCESS,
		"bind type 2");
	b_bind2(b, 0, mw, ibv_inc_rkey(rkey), b->mr, 8192, LEN, RW,
		IBV_WC_MW_BIND_ERR, "bind of a bound type 2 window");
	b_quiet(b, 8192, 3);
	mw->rkey = rkey;
	CHECK(ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
}

static void bind_errors(struct b *b)
{
	struct ibv_mr *nobind = dpt_mr(b->s, b->buf + 12288, 1024,
				       LW | RW | RR);
	struct ibv_mr *ro = dpt_mr(b->s, b->buf + 14336, 1024,
				   IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = ibv_alloc_mw(b->s->pd, IBV_MW_TYPE_2);
	struct {
		struct ibv_mr *mr;
		uint32_t off, len, key_xor;
		int acc;
		const char *what;
	} c[] = {
		{ nobind, 12288, 512, 0, RW, "an MR without MW_BIND" },
		{ ro, 14336, 512, 0, RW, "remote write, MR without "
		  "LOCAL_WRITE" },
		{ b->mr, BUF - 512, 1024, 0, RR, "a range past the MR" },
		{ b->mr, 0, 512, 0x100, RR, "an rkey with other index bits" },
		{ b->mr, 0, 512, 0, RR | IBV_ACCESS_LOCAL_WRITE,
		  "a local right" },
	};

	CHECK(mw, "ibv_alloc_mw: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		b_begin(b, 1);
		b_bind2(b, 0, mw, ibv_inc_rkey(mw->rkey) ^ c[i].key_xor,
			c[i].mr, c[i].off, c[i].len, c[i].acc,
			IBV_WC_MW_BIND_ERR, c[i].what);
		b_quiet(b, 8192, 3);
		dpt_log(b->s, "bind with %s: IBV_WC_MW_BIND_ERR", c[i].what);
	}
	CHECK(ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
	CHECK(ibv_dereg_mr(nobind) == 0 && ibv_dereg_mr(ro) == 0, "dereg");
}

/* Zero-based type 2 over B's [2048, 2048 + LEN): offsets from 0. */
static void zero_based(struct b *b)
{
	struct ibv_mw *mw = ibv_alloc_mw(b->s->pd, IBV_MW_TYPE_2);
	struct ibv_mw *mw1 = ibv_alloc_mw(b->s->pd, IBV_MW_TYPE_1);
	int zb = RW | RR | IBV_ACCESS_ZERO_BASED;
	struct {
		uint64_t addr;
		uint32_t op, len, seed, want;
		const char *what;
	} c[] = {
		{ 0, IBV_WR_RDMA_WRITE, LEN, 7, IBV_WC_SUCCESS,
		  "zero-based: WRITE at offset 0" },
		{ 0, IBV_WR_RDMA_READ, LEN, 7, IBV_WC_SUCCESS,
		  "zero-based: READ at offset 0" },
		{ 2048, IBV_WR_RDMA_WRITE, LEN, 9, IBV_WC_REM_ACCESS_ERR,
		  "zero-based: the window's own address" },
		{ 8, IBV_WR_RDMA_WRITE, LEN, 9, IBV_WC_REM_ACCESS_ERR,
		  "zero-based: past its length" },
		{ UINT64_MAX - 7, IBV_WR_RDMA_WRITE, 64, 9,
		  IBV_WC_REM_ACCESS_ERR, "zero-based: an offset that wraps" },
	};
	struct ibv_mw_bind b1 = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = b->mr, .addr = at(b, 2048),
			       .length = LEN,
			       .mw_access_flags = (unsigned)zb },
	};

	CHECK(mw && mw1, "ibv_alloc_mw: %s", strerror(errno));
	dpt_fill(b->buf + 2048, LEN, 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint32_t rkey = ibv_inc_rkey(mw->rkey);
		struct round rd;

		b_begin(b, 1);
		b_bind2(b, 0, mw, rkey, b->mr, 2048, LEN, zb, IBV_WC_SUCCESS,
			"bind zero-based type 2");
		mw->rkey = rkey;	/* the pair goes: unbound again */
		rd = rd_of(c[i].addr, rkey, c[i].op, c[i].seed, c[i].want,
			   c[i].what);
		rd.len = c[i].len;
		b_end(b, &rd, 2048, 7);
	}
	/* A zero-based type 1 window is refused (IBA o10-36.2.2). */
	b_begin(b, 1);
	CHECK(ibv_bind_mw(b->p[0].qp, mw1, &b1) == 0, "ibv_bind_mw");
	b_bind_wc(b, 0, IBV_WC_MW_BIND_ERR, IBV_WC_BIND_MW,
		  "zero-based type 1");
	b_quiet(b, 2048, 7);
	CHECK(ibv_dealloc_mw(mw) == 0 && ibv_dealloc_mw(mw1) == 0,
	      "ibv_dealloc_mw");
}

/* A type 1 window of B's second PD over [3072, 3072 + LEN): live
 * through a pair of that PD, nothing through a pair of the first. */
static void other_pd(struct b *b)
{
	struct ibv_pd *pd1 = b->s->pd, *pd2 = ibv_alloc_pd(b->s->ctx);
	struct ibv_mr *mr2;
	struct ibv_mw *mw;
	struct round rd;

	CHECK(pd2, "ibv_alloc_pd: %s", strerror(errno));
	mr2 = ibv_reg_mr(pd2, b->buf, BUF, LW | IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(pd2, IBV_MW_TYPE_1);
	CHECK(mr2 && mw, "PD 2's MR and window: %s", strerror(errno));
	dpt_fill(b->buf + 3072, LEN, 0);
	b->s->pd = pd2;		/* pairs_up makes its QPs in s->pd */
	b_begin(b, 1);
	b->s->pd = pd1;
	b_bind1(b, mw, mr2, 3072, LEN, RW, IBV_WC_SUCCESS,
		"bind type 1 in PD 2");
	rd = rd_of(at(b, 3072), mw->rkey, IBV_WR_RDMA_WRITE, 8,
		   IBV_WC_SUCCESS, "PD 2's window through PD 2's QP");
	b_end(b, &rd, 3072, 8);
	b_begin(b, 1);
	rd = rd_of(at(b, 3072), mw->rkey, IBV_WR_RDMA_WRITE, 9,
		   IBV_WC_REM_ACCESS_ERR, "PD 2's window through PD 1's QP");
	b_end(b, &rd, 3072, 8);
	CHECK(ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
	CHECK(ibv_dereg_mr(mr2) == 0 && ibv_dealloc_pd(pd2) == 0,
	      "PD 2's MR and PD");
}

/* The per-client limit: max_mw windows (no other held), then ENOMEM. */
static void mw_limit(struct b *b, int max_mw)
{
	struct ibv_mw **w = calloc((size_t)max_mw + 1, sizeof(*w));
	int n = 0, err;

	CHECK(w, "calloc");
	while (n <= max_mw && (w[n] = ibv_alloc_mw(b->s->pd, n % 2 ?
						   IBV_MW_TYPE_2 :
						   IBV_MW_TYPE_1)))
		n++;
	err = errno;
	CHECK(n == max_mw && err == ENOMEM, "%d windows allocated, then %s; "
	      "want max_mw %d, then ENOMEM", n, strerror(err), max_mw);
	for (int i = 0; i < n; i++)
		CHECK(ibv_dealloc_mw(w[i]) == 0, "ibv_dealloc_mw");
	free(w);
	b->limit_hits++;
	dpt_log(b->s, "max_mw %d windows allocated, the next one ENOMEM",
		max_mw);
}

static int side_b(struct dpt_side *s)
{
	struct ibv_device_attr da;
	struct head end = { .stop = 1 };
	struct b b = { .s = s };

	CHECK(ibv_query_device(s->ctx, &da) == 0, "ibv_query_device");
	CHECK((da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) &&
	      da.max_mw > 0 && da.max_mw <= 65536, "memory windows not "
	      "advertised (flags 0x%x, max_mw %d)", da.device_cap_flags,
	      da.max_mw);
	mw_limit(&b, da.max_mw);
	b.buf = dpt_buf(BUF);
	b.shadow = malloc(BUF);
	CHECK(b.shadow, "malloc");
	dpt_fill(b.buf + 8192, LEN, 0);	/* type 2's range, before writes */
	b.mr = dpt_mr(s, b.buf, BUF, LW | IBV_ACCESS_MW_BIND);
	type1(&b);
	type2(&b);
	bind_errors(&b);
	zero_based(&b);
	other_pd(&b);
	dpt_log(s, "tally: rem_access=%u mw_refused=%u bound=%u inv=%u "
		"limit_hits=%u", b.rem_access, b.mw_refused, b.bound, b.inv,
		b.limit_hits);
	dpt_send(s, &end, sizeof(end));
	CHECK(ibv_dereg_mr(b.mr) == 0, "ibv_dereg_mr");
	free(b.shadow);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
