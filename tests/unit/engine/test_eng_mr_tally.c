/* SPDX-License-Identifier: MIT */
/* Unit tests of the memory-registration tallies: now, peaks, totals,
 * misaligned MRs, the growth window, a client leaving its device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_mr_tally.h"

#define PAGE 4096u
#define SEC (1000ull * 1000 * 1000)

static void test_eng_mr_tally__misaligned_start_or_end(void **state)
{
	(void)state;
	assert_false(eng_mr_misaligned(0x10000, PAGE, PAGE));
	assert_false(eng_mr_misaligned(0x10000, 16 * PAGE, PAGE));
	assert_true(eng_mr_misaligned(0x10000 + 8, PAGE, PAGE));
	assert_true(eng_mr_misaligned(0x10000, PAGE + 1, PAGE));
	assert_true(eng_mr_misaligned(0x10000 + 100, PAGE - 100 + 1, PAGE));
	/* Both ends on boundaries though the start is not the page's. */
	assert_false(eng_mr_misaligned(0x10000 + PAGE, PAGE, PAGE));
}

static void test_eng_mr_tally__now_peak_and_totals(void **state)
{
	struct eng_mr_tally t = { 0 };

	(void)state;
	eng_mr_tally_add(&t, 4 * PAGE, false, 1 * SEC);
	eng_mr_tally_add(&t, 100, true, 2 * SEC);
	eng_mr_tally_add(&t, PAGE, false, 3 * SEC);
	assert_int_equal(t.mrs, 3);
	assert_int_equal(t.bytes, 5 * PAGE + 100);
	assert_int_equal(t.misaligned, 1);
	eng_mr_tally_sub(&t, 100, true, 4 * SEC);
	eng_mr_tally_sub(&t, 4 * PAGE, false, 4 * SEC);
	assert_int_equal(t.mrs, 1);
	assert_int_equal(t.bytes, PAGE);
	assert_int_equal(t.misaligned, 0);
	assert_int_equal(t.peak_mrs, 3);
	assert_int_equal(t.peak_bytes, 5 * PAGE + 100);
	assert_int_equal(t.regs, 3);
	assert_int_equal(t.reg_bytes, 5 * PAGE + 100);
	/* A new peak only once it is passed. */
	eng_mr_tally_add(&t, 4 * PAGE + 100, false, 5 * SEC);
	assert_int_equal(t.peak_bytes, 5 * PAGE + 100);
	eng_mr_tally_add(&t, 1, false, 5 * SEC);
	assert_int_equal(t.peak_bytes, 5 * PAGE + 101);
	assert_int_equal(t.peak_mrs, 3);
}

static void test_eng_mr_tally__release_never_wraps(void **state)
{
	struct eng_mr_tally t = { 0 };

	(void)state;
	eng_mr_tally_sub(&t, PAGE, true, SEC);
	assert_int_equal(t.mrs, 0);
	assert_int_equal(t.bytes, 0);
	assert_int_equal(t.misaligned, 0);
	eng_mr_tally_add(&t, 10, false, SEC);
	eng_mr_tally_sub(&t, 20, false, SEC);
	assert_int_equal(t.bytes, 0);
}

static void test_eng_mr_tally__growth_is_net_bytes_of_the_window(void **state)
{
	struct eng_mr_tally t = { 0 };

	(void)state;
	/* A fresh tally's window starts at its first MR, from zero. */
	eng_mr_tally_add(&t, 3 * PAGE, false, 10 * SEC);
	eng_mr_tally_add(&t, PAGE, false, 20 * SEC);
	assert_int_equal(eng_mr_tally_growth(&t, 30 * SEC), 4 * PAGE);
	eng_mr_tally_sub(&t, 3 * PAGE, false, 40 * SEC);
	assert_int_equal(eng_mr_tally_growth(&t, 50 * SEC), PAGE);
	/* The window ended (60 s after 10 s): a new one from the bytes now. */
	assert_int_equal(eng_mr_tally_growth(&t, 71 * SEC), 0);
	eng_mr_tally_add(&t, 2 * PAGE, false, 80 * SEC);
	assert_int_equal(eng_mr_tally_growth(&t, 90 * SEC), 2 * PAGE);
	/* Shrinking shows as negative growth. */
	eng_mr_tally_sub(&t, 2 * PAGE, false, 100 * SEC);
	eng_mr_tally_sub(&t, PAGE, false, 100 * SEC);
	assert_int_equal(eng_mr_tally_growth(&t, 100 * SEC), -(int64_t)PAGE);
}

static void test_eng_mr_tally__drop_takes_a_client_off_its_device(void **state)
{
	struct eng_mr_tally dev = { 0 }, a = { 0 }, b = { 0 };

	(void)state;
	eng_mr_tally_add(&a, PAGE, true, SEC);
	eng_mr_tally_add(&dev, PAGE, true, SEC);
	eng_mr_tally_add(&b, 2 * PAGE, false, SEC);
	eng_mr_tally_add(&dev, 2 * PAGE, false, SEC);
	eng_mr_tally_drop(&dev, &a, 2 * SEC);
	assert_int_equal(dev.mrs, 1);
	assert_int_equal(dev.bytes, 2 * PAGE);
	assert_int_equal(dev.misaligned, 0);
	assert_int_equal(dev.peak_mrs, 2);
	assert_int_equal(dev.regs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_mr_tally__misaligned_start_or_end),
		cmocka_unit_test(test_eng_mr_tally__now_peak_and_totals),
		cmocka_unit_test(test_eng_mr_tally__release_never_wraps),
		cmocka_unit_test(test_eng_mr_tally__growth_is_net_bytes_of_the_window),
		cmocka_unit_test(test_eng_mr_tally__drop_takes_a_client_off_its_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
