/* SPDX-License-Identifier: MIT */
/* Per-device shares of the engine's fds, mappings and bytes (eng_quota.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_quota.h"

/* A device gets up to its own limit, never past it. */
static void test_eng_quota__device_limit(void **state)
{
	assert_true(eng_quota_fits(0, 0, 10, 10, 1000, 100));
	assert_true(eng_quota_fits(9, 9, 1, 10, 1000, 100));
	assert_false(eng_quota_fits(10, 10, 1, 10, 1000, 100));
	assert_false(eng_quota_fits(0, 0, 11, 10, 1000, 100));
}

/* All devices together never eat into the reserve: the last fds and
 * mappings stay the engine's, whoever asks. */
static void test_eng_quota__engine_reserve(void **state)
{
	assert_true(eng_quota_fits(0, 899, 1, 500, 1000, 100));
	assert_false(eng_quota_fits(0, 900, 1, 500, 1000, 100));
	assert_false(eng_quota_fits(0, 0, 901, 1000, 1000, 100));
	/* A reserve as large as the total leaves nothing to share. */
	assert_false(eng_quota_fits(0, 0, 1, 500, 100, 100));
	assert_false(eng_quota_fits(0, 0, 1, 500, 50, 100));
}

/* Sums near the top of the range do not wrap into "fits". */
static void test_eng_quota__no_wrap_around(void **state)
{
	assert_false(eng_quota_fits(UINT64_MAX - 1, 0, 2, UINT64_MAX,
				    UINT64_MAX, 0));
	assert_false(eng_quota_fits(0, UINT64_MAX - 1, 2, UINT64_MAX,
				    UINT64_MAX, 0));
	assert_false(eng_quota_fits(1, 0, UINT64_MAX, UINT64_MAX,
				    UINT64_MAX, 0));
	assert_true(eng_quota_fits(0, 0, UINT64_MAX / 2, UINT64_MAX,
				   UINT64_MAX, 0));
}

/* A limit set above half of what is shared is cut to half: one pod can
 * never lock the others out, however the engine was configured. */
static void test_eng_quota__half_of_shared_at_most(void **state)
{
	assert_true(eng_quota_fits(449, 449, 1, 1000, 1000, 100));
	assert_false(eng_quota_fits(450, 450, 1, 1000, 1000, 100));
	/* while another device still gets its half */
	assert_true(eng_quota_fits(0, 450, 450, 1000, 1000, 100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_quota__device_limit),
		cmocka_unit_test(test_eng_quota__engine_reserve),
		cmocka_unit_test(test_eng_quota__no_wrap_around),
		cmocka_unit_test(test_eng_quota__half_of_shared_at_most),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
