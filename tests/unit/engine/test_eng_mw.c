/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine's memory windows (eng_mw.c) and the shared
 * responder check that finds them (eng_dp_rguard.c): a made-up client
 * with a device's key tables, two PDs, an MR with IBV_ACCESS_MW_BIND,
 * QPs and windows entered in its handle table.  Binds are the engine's
 * copies of BIND_MW WQEs as a hostile client could write them; remote
 * accesses are what the same-node and the wire responder ask.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/pv-soft-ring-abi.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

#define IOVA 0x10000ull
#define MRLEN 0x4000ull
#define RR IBV_ACCESS_REMOTE_READ
#define RW IBV_ACCESS_REMOTE_WRITE
#define RA IBV_ACCESS_REMOTE_ATOMIC

struct fx {
	struct eng_conn c;
	struct eng_dev *dev;
	struct eng_pd pd, pd2;
	struct eng_mr mr, mr2, nobind, nolw;
	struct eng_qp qp, qp_b, qp_pd2;
	struct eng_mw *w1, *w2, *w_pd2;	/* made by MW_ALLOC */
};

static void obj_in(struct fx *f, struct eng_obj *o, uint32_t kind)
{
	int64_t h = eng_htab_add(&f->c.handles, o, (uint16_t)kind);

	assert_true(h >= 0);
	o->conn = &f->c;
	o->kind = kind;
	o->handle = (uint32_t)h;
	eng_list_add_tail(&f->c.objs, &o->link);
}

static void mr_in(struct fx *f, struct eng_mr *mr, struct eng_pd *pd,
		  uint64_t iova, uint32_t access)
{
	obj_in(f, &mr->o, PV_OBJ_MR);
	mr->pd = pd;
	mr->iova = iova;
	mr->length = MRLEN;
	mr->access = access;
	assert_int_equal(eng_mrkeys_assign(&f->dev->mrs, mr), 0);
}

/* MW_ALLOC as the dispatcher runs it: 0 or the errno it answers. */
static int mw_alloc(struct fx *f, uint32_t pd_handle, uint32_t type,
		    struct eng_mw **mw)
{
	struct pv_ipc_mw_alloc in = { .pd_handle = pd_handle, .type = type };
	struct pv_ipc_mw_resp out;
	struct eng_req r = { .c = &f->c, .in = &in, .in_len = sizeof(in),
			     .out = &out };
	int ret = eng_op_mw_alloc(&r);

	if (ret == 0) {
		*mw = eng_obj_get(&f->c, out.handle, PV_OBJ_MW);
		assert_non_null(*mw);
		assert_int_equal((*mw)->rkey, out.rkey);
		assert_int_equal(r.out_len, sizeof(out));
	}
	return ret;
}

static int mw_dealloc(struct fx *f, struct eng_mw *mw)
{
	struct pv_ipc_handle in = { .handle = mw->o.handle };
	struct eng_req r = { .c = &f->c, .in = &in, .in_len = sizeof(in) };

	return eng_op_mw_dealloc(&r);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dev = calloc(1, sizeof(*f->dev));
	assert_non_null(f->dev);
	eng_mrkeys_init(&f->dev->mrs);
	eng_htab_init(&f->c.handles);
	eng_list_init(&f->c.objs);
	f->c.dev = f->dev;
	obj_in(f, &f->pd.o, PV_OBJ_PD);
	obj_in(f, &f->pd2.o, PV_OBJ_PD);
	mr_in(f, &f->mr, &f->pd, IOVA,
	      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr_in(f, &f->mr2, &f->pd2, IOVA,
	      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr_in(f, &f->nobind, &f->pd, IOVA, IBV_ACCESS_LOCAL_WRITE | RW | RR);
	mr_in(f, &f->nolw, &f->pd, IOVA, IBV_ACCESS_MW_BIND);
	obj_in(f, &f->qp.o, PV_OBJ_QP);
	f->qp.pd = &f->pd;
	obj_in(f, &f->qp_b.o, PV_OBJ_QP);
	f->qp_b.pd = &f->pd;
	obj_in(f, &f->qp_pd2.o, PV_OBJ_QP);
	f->qp_pd2.pd = &f->pd2;
	assert_int_equal(mw_alloc(f, f->pd.o.handle, IBV_MW_TYPE_1, &f->w1),
			 0);
	assert_int_equal(mw_alloc(f, f->pd.o.handle, IBV_MW_TYPE_2, &f->w2),
			 0);
	assert_int_equal(mw_alloc(f, f->pd2.o.handle, IBV_MW_TYPE_2,
				  &f->w_pd2), 0);
	assert_int_equal(f->pd.o.users, 2);
	memset(eng_stats, 0, sizeof(eng_stats));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->w1)
		assert_int_equal(mw_dealloc(f, f->w1), 0);
	assert_int_equal(mw_dealloc(f, f->w2), 0);
	assert_int_equal(mw_dealloc(f, f->w_pd2), 0);
	assert_int_equal(f->pd.o.users + f->pd2.o.users, 0);
	assert_int_equal(f->mr.o.users + f->mr2.o.users, 0);
	eng_htab_fini(&f->c.handles);
	eng_mrkeys_fini(&f->dev->mrs);
	free(f->dev);
	free(f);
	return 0;
}

/* The next key byte, the index kept. */
static uint32_t next_key(uint32_t rkey)
{
	return (rkey & ~0xffu) | ((rkey + 1) & 0xffu);
}

static int bind(struct eng_qp *qp, struct eng_mw *mw, uint32_t rkey,
		const struct eng_mr *mr, uint64_t addr, uint64_t len,
		uint64_t acc)
{
	struct pv_send_wqe w = {
		.opcode = IBV_WR_BIND_MW, .ah_handle = mw->o.handle,
		.rkey = rkey, .remote_addr = addr, .compare_add = len,
		.swap = acc, .remote_qkey = mr ? mr->lkey : 0,
	};

	return eng_mw_bind(qp, &w);
}

/* What the responder's check answers for rkey at dst. */
static struct eng_mr *remote(struct eng_qp *dst, uint32_t rkey, uint64_t *va,
			     uint64_t len, uint32_t need)
{
	struct eng_dp_msg m = { .rkey = rkey };

	return eng_dp_rguard_mr(dst, &m, va, len, need);
}

static bool reaches(struct eng_qp *dst, uint32_t rkey, uint64_t va,
		    uint64_t len, uint32_t need)
{
	return remote(dst, rkey, &va, len, need) != NULL;
}

/* A type 1 window: within its MR, its rights only, any QP of its PD, a
 * new key per bind, zero length unbinds. */
static void test_eng_mw__type1_bounds_rights_rekey(void **state)
{
	struct fx *f = *state;
	uint32_t k1 = next_key(f->w1->rkey), k2;
	uint64_t a = IOVA + 0x1000;

	assert_int_equal(bind(&f->qp, f->w1, k1, &f->mr, a, 0x400, RW),
			 IBV_WC_SUCCESS);
	assert_int_equal(f->mr.o.users, 1);
	assert_true(reaches(&f->qp, k1, a, 0x400, RW));
	assert_true(reaches(&f->qp_b, k1, a + 0x3f8, 8, RW));
	assert_false(reaches(&f->qp, k1, a - 1, 8, RW));
	assert_false(reaches(&f->qp, k1, a + 0x3f9, 8, RW));
	assert_false(reaches(&f->qp, k1, a, 0x401, RW));
	assert_false(reaches(&f->qp, k1, a, 8, RR));
	assert_false(reaches(&f->qp, k1, a, 8, RA));
	/* The MR's own rkey gets no window rights. */
	assert_false(reaches(&f->qp, f->mr.rkey, a, 8, RW));
	/* Another PD's QP never reaches it. */
	assert_false(reaches(&f->qp_pd2, k1, a, 8, RW));
	/* Another key byte of the same index is not the window's. */
	assert_false(reaches(&f->qp, k1 ^ 0x80u, a, 8, RW));
	assert_int_equal(eng_stats[ENG_STAT_dp_rkey_violations], 8);
	assert_int_equal(f->dev->rguard.rkey_errors, 8);

	/* Rebinding with the key it has is refused; a new key moves it. */
	assert_int_equal(bind(&f->qp, f->w1, k1, &f->mr, a, 0x400, RW),
			 IBV_WC_MW_BIND_ERR);
	k2 = next_key(k1);
	assert_int_equal(bind(&f->qp, f->w1, k2, &f->mr, IOVA, 0x100,
			      RR | RW), IBV_WC_SUCCESS);
	assert_int_equal(f->mr.o.users, 1);
	assert_false(reaches(&f->qp, k1, a, 8, RW));
	assert_true(reaches(&f->qp, k2, IOVA, 0x100, RR));
	assert_false(reaches(&f->qp, k2, a, 8, RW));
	/* Nor can a peer's SEND_WITH_INV take a type 1 window away. */
	assert_false(eng_mw_send_inv(&f->qp, k2));
	assert_true(reaches(&f->qp, k2, IOVA, 8, RR));
	/* Zero length unbinds: the MR is free again. */
	assert_int_equal(bind(&f->qp, f->w1, next_key(k2), NULL, 0, 0, 0),
			 IBV_WC_SUCCESS);
	assert_int_equal(f->mr.o.users, 0);
	assert_false(reaches(&f->qp, next_key(k2), IOVA, 8, RR));
	/* A type 1 window cannot be invalidated. */
	assert_int_equal(eng_mw_local_inv(&f->qp, next_key(k2)),
			 IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(eng_stats[ENG_STAT_mw_bound], 3);
}

/* A hostile bind: each refused with MW_BIND_ERR, counted, nothing
 * bound, the window's rkey unchanged. */
static void test_eng_mw__bind_refusals(void **state)
{
	struct fx *f = *state;
	uint32_t k = next_key(f->w2->rkey), old = f->w2->rkey;
	struct pv_send_wqe w = { .opcode = IBV_WR_BIND_MW,
				 .ah_handle = 0xdead, .rkey = k };
	struct {
		struct eng_qp *qp;
		struct eng_mw *mw;
		uint32_t rkey;
		const struct eng_mr *mr;
		uint64_t addr, len, acc;
	} c[] = {
		{ &f->qp, f->w2, k, &f->nobind, IOVA, 64, RW },
		{ &f->qp, f->w2, k, &f->nolw, IOVA, 64, RW },
		{ &f->qp, f->w2, k, &f->nolw, IOVA, 64, RA },
		{ &f->qp, f->w2, k, &f->mr, IOVA - 1, 64, RR },
		{ &f->qp, f->w2, k, &f->mr, IOVA + MRLEN - 8, 9, RR },
		{ &f->qp, f->w2, k, &f->mr, UINT64_MAX - 7, 16, RR },
		{ &f->qp, f->w2, k, &f->mr2, IOVA, 64, RR },
		{ &f->qp_pd2, f->w2, k, &f->mr2, IOVA, 64, RR },
		{ &f->qp, f->w2, k ^ 0x100u, &f->mr, IOVA, 64, RR },
		{ &f->qp, f->w2, old, &f->mr, IOVA, 64, RR },
		{ &f->qp, f->w2, k, &f->mr, IOVA, 64,
		  RR | IBV_ACCESS_LOCAL_WRITE },
		{ &f->qp, f->w2, k, &f->mr, IOVA, 64, RR | (1ull << 40) },
		{ &f->qp, f->w2, k, &f->mr, IOVA, 0, RR },
		{ &f->qp, f->w1, next_key(f->w1->rkey), &f->mr, IOVA, 64,
		  RR | IBV_ACCESS_ZERO_BASED },
	};

	/* A handle that names no window. */
	assert_int_equal(eng_mw_bind(&f->qp, &w), IBV_WC_MW_BIND_ERR);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		print_message("case %zu\n", i);
		assert_int_equal(bind(c[i].qp, c[i].mw, c[i].rkey, c[i].mr,
				      c[i].addr, c[i].len, c[i].acc),
				 IBV_WC_MW_BIND_ERR);
		assert_null(c[i].mw->mr);
	}
	assert_int_equal(f->w2->rkey, old);
	assert_int_equal(f->mr.o.users + f->mr2.o.users, 0);
	assert_int_equal(eng_stats[ENG_STAT_mw_errors],
			 1 + sizeof(c) / sizeof(c[0]));
	assert_int_equal(eng_stats[ENG_STAT_mw_bound], 0);
}

/* Type 2: only on the QP it was bound through; not bound twice; local
 * invalidate, send with invalidate and the QP's end unbind it. */
static void test_eng_mw__type2_qp_and_invalidate(void **state)
{
	struct fx *f = *state;
	uint32_t k = next_key(f->w2->rkey);

	assert_int_equal(bind(&f->qp, f->w2, k, &f->mr, IOVA, 0x800,
			      RW | RR | RA), IBV_WC_SUCCESS);
	assert_true(reaches(&f->qp, k, IOVA + 0x7f8, 8, RA));
	assert_false(reaches(&f->qp_b, k, IOVA, 8, RW));
	assert_int_equal(bind(&f->qp, f->w2, next_key(k), &f->mr, IOVA, 64,
			      RW), IBV_WC_MW_BIND_ERR);
	/* Invalidates of another rkey, or through another PD, miss. */
	assert_int_equal(eng_mw_local_inv(&f->qp, k ^ 1u),
			 IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(eng_mw_local_inv(&f->qp_pd2, k),
			 IBV_WC_LOC_QP_OP_ERR);
	assert_false(eng_mw_send_inv(&f->qp_b, k));
	assert_true(reaches(&f->qp, k, IOVA, 8, RW));
	/* SEND_WITH_INV arriving on its QP. */
	assert_true(eng_mw_send_inv(&f->qp, k));
	assert_false(reaches(&f->qp, k, IOVA, 8, RW));
	assert_false(eng_mw_send_inv(&f->qp, k));
	assert_int_equal(f->mr.o.users, 0);

	/* Bound again through qp_b: LOCAL_INV from any QP of its PD. */
	k = next_key(k);
	assert_int_equal(bind(&f->qp_b, f->w2, k, &f->mr, IOVA, 64, RW),
			 IBV_WC_SUCCESS);
	assert_false(reaches(&f->qp, k, IOVA, 8, RW));
	assert_int_equal(eng_mw_local_inv(&f->qp, k), IBV_WC_SUCCESS);
	assert_false(reaches(&f->qp_b, k, IOVA, 8, RW));

	/* The QP's end unbinds what was bound through it. */
	k = next_key(k);
	assert_int_equal(bind(&f->qp_b, f->w2, k, &f->mr, IOVA, 64, RW),
			 IBV_WC_SUCCESS);
	assert_int_equal(f->mr.o.users, 1);
	eng_mw_qp_gone(&f->qp_b);
	assert_null(f->w2->mr);
	assert_int_equal(f->mr.o.users, 0);
	assert_int_equal(eng_stats[ENG_STAT_mw_invalidated], 2);
}

/* A window of another PD: its rkey reaches nothing at a QP of this PD,
 * even when bound, and a bind through this PD's QP is refused. */
static void test_eng_mw__other_pd(void **state)
{
	struct fx *f = *state;
	uint32_t k = next_key(f->w_pd2->rkey);

	assert_int_equal(bind(&f->qp, f->w_pd2, k, &f->mr, IOVA, 64, RW),
			 IBV_WC_MW_BIND_ERR);
	assert_int_equal(bind(&f->qp_pd2, f->w_pd2, k, &f->mr2, IOVA, 64,
			      RW), IBV_WC_SUCCESS);
	assert_true(reaches(&f->qp_pd2, k, IOVA, 64, RW));
	assert_false(reaches(&f->qp, k, IOVA, 64, RW));
	assert_false(reaches(&f->qp_b, k, IOVA, 64, RW));
	assert_false(eng_mw_send_inv(&f->qp, k));
	assert_int_equal(eng_mw_local_inv(&f->qp, k), IBV_WC_LOC_QP_OP_ERR);
	assert_true(reaches(&f->qp_pd2, k, IOVA, 64, RW));
}

/* Zero-based type 2: addresses are offsets in [0, length), moved to the
 * MR's address on success; the window's own addresses are not offsets. */
static void test_eng_mw__zero_based(void **state)
{
	struct fx *f = *state;
	uint32_t k = next_key(f->w2->rkey);
	uint64_t start = IOVA + 0x2000, va;

	assert_int_equal(bind(&f->qp, f->w2, k, &f->mr, start, 0x100,
			      RW | RR | IBV_ACCESS_ZERO_BASED),
			 IBV_WC_SUCCESS);
	va = 0;
	assert_ptr_equal(remote(&f->qp, k, &va, 0x100, RW), &f->mr);
	assert_int_equal(va, start);
	va = 0xf8;
	assert_ptr_equal(remote(&f->qp, k, &va, 8, RR), &f->mr);
	assert_int_equal(va, start + 0xf8);
	va = 0xf9;
	assert_null(remote(&f->qp, k, &va, 8, RR));
	assert_int_equal(va, 0xf9);
	assert_false(reaches(&f->qp, k, start, 8, RR));
	assert_false(reaches(&f->qp, k, UINT64_MAX - 3, 8, RR));
	assert_false(reaches(&f->qp, k, 0, 8, RA));
	/* An MR's rkey is never moved. */
	va = IOVA;
	assert_null(remote(&f->qp, f->mr.rkey, &va, 8, RR));
	assert_int_equal(va, IOVA);
}

/* Dealloc takes the index out and unbinds: the old rkey misses, the MR
 * is free again. */
static void test_eng_mw__dealloc_releases(void **state)
{
	struct fx *f = *state;
	uint32_t k = next_key(f->w1->rkey);

	assert_int_equal(bind(&f->qp, f->w1, k, &f->mr, IOVA, 64, RW),
			 IBV_WC_SUCCESS);
	assert_int_equal(f->mr.o.users, 1);
	assert_int_equal(mw_dealloc(f, f->w1), 0);
	f->w1 = NULL;
	assert_int_equal(f->mr.o.users, 0);
	assert_int_equal(f->pd.o.users, 1);
	assert_false(reaches(&f->qp, k, IOVA, 8, RW));
	assert_null(eng_mrkeys_mw_by_rkey(&f->dev->mrs, k));
}

/* MW_ALLOC refuses what a client may not ask: an unknown PD or type,
 * other reserved bytes, windows past the per-client limit (counted). */
static void test_eng_mw__alloc_refusals(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_mw_alloc in = { .pd_handle = f->pd.o.handle,
				      .type = IBV_MW_TYPE_2,
				      .reserved = { 0, 1 } };
	struct pv_ipc_mw_resp out;
	struct eng_req r = { .c = &f->c, .in = &in, .in_len = sizeof(in),
			     .out = &out };
	struct eng_mw *mw = NULL;
	uint64_t lim = eng_lim.max_mw;

	assert_int_equal(mw_alloc(f, 0xdead, IBV_MW_TYPE_2, &mw), -EINVAL);
	assert_int_equal(mw_alloc(f, f->qp.o.handle, IBV_MW_TYPE_2, &mw),
			 -EINVAL);
	assert_int_equal(mw_alloc(f, f->pd.o.handle, 0, &mw), -EINVAL);
	assert_int_equal(mw_alloc(f, f->pd.o.handle, 3, &mw), -EINVAL);
	assert_int_equal(eng_op_mw_alloc(&r), -EINVAL);
	/* The client holds 3 windows: a max_mw of 3 is full. */
	assert_int_equal(f->c.count[PV_OBJ_MW], 3);
	eng_lim.max_mw = 3;
	assert_int_equal(mw_alloc(f, f->pd.o.handle, IBV_MW_TYPE_1, &mw),
			 -ENOMEM);
	assert_int_equal(eng_stats[ENG_STAT_limit_hits], 1);
	eng_lim.max_mw = 4;
	assert_int_equal(mw_alloc(f, f->pd.o.handle, IBV_MW_TYPE_1, &mw),
			 0);
	eng_lim.max_mw = lim;
	assert_int_equal(mw_dealloc(f, mw), 0);
	assert_int_equal(f->pd.o.users, 2);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_eng_mw__type1_bounds_rights_rekey),
		T(test_eng_mw__bind_refusals),
		T(test_eng_mw__type2_qp_and_invalidate),
		T(test_eng_mw__other_pd),
		T(test_eng_mw__zero_based),
		T(test_eng_mw__dealloc_releases),
		T(test_eng_mw__alloc_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
