/* SPDX-License-Identifier: MIT */
/* Unit tests of the completer's state machine (eng_comp_sm.c), driven
 * without the engine: scripted replies and timer expiries for one head
 * WQE, as the requester would feed them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"

static struct eng_comp rc_comp(uint32_t opcode, bool last)
{
	return (struct eng_comp){ .qp_type = IBV_QPT_RC, .rnr_retry = 3,
				  .retry_cnt = 3, .timeout = 14,
				  .opcode = opcode, .last = last };
}

static enum eng_comp_st reply(struct eng_comp *c, uint8_t kind, uint8_t code)
{
	struct eng_dp_reply r = { .kind = kind, .code = code, .msn = 5 };

	return eng_comp_run(c, ENG_COMP_EV_REPLY, &r);
}

static void test_eng_comp_sm__ack_completes_or_moves_on(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_SEND, false);

	(void)state;
	c.rnr_tries = 2;
	c.retry_tries = 1;
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_MORE);
	/* progress resets both budgets */
	assert_int_equal(c.rnr_tries, 0);
	assert_int_equal(c.retry_tries, 0);
	assert_int_equal(c.msn, 5);
	c.last = true;
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_DONE);
	assert_int_equal(c.status, IBV_WC_SUCCESS);
	assert_int_equal(c.timer_kind, ENG_DP_TIMER_NONE);
}

static void test_eng_comp_sm__steps_name_the_next_state(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_RDMA_READ, true);
	struct eng_dp_reply r = { .kind = ENG_DP_REPLY_READ_RESP };

	(void)state;
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_START,
				       ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_CHECK_REPLY);
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_CHECK_REPLY,
				       ENG_COMP_EV_REPLY, &r), ENG_COMP_ST_READ);
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_READ,
				       ENG_COMP_EV_REPLY, &r), ENG_COMP_ST_ACKED);
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_ACKED,
				       ENG_COMP_EV_REPLY, &r), ENG_COMP_ST_DONE);
	/* terminal states stay */
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_WAIT,
				       ENG_COMP_EV_REPLY, &r), ENG_COMP_ST_WAIT);
	r.kind = ENG_DP_REPLY_NAK;
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_CHECK_REPLY,
				       ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_CHECK_NAK);
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_START,
				       ENG_COMP_EV_TIMER, NULL),
			 ENG_COMP_ST_TIMER);
	assert_int_equal(eng_comp_step(&c, ENG_COMP_ST_START,
				       ENG_COMP_EV_SENT, NULL),
			 ENG_COMP_ST_ARM_RETRY);
}

static void test_eng_comp_sm__rnr_then_ack(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_SEND, true);

	(void)state;
	/* min_rnr_timer 14: 1.28 ms (IBA 9.7.5.2.8) */
	assert_int_equal(reply(&c, ENG_DP_REPLY_RNR_NAK, 14), ENG_COMP_ST_WAIT);
	assert_int_equal(c.timer_kind, ENG_DP_TIMER_RNR);
	assert_int_equal(c.timer_ns, 1280000);
	assert_int_equal(c.rnr_tries, 1);
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL),
			 ENG_COMP_ST_RESEND);
	assert_int_equal(c.timer_kind, ENG_DP_TIMER_NONE);
	assert_int_equal(c.retry_tries, 0);	/* RNR is not a retry */
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_DONE);
	assert_int_equal(c.status, IBV_WC_SUCCESS);
	assert_int_equal(c.rnr_tries, 0);
}

/* Feeds RNR NAKs (each followed by its timer) until the WQE fails;
 * returns how many RNR NAKs were taken, or -1 past limit. */
static int rnrs_until_error(struct eng_comp *c, int limit)
{
	for (int i = 1; i <= limit; i++) {
		enum eng_comp_st st = reply(c, ENG_DP_REPLY_RNR_NAK, 1);

		if (st == ENG_COMP_ST_ERROR)
			return i;
		assert_int_equal(st, ENG_COMP_ST_WAIT);
		assert_int_equal(c->timer_ns, 10000);	/* code 1: 10 us */
		assert_int_equal(eng_comp_run(c, ENG_COMP_EV_TIMER, NULL),
				 ENG_COMP_ST_RESEND);
	}
	return -1;
}

static void test_eng_comp_sm__rnr_past_rnr_retry(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_RDMA_WRITE_WITH_IMM, true);

	(void)state;
	c.rnr_retry = 2;	/* two retries: the third RNR NAK fails */
	assert_int_equal(rnrs_until_error(&c, 100), 3);
	assert_int_equal(c.status, IBV_WC_RNR_RETRY_EXC_ERR);
	c = rc_comp(IBV_WR_SEND, true);
	c.rnr_retry = 0;
	assert_int_equal(rnrs_until_error(&c, 100), 1);
	assert_int_equal(c.status, IBV_WC_RNR_RETRY_EXC_ERR);
	c = rc_comp(IBV_WR_SEND, true);
	c.rnr_retry = ENG_COMP_RNR_INFINITE;
	assert_int_equal(rnrs_until_error(&c, 1000), -1);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_DONE);
}

static void test_eng_comp_sm__timeout_past_retry_cnt(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_RDMA_WRITE, true);
	enum eng_comp_st st;
	int sends = 0;

	(void)state;
	c.retry_cnt = 3;
	c.timeout = 14;		/* 4.096 us * 2^14 = 67.1 ms */
	do {
		sends++;
		/* the request left; nothing came back */
		assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_SENT, NULL),
				 ENG_COMP_ST_WAIT);
		assert_int_equal(c.timer_kind, ENG_DP_TIMER_RETRY);
		assert_int_equal(c.timer_ns, 4096ull << 14);
		st = eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL);
	} while (st == ENG_COMP_ST_RESEND && sends < 100);
	/* the first send and retry_cnt retransmissions, each timed out */
	assert_int_equal(sends, 4);
	assert_int_equal(st, ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_RETRY_EXC_ERR);

	/* a dropped RC request (reply NONE) arms the same timer */
	c = rc_comp(IBV_WR_SEND, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_NONE, 0), ENG_COMP_ST_WAIT);
	assert_int_equal(c.timer_kind, ENG_DP_TIMER_RETRY);

	/* timeout 0 waits forever: never counted, never fails */
	c = rc_comp(IBV_WR_SEND, true);
	c.timeout = 0;
	c.retry_cnt = 1;
	for (int i = 0; i < 50; i++) {
		assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_SENT, NULL),
				 ENG_COMP_ST_WAIT);
		assert_int_equal(c.timer_ns, ENG_COMP_INFINITE_RECHECK_NS);
		assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL),
				 ENG_COMP_ST_RESEND);
	}
	assert_int_equal(c.retry_tries, 0);

	/* an ACK between timeouts gives the budget back */
	c = rc_comp(IBV_WR_SEND, false);
	c.retry_cnt = 1;
	eng_comp_run(&c, ENG_COMP_EV_SENT, NULL);
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL),
			 ENG_COMP_ST_RESEND);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_MORE);
	eng_comp_run(&c, ENG_COMP_EV_SENT, NULL);
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL),
			 ENG_COMP_ST_RESEND);
}

static void test_eng_comp_sm__nak_codes(void **state)
{
	static const struct { uint8_t code; int status; } t[] = {
		{ ENG_DP_NAK_INV_REQ, IBV_WC_REM_INV_REQ_ERR },
		{ ENG_DP_NAK_REM_ACCESS, IBV_WC_REM_ACCESS_ERR },
		{ ENG_DP_NAK_REM_OP, IBV_WC_REM_OP_ERR },
		{ ENG_DP_NAK_INV_RD_REQ, IBV_WC_REM_INV_RD_REQ_ERR },
		{ 5, IBV_WC_BAD_RESP_ERR },	/* reserved */
		{ 31, IBV_WC_BAD_RESP_ERR },
	};
	struct eng_comp c;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c = rc_comp(IBV_WR_RDMA_WRITE, true);
		assert_int_equal(reply(&c, ENG_DP_REPLY_NAK, t[i].code),
				 ENG_COMP_ST_ERROR);
		assert_int_equal(c.status, t[i].status);
	}
	/* PSN sequence error: go back N, counted against retry_cnt */
	c = rc_comp(IBV_WR_SEND, true);
	c.retry_cnt = 1;
	assert_int_equal(reply(&c, ENG_DP_REPLY_NAK, ENG_DP_NAK_PSN_SEQ),
			 ENG_COMP_ST_RESEND);
	assert_int_equal(c.retry_tries, 1);
	assert_int_equal(reply(&c, ENG_DP_REPLY_NAK, ENG_DP_NAK_PSN_SEQ),
			 ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_RETRY_EXC_ERR);
}

static void test_eng_comp_sm__read_data_across_sges(void **state)
{
	/* three local SGEs of 5, 7 and 20 bytes, each with a guard byte */
	uint8_t a[6], b[8], d[21], src[32];
	struct eng_seg segs[3] = { { a, 5 }, { b, 7 }, { d, 20 } };
	struct eng_comp c = rc_comp(IBV_WR_RDMA_READ, false);
	struct eng_dp_reply r = { .kind = ENG_DP_REPLY_READ_RESP,
				  .data = src, .len = 32 };

	(void)state;
	for (int i = 0; i < 32; i++)
		src[i] = (uint8_t)(0xa0 + i);
	memset(a, 0xee, sizeof(a));
	memset(b, 0xee, sizeof(b));
	memset(d, 0xee, sizeof(d));
	c.local = segs;
	c.nlocal = 3;
	c.chunk = 32;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_MORE);
	assert_memory_equal(a, src, 5);
	assert_memory_equal(b, src + 5, 7);
	assert_memory_equal(d, src + 12, 20);
	assert_int_equal(a[5], 0xee);
	assert_int_equal(b[7], 0xee);
	assert_int_equal(d[20], 0xee);

	/* a response of another length than the chunk: bad response, and
	 * nothing is written */
	memset(a, 0, sizeof(a));
	r.len = 31;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_BAD_RESP_ERR);
	assert_int_equal(a[0], 0);
	/* a chunk longer than the local list (a caller bug): no write */
	c.chunk = r.len = 33;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(a[0], 0);
	/* a READ answered by a plain ACK */
	c = rc_comp(IBV_WR_RDMA_READ, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_BAD_RESP_ERR);
	/* a zero-length READ */
	c = rc_comp(IBV_WR_RDMA_READ, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_READ_RESP, 0),
			 ENG_COMP_ST_DONE);
}

static void test_eng_comp_sm__atomic_original_written(void **state)
{
	uint8_t lo[3], hi[6];
	struct eng_seg segs[2] = { { lo, 3 }, { hi, 5 } };
	struct eng_comp c = rc_comp(IBV_WR_ATOMIC_FETCH_AND_ADD, true);
	struct eng_dp_reply r = { .kind = ENG_DP_REPLY_ATOMIC_ACK,
				  .atomic_orig = 0x1122334455667788ull };
	uint8_t want[8];
	uint64_t v = r.atomic_orig;

	(void)state;
	memcpy(want, &v, 8);
	hi[5] = 0xee;
	c.local = segs;
	c.nlocal = 2;
	c.chunk = 8;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_REPLY, &r),
			 ENG_COMP_ST_DONE);
	assert_memory_equal(lo, want, 3);
	assert_memory_equal(hi, want + 3, 5);
	assert_int_equal(hi[5], 0xee);
	/* an atomic's reply must be an atomic ACK; a SEND's must not be */
	c = rc_comp(IBV_WR_ATOMIC_CMP_AND_SWP, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_BAD_RESP_ERR);
	c = rc_comp(IBV_WR_SEND, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ATOMIC_ACK, 0),
			 ENG_COMP_ST_ERROR);
	c = rc_comp(IBV_WR_SEND, true);
	assert_int_equal(reply(&c, ENG_DP_REPLY_READ_RESP, 0),
			 ENG_COMP_ST_ERROR);
	c = rc_comp(IBV_WR_SEND, true);
	assert_int_equal(reply(&c, 99, 0), ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_BAD_RESP_ERR);
}

static void test_eng_comp_sm__uc_ud_never_wait(void **state)
{
	struct eng_comp c = rc_comp(IBV_WR_SEND, false);

	(void)state;
	c.qp_type = IBV_QPT_UC;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_SENT, NULL),
			 ENG_COMP_ST_MORE);
	c.last = true;
	assert_int_equal(eng_comp_run(&c, ENG_COMP_EV_SENT, NULL),
			 ENG_COMP_ST_DONE);
	/* lost: the WQE completes, successfully, at once */
	c.last = false;
	assert_int_equal(reply(&c, ENG_DP_REPLY_NONE, 0), ENG_COMP_ST_DONE);
	assert_int_equal(c.status, IBV_WC_SUCCESS);
	/* no RNR or NAK exists on UC/UD */
	assert_int_equal(reply(&c, ENG_DP_REPLY_RNR_NAK, 1), ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_BAD_RESP_ERR);
	c = rc_comp(IBV_WR_SEND, true);
	c.qp_type = IBV_QPT_UD;
	assert_int_equal(reply(&c, ENG_DP_REPLY_NAK, 1), ENG_COMP_ST_ERROR);
	assert_int_equal(reply(&c, ENG_DP_REPLY_ACK, 0), ENG_COMP_ST_DONE);
}

/* A READ of a pod's own memory into an overlapping range of it: the
 * bytes land as a copy through a buffer would put them. */
static void test_eng_comp_sm__scatter_overlapping(void **state)
{
	uint8_t buf[64];
	struct eng_seg d = { .ptr = buf + 8, .len = 32 };

	(void)state;
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(eng_comp_scatter(&d, 1, buf, 32), 0);
	for (unsigned i = 0; i < 32; i++)
		assert_int_equal(buf[8 + i], i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_comp_sm__ack_completes_or_moves_on),
		cmocka_unit_test(test_eng_comp_sm__steps_name_the_next_state),
		cmocka_unit_test(test_eng_comp_sm__rnr_then_ack),
		cmocka_unit_test(test_eng_comp_sm__rnr_past_rnr_retry),
		cmocka_unit_test(test_eng_comp_sm__timeout_past_retry_cnt),
		cmocka_unit_test(test_eng_comp_sm__nak_codes),
		cmocka_unit_test(test_eng_comp_sm__read_data_across_sges),
		cmocka_unit_test(test_eng_comp_sm__atomic_original_written),
		cmocka_unit_test(test_eng_comp_sm__uc_ud_never_wait),
		cmocka_unit_test(test_eng_comp_sm__scatter_overlapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
