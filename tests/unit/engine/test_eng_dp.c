/* SPDX-License-Identifier: MIT */
/* Unit tests of the data path's pure pieces: ring geometry and counters,
 * WQE validation, byte-exact range checks, atomics, the UD GRH, timers,
 * and what each verbs opcode and QP state means (eng_wr.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_wr.h"

static void test_eng_dp_ring__geometry_is_pow2_and_fits(void **state)
{
	struct pv_ipc_qp_cap cap = { .max_send_wr = 100, .max_send_sge = 3,
				     .max_inline_data = 200 };
	uint32_t n, esz;

	(void)state;
	eng_dp_sq_geom(&cap, &n, &esz);
	assert_int_equal(n, 128);
	assert_int_equal(esz, 512);	/* 72 + 200 -> 512 */
	cap.max_inline_data = 0;
	eng_dp_sq_geom(&cap, &n, &esz);
	assert_int_equal(esz, 128);	/* 72 + 48 -> 128 */
	cap.max_send_wr = 0;
	eng_dp_sq_geom(&cap, &n, &esz);
	assert_int_equal(n, 1);
	eng_dp_rq_geom(16, 1, &n, &esz);
	assert_int_equal(n, 16);
	assert_int_equal(esz, 32);
	assert_int_equal(eng_dp_cq_entries(1), 2);
	assert_int_equal(eng_dp_cq_entries(4), 8);
	assert_int_equal(eng_dp_cq_entries(7), 8);
	assert_int_equal(eng_dp_ring_bytes(4, 64) % PV_CACHELINE, 0);
	assert_true(eng_dp_ring_bytes(4, 64) >= sizeof(struct pv_ring_hdr) + 256);
}

static void test_eng_dp_ring__consumer_rejects_impossible_prod(void **state)
{
	void *mem = calloc(1, eng_dp_ring_bytes(8, 64));
	struct eng_ring r;

	(void)state;
	eng_dp_ring_init(&r, mem, 8, 64);
	assert_int_equal(r.hdr->magic, PV_RING_MAGIC);
	assert_int_equal(r.hdr->entries_off, sizeof(struct pv_ring_hdr));
	assert_int_equal(eng_dp_ring_avail(&r), 0);
	r.hdr->prod = 3;
	assert_int_equal(eng_dp_ring_avail(&r), 3);
	eng_dp_ring_consume(&r);
	assert_int_equal(r.hdr->cons, 1);
	assert_int_equal(eng_dp_ring_avail(&r), 2);
	r.hdr->prod = 1 + 9;	/* 9 outstanding in an 8-entry ring */
	assert_int_equal(eng_dp_ring_avail(&r), -EPROTO);
	r.hdr->prod = 0;	/* behind the engine: wraps to huge */
	assert_int_equal(eng_dp_ring_avail(&r), -EPROTO);
	free(mem);
}

static void test_eng_dp_ring__counters_wrap(void **state)
{
	void *mem = calloc(1, eng_dp_ring_bytes(4, 64));
	struct eng_ring r;

	(void)state;
	eng_dp_ring_init(&r, mem, 4, 64);
	r.own = 0xfffffffeu;
	r.hdr->prod = 0x1u;	/* 3 past the wrap */
	assert_int_equal(eng_dp_ring_avail(&r), 3);
	assert_ptr_equal(eng_dp_ring_entry(&r, 0xfffffffeu),
			 r.ents + 2 * 64);
	free(mem);
}

static void test_eng_dp_ring__producer_space_and_overrun(void **state)
{
	void *mem = calloc(1, eng_dp_ring_bytes(4, 64));
	struct eng_ring r;

	(void)state;
	eng_dp_ring_init(&r, mem, 4, 64);
	assert_int_equal(eng_dp_ring_space(&r), 4);
	for (int i = 0; i < 4; i++)
		eng_dp_ring_produce(&r);
	assert_int_equal(r.hdr->prod, 4);
	assert_int_equal(eng_dp_ring_space(&r), 0);
	r.hdr->cons = 2;
	assert_int_equal(eng_dp_ring_space(&r), 2);
	r.hdr->cons = 7;	/* ahead of prod: a lying consumer */
	assert_int_equal(eng_dp_ring_space(&r), -EPROTO);
	free(mem);
}

static void test_eng_dp_ring__send_wqe_checks(void **state)
{
	struct pv_ipc_qp_cap cap = { .max_send_wr = 4, .max_send_sge = 2,
				     .max_inline_data = 64 };
	struct pv_send_wqe w = { .opcode = 2 /* SEND */, .num_sge = 2 };

	(void)state;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256), 0);
	w.num_sge = 3;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256),
			 -EINVAL);
	w.num_sge = 2;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 64),
			 -EINVAL);	/* does not fit the entry */
	w.send_flags = 8;	/* INLINE */
	w.inline_len = 64;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256), 0);
	w.inline_len = 65;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256),
			 -EINVAL);
	w.send_flags = 0;
	w.opcode = 4;		/* RDMA_READ: RC only */
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256), 0);
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UC, &cap, 256),
			 -EINVAL);
	w.opcode = 0;		/* RDMA_WRITE: not on UD */
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UC, &cap, 256), 0);
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UD, &cap, 256),
			 -EINVAL);
	w.opcode = 9;		/* SEND_WITH_INV: RC only */
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256), 0);
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UC, &cap, 256),
			 -EINVAL);
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UD, &cap, 256),
			 -EINVAL);
	w.opcode = 8;		/* BIND_MW: connected QPs */
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UC, &cap, 256), 0);
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_UD, &cap, 256),
			 -EINVAL);
	w.opcode = 4;
	w.send_flags = 8;	/* inline read makes no sense */
	w.inline_len = 8;
	assert_int_equal(eng_dp_send_wqe_check(&w, IBV_QPT_RC, &cap, 256),
			 -EINVAL);
}

static void test_eng_dp_ring__recv_wqe_checks(void **state)
{
	struct pv_recv_wqe w = { .num_sge = 2 };

	(void)state;
	assert_int_equal(eng_dp_recv_wqe_check(&w, 2, 64), 0);
	assert_int_equal(eng_dp_recv_wqe_check(&w, 1, 64), -EINVAL);
	assert_int_equal(eng_dp_recv_wqe_check(&w, 2, 32), -EINVAL);
}

static void test_eng_dp_check__range_is_byte_exact(void **state)
{
	(void)state;
	assert_true(eng_dp_range_ok(0x1000, 0x100, 0x1000, 0x100));
	assert_true(eng_dp_range_ok(0x1000, 0x100, 0x10ff, 1));
	assert_true(eng_dp_range_ok(0x1000, 0x100, 0x1100, 0));
	assert_false(eng_dp_range_ok(0x1000, 0x100, 0x10ff, 2));
	assert_false(eng_dp_range_ok(0x1000, 0x100, 0xfff, 1));
	assert_false(eng_dp_range_ok(0x1000, 0x100, 0x1101, 0));
	/* No wrap-around tricks. */
	assert_false(eng_dp_range_ok(0x1000, 0x100, 0x1000, UINT64_MAX));
	assert_false(eng_dp_range_ok(UINT64_MAX - 0xf, 0x10, UINT64_MAX, 2));
	assert_true(eng_dp_range_ok(UINT64_MAX - 0xf, 0x10, UINT64_MAX, 1));
}

static void test_eng_dp_check__remote_rights_per_opcode(void **state)
{
	(void)state;
	assert_int_equal(eng_dp_remote_access_for(0), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(eng_dp_remote_access_for(1), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(eng_dp_remote_access_for(4), IBV_ACCESS_REMOTE_READ);
	assert_int_equal(eng_dp_remote_access_for(5), IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(eng_dp_remote_access_for(6), IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(eng_dp_remote_access_for(2), 0);
}

static void test_eng_dp_check__atomic_semantics(void **state)
{
	uint64_t v = 5;

	(void)state;
	assert_int_equal(eng_dp_atomic_apply(5, &v, 4, 9), 5);	/* no match */
	assert_int_equal(v, 5);
	assert_int_equal(eng_dp_atomic_apply(5, &v, 5, 9), 5);	/* swap */
	assert_int_equal(v, 9);
	assert_int_equal(eng_dp_atomic_apply(6, &v, 3, 0), 9);	/* add */
	assert_int_equal(v, 12);
	v = UINT64_MAX;
	assert_int_equal(eng_dp_atomic_apply(6, &v, 2, 0), UINT64_MAX);
	assert_int_equal(v, 1);					/* wraps */
}

static void test_eng_dp_check__wc_opcodes(void **state)
{
	(void)state;
	assert_int_equal(eng_dp_wc_opcode(2), 0);	/* SEND */
	assert_int_equal(eng_dp_wc_opcode(3), 0);
	assert_int_equal(eng_dp_wc_opcode(0), 1);	/* RDMA_WRITE */
	assert_int_equal(eng_dp_wc_opcode(1), 1);
	assert_int_equal(eng_dp_wc_opcode(4), 2);
	assert_int_equal(eng_dp_wc_opcode(5), 3);
	assert_int_equal(eng_dp_wc_opcode(6), 4);
}

static const uint8_t v4a[16] = { [10] = 0xff, [11] = 0xff, 10, 77, 0, 1 };
static const uint8_t v4b[16] = { [10] = 0xff, [11] = 0xff, 10, 77, 0, 2 };

static void test_eng_dp_grh__ipv4_header_at_20(void **state)
{
	uint8_t g[40];
	uint32_t sum = 0;

	(void)state;
	eng_dp_grh_build(g, v4a, v4b, 100, 0x10, 0, 64);
	for (int i = 0; i < 20; i++)
		assert_int_equal(g[i], 0);
	assert_int_equal(g[20], 0x45);
	assert_int_equal(g[21], 0x10);
	assert_int_equal(g[22] << 8 | g[23], 120);
	assert_int_equal(g[28], 64);
	assert_int_equal(g[29], 17);
	assert_memory_equal(g + 32, v4a + 12, 4);	/* source */
	assert_memory_equal(g + 36, v4b + 12, 4);	/* destination */
	/* A valid header sums to 0xffff (RFC 1071). */
	for (int i = 20; i < 40; i += 2)
		sum += (uint32_t)(g[i] << 8 | g[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	assert_int_equal(sum, 0xffff);
}

static void test_eng_dp_grh__ipv6_header(void **state)
{
	uint8_t a[16] = { 0xfe, 0x80, [15] = 1 }, b[16] = { 0xfe, 0x80, [15] = 2 };
	uint8_t g[40];

	(void)state;
	eng_dp_grh_build(g, a, b, 300, 0xab, 0x12345, 7);
	assert_int_equal(g[0] >> 4, 6);
	assert_int_equal((g[0] & 0xf) << 4 | g[1] >> 4, 0xab);
	assert_int_equal((g[1] & 0xf) << 16 | g[2] << 8 | g[3], 0x12345);
	assert_int_equal(g[4] << 8 | g[5], 300);
	assert_int_equal(g[6], 17);
	assert_int_equal(g[7], 7);
	assert_memory_equal(g + 8, a, 16);
	assert_memory_equal(g + 24, b, 16);
}

/* The destination GID UCX's UD transport finds in a receive (its own GID
 * or the packet is dropped), the way UCX reads it: 1.13 (Debian's; src/uct/
 * ib/ud/base/ud_iface.h uct_ud_iface_check_grh + uct_ud_grh_get_dgid) takes
 * the header type from wc.sl & 7 (2: IPv4); later ones from byte 0 of the
 * buffer (0x6?: IPv6, else IPv4).  An IPv4 GID is the last 4 bytes of the
 * area, made IPv4-mapped again. */
static void ucx_dgid(const uint8_t g[40], bool ipv4, uint8_t out[16])
{
	memcpy(out, g + 24, 16);
	if (ipv4) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
	}
}

static void check_ucx_view(const uint8_t s[16], const uint8_t d[16],
			   bool want_v4)
{
	uint8_t g[40], gid[16];
	uint8_t sl = eng_dp_grh_wc_sl(s, d);

	memset(g, 0xff, sizeof(g));	/* what UCX puts in byte 0 before */
	eng_dp_grh_build(g, s, d, 64, 0, 0, 64);
	assert_int_equal(sl >> 4, 0);		/* 4 bits, as wc.sl's values */
	assert_int_equal(sl & 0x8, 0x8);	/* RoCEv2: a UDP header */
	assert_int_equal((sl & 7) == 2, want_v4);	/* UCX 1.13 */
	ucx_dgid(g, (sl & 7) == 2, gid);
	assert_memory_equal(gid, d, 16);
	assert_int_equal((g[0] & 0xf0) != 0x60, want_v4);	/* later UCX */
	ucx_dgid(g, (g[0] & 0xf0) != 0x60, gid);
	assert_memory_equal(gid, d, 16);
}

static void test_eng_dp_grh__wc_sl_as_ucx_reads_it(void **state)
{
	uint8_t a[16] = { 0xfe, 0x80, [15] = 1 }, b[16] = { 0xfe, 0x80, [15] = 2 };

	(void)state;
	assert_int_equal(eng_dp_grh_wc_sl(v4a, v4b), 0xa);
	assert_int_equal(eng_dp_grh_wc_sl(a, b), 0x9);
	check_ucx_view(v4a, v4b, true);
	check_ucx_view(v4b, v4a, true);
	check_ucx_view(a, b, false);
	/* Mixed families: eng_dp_grh_build writes IPv6, sl must agree. */
	check_ucx_view(a, v4b, false);
}

static void test_eng_dp_timer__rnr_table(void **state)
{
	(void)state;
	assert_int_equal(eng_dp_rnr_ns(0), 655360000ull);
	assert_int_equal(eng_dp_rnr_ns(1), 10000);
	assert_int_equal(eng_dp_rnr_ns(12), 640000);
	assert_int_equal(eng_dp_rnr_ns(14), 1280000);
	assert_int_equal(eng_dp_rnr_ns(31), 491520000ull);
}

static void test_eng_dp_timer__ack_timeout(void **state)
{
	(void)state;
	assert_int_equal(eng_dp_ack_timeout_ns(0), 0);	/* infinite */
	assert_int_equal(eng_dp_ack_timeout_ns(1), 8192);
	assert_int_equal(eng_dp_ack_timeout_ns(14), 4096ull << 14);
	assert_true(eng_dp_now_ns() > 0);
}

/* Every enum ibv_wr_opcode value and a few past it, classified by hand:
 * the predicates must not depend on the enum's order (ATOMIC_WRITE, 15,
 * is no CMP_AND_SWP/FETCH_AND_ADD atomic, and nothing the engine lacks
 * is valid on any QP). */
static void test_eng_wr__every_opcode_classified(void **state)
{
	static const struct {
		uint32_t op;
		bool send, write, read, atomic, imm, lw, inl;
		bool rc, uc, ud;
	} t[] = {
		{ IBV_WR_RDMA_WRITE,	      0, 1, 0, 0, 0, 0, 1, 1, 1, 0 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0 },
		{ IBV_WR_SEND,		      1, 0, 0, 0, 0, 0, 1, 1, 1, 1 },
		{ IBV_WR_SEND_WITH_IMM,	      1, 0, 0, 0, 1, 0, 1, 1, 1, 1 },
		{ IBV_WR_RDMA_READ,	      0, 0, 1, 0, 0, 1, 0, 1, 0, 0 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP,  0, 0, 0, 1, 0, 1, 0, 1, 0, 0 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0 },
		{ IBV_WR_LOCAL_INV,	      0, 0, 0, 0, 0, 0, 0, 1, 1, 0 },
		{ IBV_WR_BIND_MW,	      0, 0, 0, 0, 0, 0, 0, 1, 1, 0 },
		{ IBV_WR_SEND_WITH_INV,	      1, 0, 0, 0, 0, 0, 1, 1, 0, 0 },
		{ IBV_WR_TSO,		      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ IBV_WR_DRIVER1,	      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ IBV_WR_ATOMIC_WRITE,	      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 12,			      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 0x80000005u,		      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ UINT32_MAX,		      0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t op = t[i].op;

		assert_int_equal(eng_wr_is_send(op), t[i].send);
		assert_int_equal(eng_wr_is_write(op), t[i].write);
		assert_int_equal(eng_wr_is_read(op), t[i].read);
		assert_int_equal(eng_wr_is_atomic(op), t[i].atomic);
		assert_int_equal(eng_wr_has_imm(op), t[i].imm);
		assert_int_equal(eng_wr_needs_local_write(op), t[i].lw);
		assert_int_equal(eng_wr_may_inline(op), t[i].inl);
		assert_int_equal(eng_wr_valid_for(op, IBV_QPT_RC), t[i].rc);
		assert_int_equal(eng_wr_valid_for(op, IBV_QPT_UC), t[i].uc);
		assert_int_equal(eng_wr_valid_for(op, IBV_QPT_UD), t[i].ud);
		/* The remote right each asks for follows the same classes. */
		assert_int_equal(eng_dp_remote_access_for(op),
				 t[i].write ? IBV_ACCESS_REMOTE_WRITE :
				 t[i].read ? IBV_ACCESS_REMOTE_READ :
				 t[i].atomic ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	}
}

/* IBA 10.3.1: RTR, RTS, SQD and SQE take incoming messages; RESET, INIT,
 * ERR and anything else do not (UNKNOWN, 7, sorts after ERR). */
static void test_eng_wr__qp_states_that_receive(void **state)
{
	(void)state;
	assert_false(eng_qps_receives(IBV_QPS_RESET));
	assert_false(eng_qps_receives(IBV_QPS_INIT));
	assert_true(eng_qps_receives(IBV_QPS_RTR));
	assert_true(eng_qps_receives(IBV_QPS_RTS));
	assert_true(eng_qps_receives(IBV_QPS_SQD));
	assert_true(eng_qps_receives(IBV_QPS_SQE));
	assert_false(eng_qps_receives(IBV_QPS_ERR));
	assert_false(eng_qps_receives(IBV_QPS_UNKNOWN));
	assert_false(eng_qps_receives(UINT32_MAX));
	for (uint32_t s = IBV_QPS_RESET; s <= IBV_QPS_ERR; s++)
		assert_true(eng_qps_known(s));
	assert_false(eng_qps_known(IBV_QPS_UNKNOWN));
	assert_false(eng_qps_known(UINT32_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_dp_ring__geometry_is_pow2_and_fits),
		cmocka_unit_test(test_eng_dp_ring__consumer_rejects_impossible_prod),
		cmocka_unit_test(test_eng_dp_ring__counters_wrap),
		cmocka_unit_test(test_eng_dp_ring__producer_space_and_overrun),
		cmocka_unit_test(test_eng_dp_ring__send_wqe_checks),
		cmocka_unit_test(test_eng_dp_ring__recv_wqe_checks),
		cmocka_unit_test(test_eng_dp_check__range_is_byte_exact),
		cmocka_unit_test(test_eng_dp_check__remote_rights_per_opcode),
		cmocka_unit_test(test_eng_dp_check__atomic_semantics),
		cmocka_unit_test(test_eng_dp_check__wc_opcodes),
		cmocka_unit_test(test_eng_dp_grh__ipv4_header_at_20),
		cmocka_unit_test(test_eng_dp_grh__ipv6_header),
		cmocka_unit_test(test_eng_dp_grh__wc_sl_as_ucx_reads_it),
		cmocka_unit_test(test_eng_dp_timer__rnr_table),
		cmocka_unit_test(test_eng_dp_timer__ack_timeout),
		cmocka_unit_test(test_eng_wr__every_opcode_classified),
		cmocka_unit_test(test_eng_wr__qp_states_that_receive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
