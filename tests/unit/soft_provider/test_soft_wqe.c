/* SPDX-License-Identifier: MIT */
/*
 * WQE encoding and its post-time validation, CQE conversion, and the
 * create-time checks of the extended API (soft_wqe.c, soft_qp_ex.c,
 * soft_cq_ex.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/provider/soft_provider.h"

#define ENTRY 256

static _Alignas(8) char slot[ENTRY];

static const struct soft_sq_limits rc_lim = {
	.qp_type = IBV_QPT_RC, .max_sge = 4, .max_inline = 64,
	.entry_size = ENTRY,
};

static void test_soft_wqe__opcode_matrix(void **s)
{
	assert_true(soft_opcode_ok(IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD));
	assert_true(soft_opcode_ok(IBV_QPT_RC, IBV_WR_RDMA_READ));
	assert_true(soft_opcode_ok(IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM));
	assert_false(soft_opcode_ok(IBV_QPT_UC, IBV_WR_RDMA_READ));
	assert_false(soft_opcode_ok(IBV_QPT_UC, IBV_WR_ATOMIC_CMP_AND_SWP));
	assert_true(soft_opcode_ok(IBV_QPT_UD, IBV_WR_SEND_WITH_IMM));
	assert_false(soft_opcode_ok(IBV_QPT_UD, IBV_WR_RDMA_WRITE));
	/* Memory windows: connected QPs; send with invalidate is RC's. */
	assert_true(soft_opcode_ok(IBV_QPT_RC, IBV_WR_LOCAL_INV));
	assert_true(soft_opcode_ok(IBV_QPT_UC, IBV_WR_BIND_MW));
	assert_false(soft_opcode_ok(IBV_QPT_UD, IBV_WR_BIND_MW));
	assert_false(soft_opcode_ok(IBV_QPT_UD, IBV_WR_LOCAL_INV));
	assert_true(soft_opcode_ok(IBV_QPT_RC, IBV_WR_SEND_WITH_INV));
	assert_false(soft_opcode_ok(IBV_QPT_UC, IBV_WR_SEND_WITH_INV));
}

static void test_soft_wqe__rdma_write_with_sges(void **s)
{
	struct ibv_sge sg[2] = {
		{ .addr = 0x1000, .length = 10, .lkey = 5 },
		{ .addr = 0x2000, .length = 20, .lkey = 6 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 77, .sg_list = sg, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0xabcd),
		.wr.rdma = { .remote_addr = 0x9000, .rkey = 42 },
	};
	struct pv_send_wqe *w = (struct pv_send_wqe *)slot;
	struct pv_wqe_sge *out = soft_wqe_sges(w, sizeof(*w));

	assert_int_equal(soft_encode_send(&rc_lim, &wr, w), 0);
	assert_int_equal(w->wr_id, 77);
	assert_int_equal(w->opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_int_equal(w->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(w->imm_data, htonl(0xabcd));
	assert_int_equal(w->remote_addr, 0x9000);
	assert_int_equal(w->rkey, 42);
	assert_int_equal(w->num_sge, 2);
	assert_int_equal(out[1].addr, 0x2000);
	assert_int_equal(out[1].length, 20);
	assert_int_equal(out[1].lkey, 6);
}

static void test_soft_wqe__too_many_sges_is_einval(void **s)
{
	struct ibv_sge sg[5] = { { 0 } };
	struct ibv_send_wr wr = {
		.sg_list = sg, .num_sge = 5, .opcode = IBV_WR_SEND,
	};
	struct soft_sq_limits tight = rc_lim;

	assert_int_equal(soft_encode_send(&rc_lim, &wr, (void *)slot),
			 -EINVAL);
	/* The ring entry bounds it too, whatever the cap says. */
	tight.max_sge = 64;
	tight.entry_size = sizeof(struct pv_send_wqe) + 4 * 16;
	assert_int_equal(soft_encode_send(&tight, &wr, (void *)slot), -EINVAL);
	wr.num_sge = 4;
	assert_int_equal(soft_encode_send(&tight, &wr, (void *)slot), 0);
	wr.num_sge = -1;
	assert_int_equal(soft_encode_send(&tight, &wr, (void *)slot), -EINVAL);
}

static void test_soft_wqe__inline_copies_gather_list(void **s)
{
	char a[] = "hello ", b[] = "world";
	struct ibv_sge sg[2] = {
		{ .addr = (uintptr_t)a, .length = 6 },
		{ .addr = (uintptr_t)b, .length = 5 },
	};
	struct ibv_send_wr wr = {
		.sg_list = sg, .num_sge = 2, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	struct pv_send_wqe *w = (struct pv_send_wqe *)slot;

	assert_int_equal(soft_encode_send(&rc_lim, &wr, w), 0);
	assert_int_equal(w->inline_len, 11);
	assert_int_equal(w->num_sge, 0);
	assert_true(w->send_flags & IBV_SEND_INLINE);
	/* Copied at post time: the app may reuse its buffer at once. */
	a[0] = 'X';
	assert_memory_equal(w + 1, "hello world", 11);
}

/* A zero-length inline SGE with no address (UCX sends zero-byte active
 * messages so) copies nothing and reads nothing (UBSan: memcpy of NULL). */
static void test_soft_wqe__inline_empty_sge_without_address(void **s)
{
	char a[] = "hi";
	struct ibv_sge sg[2] = {
		{ .addr = 0, .length = 0 },
		{ .addr = (uintptr_t)a, .length = 2 },
	};
	struct ibv_send_wr wr = {
		.sg_list = sg, .num_sge = 2, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	struct pv_send_wqe *w = (struct pv_send_wqe *)slot;

	assert_int_equal(soft_encode_send(&rc_lim, &wr, w), 0);
	assert_int_equal(w->inline_len, 2);
	assert_memory_equal(w + 1, "hi", 2);
	wr.num_sge = 1;
	assert_int_equal(soft_encode_send(&rc_lim, &wr, w), 0);
	assert_int_equal(w->inline_len, 0);
}

static void test_soft_wqe__inline_over_max_is_einval(void **s)
{
	static char big[100];
	struct ibv_sge sg = { .addr = (uintptr_t)big, .length = 65 };
	struct ibv_send_wr wr = {
		.sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE,
	};

	assert_int_equal(soft_encode_send(&rc_lim, &wr, (void *)slot),
			 -EINVAL);
	sg.length = 64;
	assert_int_equal(soft_encode_send(&rc_lim, &wr, (void *)slot), 0);
}

static void test_soft_wqe__inline_ignored_for_read_and_atomics(void **s)
{
	struct ibv_sge sg = { .addr = 0x1000, .length = 8, .lkey = 3 };
	struct ibv_send_wr wr = {
		.sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = 0x40, .compare_add = 1,
			       .swap = 2, .rkey = 9 },
	};
	struct pv_send_wqe *w = (struct pv_send_wqe *)slot;

	assert_int_equal(soft_encode_send(&rc_lim, &wr, w), 0);
	assert_int_equal(w->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(w->num_sge, 1);
	assert_int_equal(w->compare_add, 1);
	assert_int_equal(w->swap, 2);
	assert_int_equal(w->rkey, 9);
	assert_int_equal(w->remote_addr, 0x40);
}

static void test_soft_wqe__ud_needs_ah_and_fills_address(void **s)
{
	struct soft_sq_limits ud = rc_lim;
	struct ibv_ah ah = { .handle = 33 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	struct pv_send_wqe *w = (struct pv_send_wqe *)slot;

	ud.qp_type = IBV_QPT_UD;
	assert_int_equal(soft_encode_send(&ud, &wr, w), -EINVAL);
	wr.wr.ud.ah = &ah;
	wr.wr.ud.remote_qpn = 0x123;
	wr.wr.ud.remote_qkey = 0x11111111;
	assert_int_equal(soft_encode_send(&ud, &wr, w), 0);
	assert_int_equal(w->ah_handle, 33);
	assert_int_equal(w->remote_qpn, 0x123);
	assert_int_equal(w->remote_qkey, 0x11111111);
	wr.opcode = IBV_WR_RDMA_WRITE;
	assert_int_equal(soft_encode_send(&ud, &wr, w), -EINVAL);
}

static void test_soft_wqe__recv_encodes_and_checks_sges(void **s)
{
	struct ibv_sge sg[3] = {
		{ .addr = 1, .length = 2, .lkey = 3 },
		{ .addr = 4, .length = 5, .lkey = 6 },
	};
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = sg, .num_sge = 2 };
	struct pv_recv_wqe *w = (struct pv_recv_wqe *)slot;

	assert_int_equal(soft_encode_recv(2, &wr, w), 0);
	assert_int_equal(w->wr_id, 9);
	assert_int_equal(w->num_sge, 2);
	assert_int_equal(soft_wqe_sges(w, sizeof(*w))[1].lkey, 6);
	wr.num_sge = 3;
	assert_int_equal(soft_encode_recv(2, &wr, w), -EINVAL);
}

static void test_soft_wqe__cqe_to_wc_copies_every_field(void **s)
{
	struct pv_cqe c = {
		.wr_id = 5, .status = IBV_WC_REM_ACCESS_ERR,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .vendor_err = 7,
		.byte_len = 100, .imm_data = htonl(3), .qp_num = 0x11,
		.src_qp = 0x22, .wc_flags = IBV_WC_GRH | IBV_WC_WITH_IMM,
		.pkey_index = 1, .slid = 2, .sl = 3, .dlid_path_bits = 4,
	};
	struct ibv_wc wc;

	memset(&wc, 0xff, sizeof(wc));
	soft_cqe_to_wc(&c, &wc);
	assert_int_equal(wc.wr_id, 5);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc.vendor_err, 7);
	assert_int_equal(wc.byte_len, 100);
	assert_int_equal(wc.imm_data, htonl(3));
	assert_int_equal(wc.qp_num, 0x11);
	assert_int_equal(wc.src_qp, 0x22);
	assert_int_equal(wc.wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);
	assert_int_equal(wc.pkey_index, 1);
	assert_int_equal(wc.slid, 2);
	assert_int_equal(wc.sl, 3);
	assert_int_equal(wc.dlid_path_bits, 4);
}

static void test_soft_wqe__qp_ex_ops_refuse_unsupported(void **s)
{
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_RC,
					      IBV_QP_EX_WITH_SEND |
					      IBV_QP_EX_WITH_RDMA_READ |
					      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD),
			 0);
	/* Memory windows: RC and UC; send with invalidate: RC. */
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_RC,
					      IBV_QP_EX_WITH_LOCAL_INV |
					      IBV_QP_EX_WITH_BIND_MW |
					      IBV_QP_EX_WITH_SEND_WITH_INV), 0);
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_UD,
					      IBV_QP_EX_WITH_BIND_MW),
			 -EOPNOTSUPP);
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_UC,
					      IBV_QP_EX_WITH_SEND_WITH_INV),
			 -EOPNOTSUPP);
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_RC, IBV_QP_EX_WITH_TSO),
			 -EOPNOTSUPP);
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_UD,
					      IBV_QP_EX_WITH_RDMA_WRITE),
			 -EOPNOTSUPP);
	assert_int_equal(soft_qp_ex_check_ops(IBV_QPT_UD,
					      IBV_QP_EX_WITH_SEND_WITH_IMM), 0);
}

static void test_soft_wqe__cq_ex_flags_refuse_timestamps(void **s)
{
	assert_int_equal(soft_cq_ex_check_flags(IBV_WC_STANDARD_FLAGS), 0);
	assert_int_equal(soft_cq_ex_check_flags(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP),
			 -EOPNOTSUPP);
	assert_int_equal(soft_cq_ex_check_flags(IBV_WC_EX_WITH_FLOW_TAG),
			 -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_wqe__opcode_matrix),
		cmocka_unit_test(test_soft_wqe__rdma_write_with_sges),
		cmocka_unit_test(test_soft_wqe__too_many_sges_is_einval),
		cmocka_unit_test(test_soft_wqe__inline_copies_gather_list),
		cmocka_unit_test(test_soft_wqe__inline_empty_sge_without_address),
		cmocka_unit_test(test_soft_wqe__inline_over_max_is_einval),
		cmocka_unit_test(test_soft_wqe__inline_ignored_for_read_and_atomics),
		cmocka_unit_test(test_soft_wqe__ud_needs_ah_and_fills_address),
		cmocka_unit_test(test_soft_wqe__recv_encodes_and_checks_sges),
		cmocka_unit_test(test_soft_wqe__cqe_to_wc_copies_every_field),
		cmocka_unit_test(test_soft_wqe__qp_ex_ops_refuse_unsupported),
		cmocka_unit_test(test_soft_wqe__cq_ex_flags_refuse_timestamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
