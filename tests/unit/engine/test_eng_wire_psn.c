/* SPDX-License-Identifier: MIT */
/* Unit tests of 24-bit PSN arithmetic (eng_wire_psn.h, IBA 9.7.1): the
 * wrap at 0xFFFFFF/0 and the half-window ambiguity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_psn.h"

static void test_eng_wire_psn__add_and_sub_wrap(void **state)
{
	(void)state;
	assert_int_equal(eng_psn_add(0xfffffe, 1), 0xffffff);
	assert_int_equal(eng_psn_add(0xffffff, 1), 0);
	assert_int_equal(eng_psn_add(0xffffff, 5), 4);
	assert_int_equal(eng_psn_add(0x123456, 0x1000000), 0x123456);
	assert_int_equal(eng_psn_sub(0, 1), 0xffffff);
	assert_int_equal(eng_psn_sub(3, 5), 0xfffffe);
	/* Garbage above bit 23 never leaks out. */
	assert_int_equal(eng_psn_add(0xff000001, 0), 1);
}

static void test_eng_wire_psn__diff_is_signed_24_bit(void **state)
{
	(void)state;
	assert_int_equal(eng_psn_diff(0, 0xffffff), 1);
	assert_int_equal(eng_psn_diff(0xffffff, 0), -1);
	assert_int_equal(eng_psn_diff(5, 0xfffffb), 10);
	assert_int_equal(eng_psn_diff(0xfffffb, 5), -10);
	assert_int_equal(eng_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(eng_psn_diff(0x800001, 0), -0x7fffff);
	assert_int_equal(eng_psn_diff(1234, 1234), 0);
	/* Every value round-trips: b + diff(a, b) == a. */
	for (uint32_t a = 0; a < 0x1000000; a += 0x10001)
		for (uint32_t i = 0; i < 64; i++) {
			uint32_t b = (0xfff000 + i * 0x111) & 0xffffff;

			assert_int_equal(eng_psn_add(b, (uint32_t)eng_psn_diff(a, b)), a);
		}
}

static void test_eng_wire_psn__before_after_across_the_wrap(void **state)
{
	(void)state;
	assert_true(eng_psn_before(0xffffff, 0));
	assert_true(eng_psn_after(0, 0xffffff));
	assert_true(eng_psn_before(0xfffff0, 0x10));
	assert_false(eng_psn_after(0xfffff0, 0x10));
	assert_false(eng_psn_before(7, 7));
	assert_false(eng_psn_after(7, 7));
	/* Just inside half the space either way. */
	assert_true(eng_psn_after(0x7fffff, 0));
	assert_true(eng_psn_before(0, 0x7fffff));
	assert_true(eng_psn_before(0x800001, 0));
	assert_true(eng_psn_after(0, 0x800001));
}

static void test_eng_wire_psn__half_window_is_ambiguous(void **state)
{
	(void)state;
	/* 0x800000 apart: both read as "before" the other (documented). */
	assert_int_equal(eng_psn_diff(0x800000, 0), -0x800000);
	assert_int_equal(eng_psn_diff(0, 0x800000), -0x800000);
	assert_true(eng_psn_before(0, 0x800000));
	assert_true(eng_psn_before(0x800000, 0));
	assert_false(eng_psn_after(0, 0x800000));
	assert_true(eng_psn_before(0xc00000, 0x400000));
	assert_true(eng_psn_before(0x400000, 0xc00000));
}

static void test_eng_wire_psn__window_membership(void **state)
{
	(void)state;
	assert_true(eng_psn_in_window(0xfffffe, 0xfffffe, 4));
	assert_true(eng_psn_in_window(0xffffff, 0xfffffe, 4));
	assert_true(eng_psn_in_window(0, 0xfffffe, 4));
	assert_true(eng_psn_in_window(1, 0xfffffe, 4));
	assert_false(eng_psn_in_window(2, 0xfffffe, 4));
	assert_false(eng_psn_in_window(0xfffffd, 0xfffffe, 4));
	assert_false(eng_psn_in_window(5, 5, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_wire_psn__add_and_sub_wrap),
		cmocka_unit_test(test_eng_wire_psn__diff_is_signed_24_bit),
		cmocka_unit_test(test_eng_wire_psn__before_after_across_the_wrap),
		cmocka_unit_test(test_eng_wire_psn__half_window_is_ambiguous),
		cmocka_unit_test(test_eng_wire_psn__window_membership),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
