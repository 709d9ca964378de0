/* SPDX-License-Identifier: MIT */
/* Unit tests of lv_dev_ident.c (pure): a provider device's index never
 * equals a kernel device's of the same list, and its sysfs paths never
 * name a kernel device's folder. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "libverbs/lv_dev_ident.h"

static void test_dev_ident__soft_index_range(void **state)
{
	assert_int_equal(lv_prov_dev_index(1), 0x40000001);
	assert_int_equal(lv_prov_dev_index(65535), 0x40000000 + 65535);
	assert_int_equal(lv_prov_dev_index(0x3fffffff), 0x7fffffff);
	/* No id, or one past the range: no index rather than a wrap. */
	assert_int_equal(lv_prov_dev_index(0), -1);
	assert_int_equal(lv_prov_dev_index(0x40000000), -1);
	assert_int_equal(lv_prov_dev_index(UINT32_MAX), -1);
}

static void test_dev_ident__kernel_1_and_soft_1_differ(void **state)
{
	/* A list: kernel rxe0 (index 1), soft rdma0 (engine id 1), kernel
	 * mlx5_0 (index 0), soft rdma1 (engine id 2). */
	int idx[4] = { 1, lv_prov_dev_index(1), 0, lv_prov_dev_index(2) };
	const bool kern[4] = { true, false, true, false };

	lv_dev_index_unclash(idx, kern, 4);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[2], 0);
	assert_int_equal(idx[1], 0x40000001);
	assert_int_equal(idx[3], 0x40000002);
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			assert_int_not_equal(idx[i], idx[j]);
}

static void test_dev_ident__kernel_holding_soft_index(void **state)
{
	/* A kernel that did reach the range: the kernel's index stands (it
	 * is what RDMA netlink says), the soft device's becomes -1; another
	 * soft device and a kernel -1 (sysfs only) are left alone. */
	int idx[4] = { lv_prov_dev_index(1), 0x40000001, lv_prov_dev_index(7),
		       -1 };
	const bool kern[4] = { false, true, false, true };

	lv_dev_index_unclash(idx, kern, 4);
	assert_int_equal(idx[0], -1);
	assert_int_equal(idx[1], 0x40000001);
	assert_int_equal(idx[2], 0x40000007);
	assert_int_equal(idx[3], -1);
}

static void test_dev_ident__names(void **state)
{
	assert_true(lv_dev_name_ok("rdma0"));
	assert_false(lv_dev_name_ok(""));
	assert_false(lv_dev_name_ok("."));
	assert_false(lv_dev_name_ok(".."));
	assert_false(lv_dev_name_ok("../infiniband/rxe0"));
	assert_false(lv_dev_name_ok(
		"a-name-of-sixty-four-bytes-is-one-too-long-for-a-sysfs-name-xxxx"));
	assert_true(lv_dev_name_kern("uverbs0"));
	assert_true(lv_dev_name_kern("uverbs12"));
	assert_false(lv_dev_name_kern("podverbs"));
	assert_false(lv_dev_name_kern("uverbs1x"));
}

static void test_dev_ident__paths_never_kernel(void **state)
{
	char dp[256], ip[256];

	/* Soft device id 1 named rdma0 where kernel uverbs1 (rxe0) exists:
	 * its dev_path is its stand-in node's name, not uverbs1. */
	assert_int_equal(lv_prov_dev_paths("/sys", "rdma0", "podverbs", false,
					   dp, sizeof(dp), ip, sizeof(ip)), 0);
	assert_string_equal(dp, "/sys/class/infiniband_verbs/podverbs");
	assert_null(strstr(dp, "uverbs1"));
	assert_string_equal(ip, "/sys/class/podverbs/rdma0");
	/* The same name as a kernel device (rxe0), no per-pod tree. */
	assert_int_equal(lv_prov_dev_paths("/sys", "rxe0", "podverbs", false,
					   dp, sizeof(dp), ip, sizeof(ip)), 0);
	assert_string_equal(ip, "/sys/class/podverbs/rxe0");
	/* A per-pod tree holds the device: the usual place, read there. */
	assert_int_equal(lv_prov_dev_paths("/sys", "rdma0", "podverbs", true,
					   dp, sizeof(dp), ip, sizeof(ip)), 0);
	assert_string_equal(ip, "/sys/class/infiniband/rdma0");
	/* A kernel node's dev_name, or a name that climbs: never followed. */
	assert_int_equal(lv_prov_dev_paths("/fx", "../infiniband/rxe0",
					   "uverbs1", true, dp, sizeof(dp), ip,
					   sizeof(ip)), 0);
	assert_string_equal(dp, "/fx/class/infiniband_verbs/podverbs");
	assert_string_equal(ip, "/fx/class/podverbs");
	assert_int_equal(lv_prov_dev_paths("/sys", "rdma0", "../uverbs0", false,
					   dp, sizeof(dp), ip, sizeof(ip)), 0);
	assert_string_equal(dp, "/sys/class/infiniband_verbs/podverbs");
}

static void test_dev_ident__too_long(void **state)
{
	char root[300], dp[256], ip[256];

	memset(root, 'r', sizeof(root) - 1);
	root[0] = '/';
	root[sizeof(root) - 1] = '\0';
	assert_int_equal(lv_prov_dev_paths(root, "rdma0", "podverbs", false,
					   dp, sizeof(dp), ip, sizeof(ip)),
			 -ENAMETOOLONG);
	assert_string_equal(dp, "");
	assert_string_equal(ip, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_ident__soft_index_range),
		cmocka_unit_test(test_dev_ident__kernel_1_and_soft_1_differ),
		cmocka_unit_test(test_dev_ident__kernel_holding_soft_index),
		cmocka_unit_test(test_dev_ident__names),
		cmocka_unit_test(test_dev_ident__paths_never_kernel),
		cmocka_unit_test(test_dev_ident__too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
