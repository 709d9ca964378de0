/* SPDX-License-Identifier: MIT */
/* Unit tests of the responder's saved resources and PSN classifier
 * (eng_resp_res.c, eng_wire_psn.h), driven by scripted request PSNs:
 * in order, duplicated, lost (a gap), reordered, across the 2^24 wrap. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_resp_res.h"

static void test_eng_dp_psn__wraps_at_24_bits(void **state)
{
	(void)state;
	assert_int_equal(eng_psn_add(0xffffff, 1), 0);
	assert_int_equal(eng_psn_add(0xfffffe, 5), 3);
	assert_int_equal(eng_psn_diff(3, 0xfffffe), 5);
	assert_int_equal(eng_psn_diff(0xfffffe, 3), -5);
	assert_int_equal(eng_psn_diff(7, 7), 0);
	assert_int_equal(eng_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(eng_psn_diff(0x800000, 0), -0x800000);
	/* bits above 24 in the operands do not matter */
	assert_int_equal(eng_psn_diff(0x1000003, 0x2fffffe), 5);
}

/* A responder in miniature: executes an atomic on *target unless the
 * PSN is a duplicate, in which case the saved original is returned. */
static uint64_t serve_faa(struct eng_resp_res *t, struct eng_psn_rx *rx,
			  uint32_t psn, uint64_t *target, int *executed)
{
	const struct eng_resp_res_ent *e;
	bool nak;
	uint64_t orig;

	switch (eng_psn_classify(rx, psn, &nak)) {
	case ENG_PSN_EXPECTED:
		orig = *target;
		*target += 1;
		(*executed)++;
		eng_resp_res_save_atomic(t, psn, orig);
		eng_psn_rx_advance(rx, 1);
		return orig;
	case ENG_PSN_DUPLICATE:
		e = eng_resp_res_find(t, psn);
		assert_non_null(e);
		assert_int_equal(e->kind, ENG_RESP_RES_ATOMIC);
		return e->orig;
	default:
		fail_msg("PSN %u out of sequence", psn);
	}
	return 0;
}

static void test_eng_resp_res__atomic_never_executed_twice(void **state)
{
	struct eng_resp_res t;
	struct eng_psn_rx rx;
	uint64_t target = 100;
	int executed = 0;

	(void)state;
	eng_resp_res_init(&t, 4);
	eng_psn_rx_init(&rx, 0xfffffe);		/* wraps during the test */
	assert_int_equal(serve_faa(&t, &rx, 0xfffffe, &target, &executed), 100);
	assert_int_equal(serve_faa(&t, &rx, 0xffffff, &target, &executed), 101);
	assert_int_equal(serve_faa(&t, &rx, 0, &target, &executed), 102);
	/* the ACKs were lost: the requester sends all three again */
	assert_int_equal(serve_faa(&t, &rx, 0xfffffe, &target, &executed), 100);
	assert_int_equal(serve_faa(&t, &rx, 0xffffff, &target, &executed), 101);
	assert_int_equal(serve_faa(&t, &rx, 0, &target, &executed), 102);
	assert_int_equal(executed, 3);
	assert_int_equal(target, 103);
	assert_int_equal(rx.epsn, 1);
}

static void test_eng_resp_res__read_reserved_from_its_psn(void **state)
{
	const struct eng_resp_res_ent *e;
	struct eng_resp_res t;
	uint64_t va;
	uint32_t len;

	(void)state;
	eng_resp_res_init(&t, 2);
	/* a 10000-byte READ at PSN 0xfffffe, MTU 4096: 3 response PSNs,
	 * 0xfffffe, 0xffffff, 0 */
	eng_resp_res_save_read(&t, 0xfffffe, 3, 0x1234, 0x10000, 10000);
	e = eng_resp_res_find(&t, 0);
	assert_non_null(e);
	assert_int_equal(e->kind, ENG_RESP_RES_READ);
	assert_int_equal(e->rkey, 0x1234);
	assert_null(eng_resp_res_find(&t, 1));
	assert_null(eng_resp_res_find(&t, 0xfffffd));
	assert_int_equal(eng_resp_res_read_from(e, 0xfffffe, 4096, &va, &len), 0);
	assert_true(va == 0x10000 && len == 10000);
	/* the first response arrived, the rest was lost: from PSN 0xffffff */
	assert_int_equal(eng_resp_res_read_from(e, 0xffffff, 4096, &va, &len), 0);
	assert_true(va == 0x10000 + 4096 && len == 10000 - 4096);
	assert_int_equal(eng_resp_res_read_from(e, 0, 4096, &va, &len), 0);
	assert_true(va == 0x10000 + 8192 && len == 10000 - 8192);
	assert_int_equal(eng_resp_res_read_from(e, 1, 4096, &va, &len), -EINVAL);
	assert_int_equal(eng_resp_res_read_from(e, 0, 0, &va, &len), -EINVAL);
	/* a range whose PSNs claim more bytes than were read */
	eng_resp_res_save_read(&t, 50, 4, 1, 0, 100);
	e = eng_resp_res_find(&t, 53);
	assert_non_null(e);
	assert_int_equal(eng_resp_res_read_from(e, 53, 4096, &va, &len), -EINVAL);
}

static void test_eng_resp_res__oldest_replaced_cap_clamped(void **state)
{
	struct eng_resp_res t;

	(void)state;
	eng_resp_res_init(&t, 2);
	eng_resp_res_save_atomic(&t, 1, 11);
	eng_resp_res_save_atomic(&t, 2, 22);
	eng_resp_res_save_atomic(&t, 3, 33);	/* replaces PSN 1 */
	assert_null(eng_resp_res_find(&t, 1));
	assert_int_equal(eng_resp_res_find(&t, 2)->orig, 22);
	assert_int_equal(eng_resp_res_find(&t, 3)->orig, 33);
	eng_resp_res_clear(&t);
	assert_null(eng_resp_res_find(&t, 3));
	assert_int_equal(t.cap, 2);
	eng_resp_res_init(&t, 0);
	assert_int_equal(t.cap, 1);
	eng_resp_res_init(&t, 1000);
	assert_int_equal(t.cap, ENG_RESP_RES_MAX);
	for (uint32_t i = 0; i < 3 * ENG_RESP_RES_MAX; i++)
		eng_resp_res_save_atomic(&t, i, i);
	assert_null(eng_resp_res_find(&t, 2 * ENG_RESP_RES_MAX - 1));
	assert_non_null(eng_resp_res_find(&t, 2 * ENG_RESP_RES_MAX));
	/* a corrupted cap is never used as a bound */
	t.cap = 1000;
	assert_null(eng_resp_res_find(&t, 99999));
	eng_resp_res_save_atomic(&t, 7, 7);
	assert_true(t.cap >= 1 && t.cap <= ENG_RESP_RES_MAX);
}

static void test_eng_psn__classify_nak_once_per_gap(void **state)
{
	struct eng_psn_rx rx;
	bool nak;

	(void)state;
	eng_psn_rx_init(&rx, 10);
	assert_int_equal(eng_psn_classify(&rx, 10, &nak), ENG_PSN_EXPECTED);
	assert_false(nak);
	eng_psn_rx_advance(&rx, 1);
	/* 11 is lost: 12, 13 and 14 arrive */
	assert_int_equal(eng_psn_classify(&rx, 12, &nak), ENG_PSN_OUT_OF_SEQ);
	assert_true(nak);
	assert_int_equal(eng_psn_classify(&rx, 13, &nak), ENG_PSN_OUT_OF_SEQ);
	assert_false(nak);
	assert_int_equal(eng_psn_classify(&rx, 14, &nak), ENG_PSN_OUT_OF_SEQ);
	assert_false(nak);
	/* a duplicate meanwhile */
	assert_int_equal(eng_psn_classify(&rx, 10, &nak), ENG_PSN_DUPLICATE);
	assert_false(nak);
	/* go back N: 11 again closes the gap */
	assert_int_equal(eng_psn_classify(&rx, 11, &nak), ENG_PSN_EXPECTED);
	eng_psn_rx_advance(&rx, 1);
	assert_int_equal(rx.epsn, 12);
	/* a READ of 3 response PSNs at 12 */
	assert_int_equal(eng_psn_classify(&rx, 12, &nak), ENG_PSN_EXPECTED);
	eng_psn_rx_advance(&rx, 3);
	assert_int_equal(rx.epsn, 15);
	assert_int_equal(eng_psn_classify(&rx, 14, &nak), ENG_PSN_DUPLICATE);
	/* a new gap is NAK'd again */
	assert_int_equal(eng_psn_classify(&rx, 17, &nak), ENG_PSN_OUT_OF_SEQ);
	assert_true(nak);
}

static void test_eng_psn__classify_across_wrap(void **state)
{
	struct eng_psn_rx rx;
	bool nak;

	(void)state;
	eng_psn_rx_init(&rx, 0xffffff);
	assert_int_equal(eng_psn_classify(&rx, 0, &nak), ENG_PSN_OUT_OF_SEQ);
	assert_int_equal(eng_psn_classify(&rx, 0xfffffe, &nak),
			 ENG_PSN_DUPLICATE);
	/* the 2^23 PSNs before epsn are duplicates (IBA 9.7.5.1.1) */
	assert_int_equal(eng_psn_classify(&rx, 0x7fffff, &nak),
			 ENG_PSN_DUPLICATE);
	assert_int_equal(eng_psn_classify(&rx, 0x7ffffe, &nak),
			 ENG_PSN_OUT_OF_SEQ);
	assert_int_equal(eng_psn_classify(&rx, 0xffffff, &nak),
			 ENG_PSN_EXPECTED);
	eng_psn_rx_advance(&rx, 1);
	assert_int_equal(rx.epsn, 0);
	/* init masks a PSN wider than 24 bits */
	eng_psn_rx_init(&rx, 0xff000005);
	assert_int_equal(rx.epsn, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_dp_psn__wraps_at_24_bits),
		cmocka_unit_test(test_eng_resp_res__atomic_never_executed_twice),
		cmocka_unit_test(test_eng_resp_res__read_reserved_from_its_psn),
		cmocka_unit_test(test_eng_resp_res__oldest_replaced_cap_clamped),
		cmocka_unit_test(test_eng_psn__classify_nak_once_per_gap),
		cmocka_unit_test(test_eng_psn__classify_across_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
