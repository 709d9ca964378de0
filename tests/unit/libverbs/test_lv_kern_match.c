/* SPDX-License-Identifier: MIT */
/* Unit tests of kernel device matching (lv_kern_match.c), pure: the match
 * tables are shaped like Debian's providers' (librxe: driver id + name;
 * libmlx5: driver id + PCI ids; a modalias entry as in libefa's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "libverbs/lv_kern.h"

static const struct verbs_match_ent rxe_like[] = {
	{ .u.driver_id = RDMA_DRIVER_RXE, .kind = LV_MATCH_DRIVER_ID },
	{ .u.modalias = "rdma_device:*Nrxe*", .kind = LV_MATCH_MODALIAS },
	{ 0 },
};

static const struct verbs_match_ent mlx5_like[] = {
	{ .u.driver_id = RDMA_DRIVER_MLX5, .kind = LV_MATCH_DRIVER_ID },
	{ .vendor = 0x15b3, .device = 0x1017, .kind = LV_MATCH_PCI },
	{ .vendor = 0x15b3, .device = 0x101b, .kind = LV_MATCH_PCI },
	{ .u.modalias = "vmbus:*", .kind = LV_MATCH_MODALIAS },
	{ 0 },
};

static void test_kern_match__driver_id_first(void **state)
{
	assert_ptr_equal(lv_kern_match_table(rxe_like, RDMA_DRIVER_RXE,
					     "foo0", ""), &rxe_like[0]);
	/* Another driver's id: no id entry, but the name still matches. */
	assert_ptr_equal(lv_kern_match_table(rxe_like, RDMA_DRIVER_MLX5,
					     "rxe0", ""), &rxe_like[1]);
	assert_null(lv_kern_match_table(rxe_like, RDMA_DRIVER_MLX5,
					"mlx5_0", ""));
	assert_null(lv_kern_match_driver_id(rxe_like, RDMA_DRIVER_UNKNOWN));
}

static void test_kern_match__name_and_modalias(void **state)
{
	/* Without netlink rxe has no driver id: the name pattern claims it. */
	assert_ptr_equal(lv_kern_match_table(rxe_like, RDMA_DRIVER_UNKNOWN,
					     "rxe_eth0", NULL), &rxe_like[1]);
	assert_null(lv_kern_match_table(rxe_like, RDMA_DRIVER_UNKNOWN,
					"siw0", NULL));
	assert_ptr_equal(
		lv_kern_match_table(mlx5_like, RDMA_DRIVER_UNKNOWN, "mlx5_0",
				    "pci:v000015B3d0000101Bsv000015B3sd00000007bc02sc00i00"),
		&mlx5_like[2]);
	/* Same vendor, a device id not in the table. */
	assert_null(lv_kern_match_table(mlx5_like, RDMA_DRIVER_UNKNOWN,
					"mlx5_0",
					"pci:v000015B3d00001234sv0sd0bc02sc00i00"));
	assert_ptr_equal(lv_kern_match_table(mlx5_like, RDMA_DRIVER_UNKNOWN,
					     "mlx5_1", "vmbus:0123"),
			 &mlx5_like[3]);
	assert_null(lv_kern_match_table(NULL, RDMA_DRIVER_RXE, "rxe0", ""));
}

static void test_kern_match__driver_names(void **state)
{
	assert_int_equal(lv_kern_driver_id("mlx5_core"), RDMA_DRIVER_MLX5);
	assert_int_equal(lv_kern_driver_id("efa"), RDMA_DRIVER_EFA);
	assert_int_equal(lv_kern_driver_id("e1000e"), RDMA_DRIVER_UNKNOWN);
	assert_int_equal(lv_kern_driver_id(NULL), RDMA_DRIVER_UNKNOWN);
}

static void test_kern_match__node_types(void **state)
{
	assert_int_equal(lv_kern_node_type(1), IBV_NODE_CA);
	assert_int_equal(lv_kern_node_type(4), IBV_NODE_RNIC);
	assert_int_equal(lv_kern_node_type(99), IBV_NODE_UNKNOWN);
	assert_int_equal(lv_kern_transport(IBV_NODE_CA), IBV_TRANSPORT_IB);
	assert_int_equal(lv_kern_transport(IBV_NODE_RNIC), IBV_TRANSPORT_IWARP);
	assert_int_equal(lv_kern_transport(IBV_NODE_UNKNOWN),
			 IBV_TRANSPORT_UNKNOWN);
}

static void test_kern_match__config_lines(void **state)
{
	char name[16];

	assert_int_equal(lv_kern_conf_line("driver rxe\n", name, sizeof(name)), 1);
	assert_string_equal(name, "rxe");
	assert_int_equal(lv_kern_conf_line("  \tdriver\t mlx5 # x\n", name,
					   sizeof(name)), 1);
	assert_string_equal(name, "mlx5");
	assert_int_equal(lv_kern_conf_line("# comment\n", name, sizeof(name)), 0);
	assert_int_equal(lv_kern_conf_line("\n", name, sizeof(name)), 0);
	assert_int_equal(lv_kern_conf_line("", name, sizeof(name)), 0);
	assert_int_equal(lv_kern_conf_line("drivers rxe\n", name, sizeof(name)),
			 -EINVAL);
	assert_int_equal(lv_kern_conf_line("driver\n", name, sizeof(name)),
			 -EINVAL);
	assert_int_equal(lv_kern_conf_line("driver a_very_long_driver_name\n",
					   name, sizeof(name)), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kern_match__driver_id_first),
		cmocka_unit_test(test_kern_match__name_and_modalias),
		cmocka_unit_test(test_kern_match__driver_names),
		cmocka_unit_test(test_kern_match__node_types),
		cmocka_unit_test(test_kern_match__config_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
