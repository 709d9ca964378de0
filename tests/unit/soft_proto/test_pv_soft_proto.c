/* SPDX-License-Identifier: MIT */
/* Unit tests of the soft device's protocol tables (providers/soft/proto/):
 * request sizes, fds and names per op, and the GID claims of ADM_DEV_ADD. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "providers/soft/proto/pv_gid_claim.h"
#include "providers/soft/proto/pv_ipc_ops.h"

static void test_pv_ipc_ops__size_table(void **state)
{
	uint32_t lo, hi;

	(void)state;
	assert_int_equal(pv_ipc_req_size(PV_OP_QP_MODIFY, &lo, &hi), 0);
	assert_int_equal(lo, sizeof(struct pv_ipc_qp_modify));
	assert_int_equal(hi, lo);
	/* The listings take an optional page request. */
	assert_int_equal(pv_ipc_req_size(PV_OP_DEV_LIST, &lo, &hi), 0);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, sizeof(struct pv_ipc_list_req));
	assert_int_equal(pv_ipc_req_size(PV_OP_ADM_DEV_LIST, &lo, &hi), 0);
	assert_int_equal(hi, sizeof(struct pv_ipc_list_req));
	assert_int_equal(pv_ipc_req_size(120, &lo, &hi), -EOPNOTSUPP);
	assert_int_equal(pv_ipc_req_size(0xffff, &lo, &hi), -EOPNOTSUPP);
	assert_string_equal(pv_ipc_op_name(PV_OP_ADM_DEV_ADD), "ADM_DEV_ADD");
	assert_string_equal(pv_ipc_op_name(200), "?");
	/* MR_REG optionally carries the backing description */
	assert_int_equal(pv_ipc_req_size(PV_OP_MR_REG, &lo, &hi), 0);
	assert_int_equal(lo, sizeof(struct pv_ipc_mr_reg));
	assert_int_equal(hi, lo + sizeof(struct pv_ipc_mr_backing));
	assert_int_equal(pv_ipc_req_size(PV_OP_QP_MAP, &lo, &hi), 0);
	assert_int_equal(lo, sizeof(struct pv_ipc_handle));
	assert_string_equal(pv_ipc_op_name(PV_OP_CTX_MAP), "CTX_MAP");
	assert_int_equal(pv_ipc_req_size(PV_OP_QP_OPEN, &lo, &hi), 0);
	assert_int_equal(lo, sizeof(struct pv_ipc_qp_open));
	assert_int_equal(hi, lo);
	assert_string_equal(pv_ipc_op_name(PV_OP_QP_OPEN), "QP_OPEN");
}

/* Only HELLO (a netns), MR_REG and MR_REREG (a memfd) and XRCD (the
 * domain's file) take an fd. */
static void test_pv_ipc_ops__fd_table(void **state)
{
	enum pv_ipc_fd_kind k;

	assert_int_equal(pv_ipc_req_fds(PV_OP_HELLO, &k), 1);
	assert_int_equal(k, PV_IPC_FD_NETNS);
	assert_int_equal(pv_ipc_req_fds(PV_OP_MR_REG, &k), 1);
	assert_int_equal(k, PV_IPC_FD_MEMFD);
	assert_int_equal(pv_ipc_req_fds(PV_OP_MR_REREG, &k), 1);
	assert_int_equal(k, PV_IPC_FD_MEMFD);
	assert_int_equal(pv_ipc_req_fds(PV_OP_XRCD, &k), 1);
	assert_int_equal(k, PV_IPC_FD_FILE);
	for (uint16_t op = 0; op <= PV_OP_MAX; op++) {
		if (op == PV_OP_HELLO || op == PV_OP_MR_REG ||
		    op == PV_OP_MR_REREG || op == PV_OP_XRCD)
			continue;
		assert_int_equal(pv_ipc_req_fds(op, &k), 0);
		assert_int_equal(k, PV_IPC_FD_NONE);
	}
	assert_int_equal(pv_ipc_req_fds(0xffff, &k), 0);
}

static void test_pv_gid_claim__addresses_to_gids(void **state)
{
	struct pv_ipc_adm_dev_claims c = { 0 };
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 78, 0, 2 };
	uint32_t flags = 0;
	char a[32];

	(void)state;
	assert_int_equal(pv_gid_claim_add(&c, &flags, "10.78.0.2/24"), 0);
	assert_int_equal(pv_gid_claim_add(&c, &flags, "10.78.0.2"), 0);
	assert_int_equal(c.count, 1);
	assert_memory_equal(c.gid[0], v4, 16);
	assert_int_equal(flags, PV_ADM_DEV_ADD_CLAIMS);
	assert_int_equal(pv_gid_claim_add(&c, &flags, "fd00::1/64"), 0);
	assert_int_equal(c.gid[1][0], 0xfd);
	assert_int_equal(c.gid[1][15], 1);
	assert_int_equal(pv_gid_claim_add(&c, &flags, "nonsense"), -EINVAL);
	assert_int_equal(pv_gid_claim_add(&c, &flags, "/24"), -EINVAL);
	for (int i = 2; i < PV_GID_CLAIM_MAX; i++) {
		snprintf(a, sizeof(a), "10.0.0.%d", i);
		assert_int_equal(pv_gid_claim_add(&c, &flags, a), 0);
	}
	assert_int_equal(pv_gid_claim_add(&c, &flags, "10.9.9.9"), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pv_ipc_ops__size_table),
		cmocka_unit_test(test_pv_ipc_ops__fd_table),
		cmocka_unit_test(test_pv_gid_claim__addresses_to_gids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
