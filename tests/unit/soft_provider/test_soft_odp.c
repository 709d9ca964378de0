/* SPDX-License-Identifier: MIT */
/* Unit tests of the soft provider's on-demand paging: ibv_advise_mr's
 * argument and per-SGE checks (mlx5's errnos), the implicit-ODP test,
 * the reported capabilities, and the table of MRs by lkey. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/provider/soft_provider.h"

#define P IBV_ADVISE_MR_ADVICE_PREFETCH
#define PW IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define NF IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT
#define F IBV_ADVISE_MR_FLAG_FLUSH

static void test_soft_odp__args(void **state)
{
	struct ibv_sge sg = { 0 };

	(void)state;
	assert_int_equal(soft_odp_check_args(P, 0, &sg, 1), 0);
	assert_int_equal(soft_odp_check_args(PW, F, &sg, 1), 0);
	assert_int_equal(soft_odp_check_args(NF, F, &sg, 4095), 0);
	assert_int_equal(soft_odp_check_args(P, F, &sg, 0), -EINVAL);
	assert_int_equal(soft_odp_check_args(P, F, &sg, 4096), -EINVAL);
	assert_int_equal(soft_odp_check_args(P, F, NULL, 1), -EFAULT);
	assert_int_equal(soft_odp_check_args(P, 2, &sg, 1), -EINVAL);
	assert_int_equal(soft_odp_check_args(P, 0x80000000u, &sg, 1), -EINVAL);
	assert_int_equal(soft_odp_check_args(3, F, &sg, 1), -EOPNOTSUPP);
	/* The kernel's order: the list's size and the flags first. */
	assert_int_equal(soft_odp_check_args(3, 2, &sg, 1), -EINVAL);
	assert_int_equal(soft_odp_check_args(3, F, &sg, 0), -EINVAL);
}

static void test_soft_odp__sge(void **state)
{
	struct soft_mr m = {
		.lkey = 0x100, .pd_handle = 7, .iova = 0x10000,
		.addr = 0x7f0000001000, .length = 0x3000,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
	};
	struct ibv_sge sg = { 0x10800, 0x100, 0x100 };
	uintptr_t s = 0, e = 0;

	(void)state;
	assert_int_equal(soft_odp_check_sge(&m, 7, PW, &sg, &s, &e), 0);
	assert_int_equal(s, 0x7f0000001800);
	assert_int_equal(e, 0x7f0000001900);
	sg = (struct ibv_sge){ 0x10000, 0x3000, 0x100 };
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), 0);
	assert_int_equal(e - s, 0x3000);
	assert_int_equal(soft_odp_check_sge(&m, 8, P, &sg, &s, &e), -EPERM);
	sg.length = 0x3001;
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), -EFAULT);
	sg = (struct ibv_sge){ 0xffff, 2, 0x100 };
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), -EFAULT);
	sg = (struct ibv_sge){ 0x13000, 0, 0x100 };
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), -EFAULT);
	sg = (struct ibv_sge){ UINT64_MAX, 0xffffffffu, 0x100 };
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), -EFAULT);
	/* No writing right: PREFETCH_WRITE only is refused. */
	sg = (struct ibv_sge){ 0x10000, 0x10, 0x100 };
	m.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND;
	assert_int_equal(soft_odp_check_sge(&m, 7, PW, &sg, &s, &e), -EPERM);
	assert_int_equal(soft_odp_check_sge(&m, 7, NF, &sg, &s, &e), 0);
	m.access = IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND;
	assert_int_equal(soft_odp_check_sge(&m, 7, PW, &sg, &s, &e), 0);
	/* Not on demand: as if no such key. */
	m.access = IBV_ACCESS_LOCAL_WRITE;
	assert_int_equal(soft_odp_check_sge(&m, 7, P, &sg, &s, &e), -ENOENT);
}

static void test_soft_odp__implicit_and_caps(void **state)
{
	struct ibv_device_attr_ex a;
	int buf;

	(void)state;
	assert_true(soft_odp_implicit(NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND));
	assert_false(soft_odp_implicit(NULL, SIZE_MAX, 0));
	assert_false(soft_odp_implicit(&buf, SIZE_MAX, IBV_ACCESS_ON_DEMAND));
	assert_false(soft_odp_implicit(NULL, 4096, IBV_ACCESS_ON_DEMAND));
	memset(&a, 0, sizeof(a));
	soft_odp_caps(&a);
	assert_int_equal(a.odp_caps.general_caps, IBV_ODP_SUPPORT);
	assert_int_equal(a.odp_caps.per_transport_caps.rc_odp_caps, 0x3f);
	assert_int_equal(a.odp_caps.per_transport_caps.ud_odp_caps,
			 IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV);
}

static void test_soft_odp__mr_tab(void **state)
{
	struct soft_mr_tab *t;
	struct soft_mr m[600], got, now;

	(void)state;
	assert_int_equal(soft_mr_tab_new(&t), 0);
	for (int i = 0; i < 600; i++) {
		m[i] = (struct soft_mr){ .lkey = (uint32_t)i << 8 | 0x11,
					 .length = (uint64_t)i };
		soft_mr_tab_add(t, &m[i]);
	}
	for (int i = 0; i < 600; i++) {
		assert_int_equal(soft_mr_tab_find(t, m[i].lkey, &got), 0);
		assert_int_equal(got.length, i);
		assert_null(got.next);
	}
	assert_int_equal(soft_mr_tab_find(t, 5 << 8 | 0x12, &got), -ENOENT);
	/* rereg: a new key, the old one gone. */
	now = m[5];
	now.lkey = 5 << 8 | 0x12;
	now.access = IBV_ACCESS_ON_DEMAND;
	soft_mr_tab_update(t, &m[5], &now);
	assert_int_equal(soft_mr_tab_find(t, 5 << 8 | 0x11, &got), -ENOENT);
	assert_int_equal(soft_mr_tab_find(t, 5 << 8 | 0x12, &got), 0);
	assert_int_equal(got.access, IBV_ACCESS_ON_DEMAND);
	for (int i = 0; i < 600; i += 2)
		soft_mr_tab_remove(t, &m[i]);
	for (int i = 0; i < 600; i++)
		assert_int_equal(soft_mr_tab_find(t, m[i].lkey, &got),
				 i % 2 ? 0 : -ENOENT);
	soft_mr_tab_free(t);
	soft_mr_tab_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_odp__args),
		cmocka_unit_test(test_soft_odp__sge),
		cmocka_unit_test(test_soft_odp__implicit_and_caps),
		cmocka_unit_test(test_soft_odp__mr_tab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
