/* SPDX-License-Identifier: MIT */
/* Unit tests of eng_wire_rtt.h: the RC requester's round-trip estimate
 * (RFC 6298's SRTT/RTTVAR) that times the early probe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_rtt.h"

#define US 1000ull

static void rtt__no_sample_uses_first(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	assert_int_equal(eng_rtt_probe_ns(&r, 200 * US, 2000 * US), 2000 * US);
	/* The floor holds even over the first value. */
	assert_int_equal(eng_rtt_probe_ns(&r, 300 * US, 100 * US), 300 * US);
	assert_int_equal(eng_rtt_probe_ns(&r, 0, 0), 0);
}

static void rtt__first_sample(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	/* RFC 6298 2.2: SRTT = R, RTTVAR = R/2, so the probe 3R. */
	eng_rtt_sample(&r, 100 * US);
	assert_int_equal(r.srtt_ns, 100 * US);
	assert_int_equal(r.rttvar_ns, 50 * US);
	assert_int_equal(eng_rtt_probe_ns(&r, 10 * US, 2000 * US), 300 * US);
	assert_int_equal(r.samples, 1);
	/* A zero sample is one ns, not "no sample". */
	r = (struct eng_rtt){ 0 };
	eng_rtt_sample(&r, 0);
	assert_int_equal(r.srtt_ns, 1);
}

static void rtt__steady_converges_to_floor(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	/* A steady 80 us: RTTVAR decays toward 0, the probe toward SRTT,
	 * then the floor takes over. */
	for (int i = 0; i < 200; i++)
		eng_rtt_sample(&r, 80 * US);
	assert_int_equal(r.srtt_ns, 80 * US);
	assert_true(r.rttvar_ns < 1 * US);
	assert_true(eng_rtt_probe_ns(&r, 0, 0) < 84 * US);
	assert_int_equal(eng_rtt_probe_ns(&r, 250 * US, 0), 250 * US);
}

static void rtt__jitter_widens_the_probe(void **state)
{
	struct eng_rtt calm = { 0 }, busy = { 0 };

	(void)state;
	/* The same mean (1 ms), one steady, one swinging 0.2..1.8 ms as a
	 * descheduled peer does: the busy one probes much later, past its
	 * largest sample, so a late ACK is not taken for a loss. */
	for (int i = 0; i < 400; i++) {
		eng_rtt_sample(&calm, 1000 * US);
		eng_rtt_sample(&busy, (i & 1) ? 1800 * US : 200 * US);
	}
	assert_true(eng_rtt_probe_ns(&calm, 0, 0) < 1100 * US);
	assert_true(eng_rtt_probe_ns(&busy, 0, 0) > 1800 * US);
	assert_true(busy.srtt_ns > 800 * US && busy.srtt_ns < 1200 * US);
}

static void rtt__follows_a_step(void **state)
{
	struct eng_rtt r = { 0 };
	uint64_t p;

	(void)state;
	for (int i = 0; i < 100; i++)
		eng_rtt_sample(&r, 50 * US);
	/* The path slows to 5 ms (a loaded machine): within a few samples
	 * the probe is past 5 ms, while SRTT alone lags. */
	for (int i = 0; i < 4; i++)
		eng_rtt_sample(&r, 5000 * US);
	p = eng_rtt_probe_ns(&r, 0, 0);
	assert_true(r.srtt_ns < 5000 * US);
	assert_true(p > 5000 * US);
	/* And back: it comes down again, never below the floor. */
	for (int i = 0; i < 300; i++)
		eng_rtt_sample(&r, 50 * US);
	assert_true(eng_rtt_probe_ns(&r, 0, 0) < 60 * US);
	assert_int_equal(eng_rtt_probe_ns(&r, 200 * US, 0), 200 * US);
}

static void rtt__huge_samples_do_not_wrap(void **state)
{
	struct eng_rtt r = { 0 };

	(void)state;
	/* 10 minutes (a peer stopped): no overflow, the probe larger. */
	eng_rtt_sample(&r, 1000 * US);
	eng_rtt_sample(&r, 600ull * 1000 * 1000 * 1000);
	assert_true(eng_rtt_probe_ns(&r, 0, 0) > r.srtt_ns);
	assert_true(r.srtt_ns > 1000 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rtt__no_sample_uses_first),
		cmocka_unit_test(rtt__first_sample),
		cmocka_unit_test(rtt__steady_converges_to_floor),
		cmocka_unit_test(rtt__jitter_widens_the_probe),
		cmocka_unit_test(rtt__follows_a_step),
		cmocka_unit_test(rtt__huge_samples_do_not_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
