/* SPDX-License-Identifier: MIT */
/* Unit tests of the engine's pure pieces: index and handle tables, MTU
 * mapping, GUID from MAC, memory keys, limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_handles.h"
#include "providers/soft/engine/eng_idtab.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_port.h"

static void test_eng_idtab__respects_min_and_max(void **state)
{
	struct eng_idtab t;
	int x;

	(void)state;
	eng_idtab_init(&t, 2, 5);
	for (int i = 2; i <= 5; i++)
		assert_int_equal(eng_idtab_alloc(&t, &x), i);
	assert_int_equal(eng_idtab_alloc(&t, &x), -ENOMEM);
	assert_null(eng_idtab_get(&t, 0));
	assert_null(eng_idtab_get(&t, 1));
	assert_ptr_equal(eng_idtab_get(&t, 3), &x);
	eng_idtab_fini(&t);
}

static void test_eng_idtab__freed_index_not_reused_at_once(void **state)
{
	struct eng_idtab t;
	int x;

	(void)state;
	eng_idtab_init(&t, 2, 1000);
	int64_t a = eng_idtab_alloc(&t, &x);
	int64_t b = eng_idtab_alloc(&t, &x);

	eng_idtab_free(&t, (uint32_t)a);
	assert_null(eng_idtab_get(&t, (uint32_t)a));
	int64_t c = eng_idtab_alloc(&t, &x);

	assert_true(c != a && c != b);
	assert_int_equal(t.used, 2);
	eng_idtab_free(&t, 999);	/* never allocated: no-op */
	assert_int_equal(t.used, 2);
	eng_idtab_fini(&t);
}

static void test_eng_idtab__wraps_to_free_slots(void **state)
{
	struct eng_idtab t;
	int x;

	(void)state;
	eng_idtab_init(&t, 1, 3);
	assert_int_equal(eng_idtab_alloc(&t, &x), 1);
	assert_int_equal(eng_idtab_alloc(&t, &x), 2);
	assert_int_equal(eng_idtab_alloc(&t, &x), 3);
	eng_idtab_free(&t, 2);
	assert_int_equal(eng_idtab_alloc(&t, &x), 2);
	eng_idtab_fini(&t);
}

static void test_eng_handles__never_zero_and_kind_checked(void **state)
{
	struct eng_htab t;
	int a, b;

	(void)state;
	eng_htab_init(&t);
	int64_t ha = eng_htab_add(&t, &a, 1);
	int64_t hb = eng_htab_add(&t, &b, 2);

	assert_true(ha > 0 && hb > 0 && ha != hb);
	assert_ptr_equal(eng_htab_get(&t, (uint32_t)ha, 1), &a);
	assert_null(eng_htab_get(&t, (uint32_t)ha, 2));
	assert_null(eng_htab_get(&t, 0, 1));
	assert_null(eng_htab_get(&t, 0xffffffffu, 1));
	eng_htab_fini(&t);
}

static void test_eng_handles__stale_handle_rejected_after_reuse(void **state)
{
	struct eng_htab t;
	int a, b;

	(void)state;
	eng_htab_init(&t);
	int64_t ha = eng_htab_add(&t, &a, 1);

	assert_int_equal(eng_htab_del(&t, (uint32_t)ha), 0);
	assert_int_equal(eng_htab_del(&t, (uint32_t)ha), -ENOENT);
	int64_t hb = eng_htab_add(&t, &b, 1);

	assert_int_equal(hb & 0xffff, ha & 0xffff);	/* same slot */
	assert_true(hb != ha);
	assert_null(eng_htab_get(&t, (uint32_t)ha, 1));
	assert_ptr_equal(eng_htab_get(&t, (uint32_t)hb, 1), &b);
	eng_htab_fini(&t);
}

static void test_eng_handles__many(void **state)
{
	struct eng_htab t;
	int x;

	(void)state;
	eng_htab_init(&t);
	for (int i = 0; i < 5000; i++)
		assert_true(eng_htab_add(&t, &x, 3) > 0);
	assert_int_equal(t.used, 5000);
	eng_htab_fini(&t);
}

static void test_eng_port__ib_mtu_from_netdev_mtu(void **state)
{
	(void)state;
	assert_int_equal(eng_port_ib_mtu(1500), 3);	/* 1024 */
	assert_int_equal(eng_port_ib_mtu(9000), 5);	/* 4096 */
	assert_int_equal(eng_port_ib_mtu(4096), 4);	/* headers don't fit */
	assert_int_equal(eng_port_ib_mtu(4096 + ENG_ROCE_OVERHEAD), 5);
	assert_int_equal(eng_port_ib_mtu(2048 + ENG_ROCE_OVERHEAD - 1), 3);
	assert_int_equal(eng_port_ib_mtu(256 + ENG_ROCE_OVERHEAD), 1);
	assert_int_equal(eng_port_ib_mtu(68), 0);
	assert_int_equal(eng_port_mtu_bytes(3), 1024);
	assert_int_equal(eng_port_mtu_bytes(0), 0);
	assert_int_equal(eng_port_mtu_bytes(6), 0);
}

static void test_eng_port__guid_is_modified_eui64(void **state)
{
	const uint8_t mac[6] = { 0x02, 0x42, 0xac, 0x11, 0x00, 0x02 };
	const uint8_t want[8] = { 0x00, 0x42, 0xac, 0xff, 0xfe, 0x11, 0x00,
				  0x02 };
	uint64_t g;

	(void)state;
	g = eng_port_guid_from_mac(mac);
	assert_memory_equal(&g, want, 8);
}

static void test_eng_port__keys_carry_index(void **state)
{
	(void)state;
	assert_int_equal(eng_key_make(5, 0xab), 0x5ab);
	assert_int_equal(eng_key_index(eng_key_make(0xffffff, 7)), 0xffffff);
	assert_int_equal(eng_key_make(1, 0) != 0, 1);
}

static void test_eng_limits__set_and_reject(void **state)
{
	uint64_t old = eng_lim.max_qp;

	(void)state;
	assert_int_equal(eng_limits_set("max_qp=17"), 0);
	assert_int_equal(eng_lim.max_qp, 17);
	assert_int_equal(eng_limits_set("max_qp=0"), -ERANGE);
	assert_int_equal(eng_limits_set("max_qp=-1"), -ERANGE);
	assert_int_equal(eng_limits_set("max_qp=x"), -ERANGE);
	assert_int_equal(eng_limits_set("no_such=1"), -EINVAL);
	assert_int_equal(eng_limits_set("max_qp"), -EINVAL);
	assert_int_equal(eng_limits_set_one("max_devices",
					    ENG_DEVICES_HARD_MAX + 1), -ERANGE);
	eng_lim.max_qp = old;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_idtab__respects_min_and_max),
		cmocka_unit_test(test_eng_idtab__freed_index_not_reused_at_once),
		cmocka_unit_test(test_eng_idtab__wraps_to_free_slots),
		cmocka_unit_test(test_eng_handles__never_zero_and_kind_checked),
		cmocka_unit_test(test_eng_handles__stale_handle_rejected_after_reuse),
		cmocka_unit_test(test_eng_handles__many),
		cmocka_unit_test(test_eng_port__ib_mtu_from_netdev_mtu),
		cmocka_unit_test(test_eng_port__guid_is_modified_eui64),
		cmocka_unit_test(test_eng_port__keys_carry_index),
		cmocka_unit_test(test_eng_limits__set_and_reject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
