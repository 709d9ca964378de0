/* SPDX-License-Identifier: MIT */
/* Unit tests of the RC requester's round-trip estimator (eng_wire_rtt.c):
 * the first sample seeds SRTT and RTTVAR = SRTT/2 (RFC 6298 2.2), later
 * ones move SRTT by 1/8 and RTTVAR by 1/4 of the difference (2.3), huge
 * samples are clamped, the tail loss probe goes at 2 * SRTT, never
 * before the configured floor, and the transport timer stretches to
 * SRTT + 4 * RTTVAR within ENG_RTT_RTO_STRETCH times the QP's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_rtt.h"

#define US 1000ull
#define MS (1000ull * US)

static void test_eng_wire_rtt__first_sample_seeds(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	assert_int_equal(eng_rtt_pto(&r, 2 * MS), 2 * MS);
	eng_rtt_sample(&r, 100 * US);
	assert_int_equal(r.srtt, 100 * US);
	assert_int_equal(r.rttvar, 50 * US);
	/* 2 * 100 us is below the floor: the floor. */
	assert_int_equal(eng_rtt_pto(&r, 2 * MS), 2 * MS);
	assert_int_equal(eng_rtt_pto(&r, 0), 200 * US);
}

static void test_eng_wire_rtt__smoothing_gains(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	eng_rtt_sample(&r, 800 * US);
	eng_rtt_sample(&r, 1600 * US);
	/* srtt = 7/8 * 800 + 1/8 * 1600; rttvar = 3/4 * 400 + 1/4 * 800 */
	assert_int_equal(r.srtt, 900 * US);
	assert_int_equal(r.rttvar, 500 * US);
	eng_rtt_sample(&r, 900 * US);
	assert_int_equal(r.srtt, 900 * US);
	assert_int_equal(r.rttvar, 375 * US);
}

/* Four QPs on one socket: ACKs come every ~4 ms; after a few samples the
 * probe waits ~8 ms instead of firing at 2 ms every time. */
static void test_eng_wire_rtt__converges_above_floor(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	eng_rtt_sample(&r, 300 * US);
	for (int i = 0; i < 40; i++)
		eng_rtt_sample(&r, 4 * MS);
	assert_true(r.srtt > 3900 * US && r.srtt <= 4 * MS);
	assert_true(eng_rtt_pto(&r, 2 * MS) > 7800 * US);
	/* and back down when the queue empties */
	for (int i = 0; i < 60; i++)
		eng_rtt_sample(&r, 100 * US);
	assert_int_equal(eng_rtt_pto(&r, 2 * MS), 2 * MS);
}

static void test_eng_wire_rtt__clamped_and_never_zero(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	eng_rtt_sample(&r, UINT64_MAX);
	assert_int_equal(r.srtt, ENG_RTT_MAX_NS);
	assert_int_equal(eng_rtt_pto(&r, 0), 2 * ENG_RTT_MAX_NS);
	r = (struct eng_rtt){ 0 };
	eng_rtt_sample(&r, 0);
	assert_true(r.srtt > 0);	/* 0 would read as "no sample" */
	for (int i = 0; i < 100; i++)
		eng_rtt_sample(&r, 0);
	assert_true(r.srtt > 0);
}

static void test_eng_wire_rtt__rto_stretch(void **state)
{
	struct eng_rtt r = { 0 };
	const uint64_t t12 = 16777216;	/* timeout 12: 4.096 us * 2^12 */

	(void)state;
	/* no sample, or a round trip well inside it: the QP's own */
	assert_int_equal(eng_rtt_rto(&r, t12), t12);
	eng_rtt_sample(&r, 1 * MS);
	assert_int_equal(eng_rtt_rto(&r, t12), t12);
	/* a backlog of 10 ms with jitter: srtt + 4 * rttvar */
	r = (struct eng_rtt){ .srtt = 10 * MS, .rttvar = 3 * MS };
	assert_int_equal(eng_rtt_rto(&r, t12), 22 * MS);
	/* never more than 8 times the QP's own */
	r = (struct eng_rtt){ .srtt = 2000 * MS, .rttvar = 100 * MS };
	assert_int_equal(eng_rtt_rto(&r, t12), ENG_RTT_RTO_STRETCH * t12);
	r.srtt = ENG_RTT_MAX_NS;
	r.rttvar = ENG_RTT_MAX_NS;
	assert_int_equal(eng_rtt_rto(&r, t12), ENG_RTT_RTO_STRETCH * t12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_wire_rtt__first_sample_seeds),
		cmocka_unit_test(test_eng_wire_rtt__smoothing_gains),
		cmocka_unit_test(test_eng_wire_rtt__converges_above_floor),
		cmocka_unit_test(test_eng_wire_rtt__clamped_and_never_zero),
		cmocka_unit_test(test_eng_wire_rtt__rto_stretch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
