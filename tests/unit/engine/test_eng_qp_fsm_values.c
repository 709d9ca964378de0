/* SPDX-License-Identifier: MIT */
/*
 * Second half of test_eng_qp_fsm: IBV_QP_CUR_STATE, the value range of
 * every attribute, device limits, next state, whole lifecycles, and the
 * create-time capability check and grant.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "test_eng_qp_fsm.h"

/* IBV_QP_CUR_STATE: only where the table lists it, and its value must be
 * the real state or, among RTS/SQD/SQE, one the QP may have left on its
 * own. */
struct cur_case {
	uint32_t type, real, next, extra, claim;
	int want;
};

static const struct cur_case cur_cases[] = {
	{ UD, RTS, RTS, 0, RTS, 0 },
	{ UD, RTS, RTS, 0, SQE, 0 },
	{ UD, RTS, RTS, 0, SQD, 0 },
	{ UD, RTS, RTS, 0, RTR, -EINVAL },
	{ UD, RTS, RTS, 0, INIT, -EINVAL },
	{ UD, RTS, RTS, 0, IBV_QPS_UNKNOWN, -EINVAL },
	{ UD, RTS, RTS, 0, 100, -EINVAL },
	{ UC, SQE, RTS, 0, SQE, 0 },
	{ UC, SQE, RTS, 0, RTS, 0 },
	{ UC, SQE, RTS, 0, ERR, -EINVAL },
	{ RC, SQD, RTS, 0, SQD, 0 },
	{ RC, SQD, RTS, 0, RTS, 0 },
	{ RC, RTR, RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, RTR, 0 },
	{ RC, RTR, RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, RTS, -EINVAL },
	{ UD, RTR, RTS, IBV_QP_SQ_PSN, RTR, 0 },
	/* not listed for these transitions, even with the right value */
	{ RC, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	  IBV_QP_ACCESS_FLAGS, RESET, -EINVAL },
	{ RC, INIT, RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  INIT, -EINVAL },
	{ RC, RTS, ERR, 0, RTS, -EINVAL },
	{ RC, RTS, SQD, 0, RTS, -EINVAL },
	{ UC, SQD, SQD, 0, SQD, -EINVAL },
	{ UD, ERR, RESET, 0, ERR, -EINVAL },
};

void test_eng_qp_fsm__cur_state_attr(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cur_cases) / sizeof(cur_cases[0]); i++) {
		const struct cur_case *c = &cur_cases[i];
		struct pv_ipc_qp_attr a = good_attr(c->real, c->next);
		struct eng_qp_fsm_in in = make_in(c->type, c->real,
				IBV_QP_STATE | IBV_QP_CUR_STATE | c->extra, &a);
		int got;

		a.cur_qp_state = c->claim;
		got = eng_qp_modify_check(&in);
		if (got != c->want) {
			print_error("cur_cases[%zu]: got %d, want %d\n", i, got,
				    c->want);
			fail();
		}
	}
}

/* Value checks: one attribute field set to one value on a transition that
 * carries it (the rest of the request minimal and valid). */
struct value_case {
	const char *what;
	uint32_t type, cur, next, mask;	/* mask: besides IBV_QP_STATE */
	size_t off, size;
	uint32_t value;
	int want;
};

#define FLD(f)	offsetof(struct pv_ipc_qp_attr, f), \
		sizeof(((struct pv_ipc_qp_attr *)0)->f)

#define RC_INIT	IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS
#define UD_INIT	IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY
#define UC_RTR	IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
#define RC_RTR	UC_RTR | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER
#define RC_RTS	IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC

#define V(what, t, c, n, m, f, v, w) \
	{ what, t, c, n, m, FLD(f), v, w }

static const struct value_case value_cases[] = {
	/* port 1..phys_port_cnt (1) */
	V("port 0", RC, RESET, INIT, RC_INIT, port_num, 0, -EINVAL),
	V("port 1", RC, RESET, INIT, RC_INIT, port_num, 1, 0),
	V("port 2", RC, RESET, INIT, RC_INIT, port_num, 2, -EINVAL),
	V("port 255", UD, RESET, INIT, UD_INIT, port_num, 255, -EINVAL),
	V("port 0 INIT", UC, INIT, INIT, IBV_QP_PORT, port_num, 0, -EINVAL),
	/* pkey_index < pkey_tbl_len (2) */
	V("pkey 1", RC, RESET, INIT, RC_INIT, pkey_index, 1, 0),
	V("pkey 2", RC, RESET, INIT, RC_INIT, pkey_index, 2, -EINVAL),
	V("pkey max", UD, RESET, INIT, UD_INIT, pkey_index, 0xffff, -EINVAL),
	V("pkey 2 RTR", UD, INIT, RTR, IBV_QP_PKEY_INDEX, pkey_index, 2,
	  -EINVAL),
	V("pkey 2 SQD", UD, SQD, SQD, IBV_QP_PKEY_INDEX, pkey_index, 2,
	  -EINVAL),
	/* qkey: any */
	V("qkey 0", UD, RESET, INIT, UD_INIT, qkey, 0, 0),
	V("qkey max", UD, RESET, INIT, UD_INIT, qkey, 0xffffffff, 0),
	/* access flags: defined bits tolerated, others not */
	V("access 0", RC, RESET, INIT, RC_INIT, qp_access_flags, 0, 0),
	V("access local", RC, RESET, INIT, RC_INIT, qp_access_flags,
	  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0),
	V("access all low", RC, RESET, INIT, RC_INIT, qp_access_flags, 0x3ff,
	  0),
	V("access relaxed", UC, RESET, INIT, RC_INIT, qp_access_flags,
	  IBV_ACCESS_RELAXED_ORDERING, 0),
	V("access bit 10", RC, RESET, INIT, RC_INIT, qp_access_flags, 1u << 10,
	  -EINVAL),
	V("access bit 19", RC, RESET, INIT, RC_INIT, qp_access_flags, 1u << 19,
	  -EINVAL),
	V("access bit 30", RC, RTS, RTS, IBV_QP_ACCESS_FLAGS, qp_access_flags,
	  1u << 30, -EINVAL),
	V("access bit 31", UC, INIT, RTR, UC_RTR | IBV_QP_ACCESS_FLAGS,
	  qp_access_flags, 1u << 31, -EINVAL),
	/* path MTU 256..4096 */
	V("mtu 0", RC, INIT, RTR, RC_RTR, path_mtu, 0, -EINVAL),
	V("mtu 256", RC, INIT, RTR, RC_RTR, path_mtu, IBV_MTU_256, 0),
	V("mtu 512", RC, INIT, RTR, RC_RTR, path_mtu, IBV_MTU_512, 0),
	V("mtu 2048", UC, INIT, RTR, UC_RTR, path_mtu, IBV_MTU_2048, 0),
	V("mtu 4096", RC, INIT, RTR, RC_RTR, path_mtu, IBV_MTU_4096, 0),
	V("mtu 6", RC, INIT, RTR, RC_RTR, path_mtu, 6, -EINVAL),
	V("mtu huge", UC, INIT, RTR, UC_RTR, path_mtu, 0xffffffff, -EINVAL),
	/* address vector: RoCE needs a GRH */
	V("no grh RC", RC, INIT, RTR, RC_RTR, ah_attr.is_global, 0, -EINVAL),
	V("no grh UC", UC, INIT, RTR, UC_RTR, ah_attr.is_global, 0, -EINVAL),
	V("no grh SQD", RC, SQD, SQD, IBV_QP_AV, ah_attr.is_global, 0, -EINVAL),
	V("sgid 3", RC, INIT, RTR, RC_RTR, ah_attr.sgid_index, 3, 0),
	V("sgid 4", RC, INIT, RTR, RC_RTR, ah_attr.sgid_index, 4, -EINVAL),
	V("sgid 255", UC, INIT, RTR, UC_RTR, ah_attr.sgid_index, 255, -EINVAL),
	V("ah port 0", RC, INIT, RTR, RC_RTR, ah_attr.port_num, 0, -EINVAL),
	V("ah port 2", UC, SQD, SQD, IBV_QP_AV, ah_attr.port_num, 2, -EINVAL),
	V("ah sl 7", RC, INIT, RTR, RC_RTR, ah_attr.sl, 7, 0),
	/* 24-bit numbers */
	V("dqpn max", RC, INIT, RTR, RC_RTR, dest_qp_num, 0xffffff, 0),
	V("dqpn 2^24", RC, INIT, RTR, RC_RTR, dest_qp_num, 0x1000000, -EINVAL),
	V("dqpn ~0", UC, INIT, RTR, UC_RTR, dest_qp_num, 0xffffffff, -EINVAL),
	V("rq_psn max", RC, INIT, RTR, RC_RTR, rq_psn, 0xffffff, 0),
	V("rq_psn 2^24", UC, INIT, RTR, UC_RTR, rq_psn, 0x1000000, -EINVAL),
	V("sq_psn 0", UD, RTR, RTS, IBV_QP_SQ_PSN, sq_psn, 0, 0),
	V("sq_psn max", RC, RTR, RTS, RC_RTS, sq_psn, 0xffffff, 0),
	V("sq_psn 2^24", UD, RTR, RTS, IBV_QP_SQ_PSN, sq_psn, 0x1000000,
	  -EINVAL),
	/* read/atomic depths against the device (16 each) */
	V("dest rd 0", RC, INIT, RTR, RC_RTR, max_dest_rd_atomic, 0, 0),
	V("dest rd 16", RC, INIT, RTR, RC_RTR, max_dest_rd_atomic, 16, 0),
	V("dest rd 17", RC, INIT, RTR, RC_RTR, max_dest_rd_atomic, 17, -EINVAL),
	V("dest rd SQD", RC, SQD, SQD, IBV_QP_MAX_DEST_RD_ATOMIC,
	  max_dest_rd_atomic, 255, -EINVAL),
	V("rd 0", RC, RTR, RTS, RC_RTS, max_rd_atomic, 0, 0),
	V("rd 16", RC, RTR, RTS, RC_RTS, max_rd_atomic, 16, 0),
	V("rd 17", RC, RTR, RTS, RC_RTS, max_rd_atomic, 17, -EINVAL),
	V("rd SQD", RC, SQD, SQD, IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic, 17,
	  -EINVAL),
	/* timers and retry counters */
	V("rnr timer 31", RC, INIT, RTR, RC_RTR, min_rnr_timer, 31, 0),
	V("rnr timer 32", RC, INIT, RTR, RC_RTR, min_rnr_timer, 32, -EINVAL),
	V("rnr timer RTS", RC, RTS, RTS, IBV_QP_MIN_RNR_TIMER, min_rnr_timer,
	  255, -EINVAL),
	V("timeout 0", RC, RTR, RTS, RC_RTS, timeout, 0, 0),
	V("timeout 31", RC, RTR, RTS, RC_RTS, timeout, 31, 0),
	V("timeout 32", RC, RTR, RTS, RC_RTS, timeout, 32, -EINVAL),
	V("retry 0", RC, RTR, RTS, RC_RTS, retry_cnt, 0, 0),
	V("retry 8", RC, RTR, RTS, RC_RTS, retry_cnt, 8, -EINVAL),
	V("rnr retry 7", RC, RTR, RTS, RC_RTS, rnr_retry, 7, 0),
	V("rnr retry 8", RC, RTR, RTS, RC_RTS, rnr_retry, 8, -EINVAL),
	V("retry SQD", RC, SQD, SQD, IBV_QP_RETRY_CNT, retry_cnt, 255, -EINVAL),
	/* rate limit: no pacing, only 0 */
	V("rate 0", RC, RTR, RTS, RC_RTS | IBV_QP_RATE_LIMIT, rate_limit, 0, 0),
	V("rate 1", RC, RTR, RTS, RC_RTS | IBV_QP_RATE_LIMIT, rate_limit, 1,
	  -EINVAL),
	V("rate UD", UD, RTS, RTS, IBV_QP_RATE_LIMIT, rate_limit, 100000,
	  -EINVAL),
	/* migration state and alternate path: checked, then ignored */
	V("mig migrated", RC, RTS, RTS, IBV_QP_PATH_MIG_STATE, path_mig_state,
	  IBV_MIG_MIGRATED, 0),
	V("mig armed", UC, RTS, RTS, IBV_QP_PATH_MIG_STATE, path_mig_state,
	  IBV_MIG_ARMED, 0),
	V("mig 3", RC, RTS, RTS, IBV_QP_PATH_MIG_STATE, path_mig_state, 3,
	  -EINVAL),
	V("alt ok", RC, RTS, RTS, IBV_QP_ALT_PATH, alt_timeout, 31, 0),
	V("alt timeout", RC, RTS, RTS, IBV_QP_ALT_PATH, alt_timeout, 32,
	  -EINVAL),
	V("alt port 0", UC, RTS, RTS, IBV_QP_ALT_PATH, alt_port_num, 0,
	  -EINVAL),
	V("alt port 2", RC, INIT, RTR, RC_RTR | IBV_QP_ALT_PATH, alt_port_num,
	  2, -EINVAL),
	V("alt pkey 2", RC, SQD, RTS, IBV_QP_ALT_PATH, alt_pkey_index, 2,
	  -EINVAL),
	V("alt no grh", RC, RTS, RTS, IBV_QP_ALT_PATH, alt_ah_attr.is_global,
	  0, -EINVAL),
	V("alt sgid 4", UC, RTS, RTS, IBV_QP_ALT_PATH, alt_ah_attr.sgid_index,
	  4, -EINVAL),
	V("alt ah port", RC, RTS, RTS, IBV_QP_ALT_PATH, alt_ah_attr.port_num,
	  0, -EINVAL),
	/* SQD notification flag: any value */
	V("sqd notify", UD, RTS, SQD, IBV_QP_EN_SQD_ASYNC_NOTIFY,
	  en_sqd_async_notify, 0xff, 0),
	/* attributes absent from the mask are not looked at */
	V("absent mtu", RC, RESET, INIT, RC_INIT, path_mtu, 0, 0),
	V("absent port", UD, INIT, RTR, 0, port_num, 0, 0),
	V("absent grh", RC, RTR, RTS, RC_RTS, ah_attr.is_global, 0, 0),
	V("absent psn", RC, RTS, RTS, 0, sq_psn, 0xffffffff, 0),
	V("absent timer", UC, INIT, RTR, UC_RTR, min_rnr_timer, 0xff, 0),
	V("absent rate", RC, RTS, RTS, 0, rate_limit, 5, 0),
	V("absent alt", RC, RTS, RTS, 0, alt_port_num, 0, 0),
};

static void set_field(struct pv_ipc_qp_attr *a, size_t off, size_t size,
		      uint32_t v)
{
	unsigned char *p = (unsigned char *)a + off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;

	switch (size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	default:
		memcpy(p, &v, 4);
		break;
	}
}

void test_eng_qp_fsm__value_ranges(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
		const struct value_case *c = &value_cases[i];
		struct pv_ipc_qp_attr a = good_attr(c->cur, c->next);
		struct eng_qp_fsm_in in = make_in(c->type, c->cur,
						 IBV_QP_STATE | c->mask, &a);
		int got;

		set_field(&a, c->off, c->size, c->value);
		got = eng_qp_modify_check(&in);
		if (got != c->want) {
			print_error("value case \"%s\": got %d, want %d\n",
				    c->what, got, c->want);
			fail();
		}
	}
}

/* The device limits in the input are what the checks use. */
void test_eng_qp_fsm__device_limits_from_input(void **state)
{
	struct pv_ipc_qp_attr a = good_attr(RESET, INIT);
	struct eng_qp_fsm_in in = make_in(RC, RESET, IBV_QP_STATE | RC_INIT, &a);

	(void)state;
	a.port_num = 2;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	in.phys_port_cnt = 2;
	assert_int_equal(eng_qp_modify_check(&in), 0);
	a.pkey_index = 0;
	in.pkey_tbl_len = 0;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);

	a = good_attr(RTR, RTS);
	in = make_in(RC, RTR, IBV_QP_STATE | RC_RTS, &a);
	a.max_rd_atomic = 1;
	in.max_qp_rd_atom = 0;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	a.max_rd_atomic = 0;
	assert_int_equal(eng_qp_modify_check(&in), 0);

	a = good_attr(INIT, RTR);
	in = make_in(RC, INIT, IBV_QP_STATE | RC_RTR, &a);
	a.max_dest_rd_atomic = 8;
	in.max_dest_rd_atom = 7;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	in.max_dest_rd_atom = 8;
	assert_int_equal(eng_qp_modify_check(&in), 0);
	in.gid_tbl_len = 0;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
}

void test_eng_qp_fsm__next_state(void **state)
{
	struct pv_ipc_qp_attr a = good_attr(RESET, RESET);
	struct eng_qp_fsm_in in = make_in(RC, RTS, 0, &a);
	uint32_t s;

	(void)state;
	for (s = RESET; s <= ERR; s++) {
		a.qp_state = s;
		in.attr_mask = IBV_QP_STATE;
		assert_int_equal(eng_qp_next_state(&in), s);
		/* without the bit, qp_state is not looked at */
		in.attr_mask = IBV_QP_MIN_RNR_TIMER;
		assert_int_equal(eng_qp_next_state(&in), RTS);
	}
	in.cur_state = SQE;
	in.attr_mask = 0;
	assert_int_equal(eng_qp_next_state(&in), SQE);
}

/* Each type through its whole life, one legal step at a time, with the
 * state taken from eng_qp_next_state. */
static void walk(uint32_t type, const uint32_t *path, size_t n)
{
	uint32_t cur = path[0], req, opt;
	size_t i;

	for (i = 1; i < n; i++) {
		struct pv_ipc_qp_attr a = good_attr(cur, path[i]);
		struct eng_qp_fsm_in in;

		assert_int_equal(eng_qp_transition_masks(type, cur, path[i],
							&req, &opt), 0);
		in = make_in(type, cur, IBV_QP_STATE | req, &a);
		assert_int_equal(eng_qp_modify_check(&in), 0);
		cur = eng_qp_next_state(&in);
		assert_int_equal(cur, path[i]);
	}
}

void test_eng_qp_fsm__full_lifecycle(void **state)
{
	static const uint32_t life[] = {
		RESET, INIT, INIT, RTR, RTS, RTS, SQD, SQD, RTS, ERR, ERR,
		RESET, RESET, INIT, ERR, RESET, INIT, RTR, RESET,
	};
	static const uint32_t ud_sqe[] = { RESET, INIT, RTR, RTS, ERR };
	size_t t;

	(void)state;
	for (t = 0; t < 3; t++)
		walk(types[t], life, sizeof(life) / sizeof(life[0]));
	walk(UD, ud_sqe, 5);
	/* a UD/UC QP the engine moved to SQE comes back with SQE→RTS */
	check_modify(UD, SQE, RTS, IBV_QP_STATE, 0);
	check_modify(UC, SQE, RTS, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, 0);
}

/* Capabilities at create time. */
static const struct pv_ipc_dev_attr cap_lim = {
	.max_qp_wr = 1024,
	.max_sge = 8,
	.max_inline_data = 256,
};

struct cap_case {
	struct pv_ipc_qp_cap cap;
	int want;
};

static const struct cap_case cap_cases[] = {
	{ { 0, 0, 0, 0, 0, 0 }, 0 },			/* nothing at all */
	{ { 16, 16, 1, 1, 0, 0 }, 0 },
	{ { 0, 64, 0, 4, 0, 0 }, 0 },			/* recv-only */
	{ { 64, 0, 4, 0, 64, 0 }, 0 },			/* send-only / SRQ */
	{ { 1024, 1024, 8, 8, 256, 0 }, 0 },		/* all at the limit */
	{ { 1025, 1, 1, 1, 0, 0 }, -EINVAL },
	{ { 1, 1025, 1, 1, 0, 0 }, -EINVAL },
	{ { 1, 1, 9, 1, 0, 0 }, -EINVAL },
	{ { 1, 1, 1, 9, 0, 0 }, -EINVAL },
	{ { 1, 1, 1, 1, 257, 0 }, -EINVAL },
	{ { 0xffffffff, 1, 1, 1, 0, 0 }, -EINVAL },
	{ { 1, 1, 1, 1, 0xffffffff, 0 }, -EINVAL },
	{ { 1, 1, 1, 1, 0, 0xffffffff }, 0 },		/* reserved ignored */
};

void test_eng_qp_fsm__cap_check(void **state)
{
	size_t i, t;

	(void)state;
	for (t = 0; t < 3; t++) {
		for (i = 0; i < sizeof(cap_cases) / sizeof(cap_cases[0]); i++) {
			int got = eng_qp_cap_check(&cap_cases[i].cap, &cap_lim,
						  types[t]);

			if (got != cap_cases[i].want) {
				print_error("type %u cap_cases[%zu]: got %d, "
					    "want %d\n", types[t], i, got,
					    cap_cases[i].want);
				fail();
			}
		}
	}
	assert_int_equal(eng_qp_cap_check(NULL, &cap_lim, RC), -EINVAL);
	assert_int_equal(eng_qp_cap_check(&cap_cases[0].cap, NULL, RC), -EINVAL);
}

void test_eng_qp_fsm__cap_grant_examples(void **state)
{
	struct pv_ipc_dev_attr lim = cap_lim;
	struct pv_ipc_qp_cap c;

	(void)state;
	c = (struct pv_ipc_qp_cap){ 0, 0, 0, 0, 0, 7 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_send_wr, 0);
	assert_int_equal(c.max_recv_wr, 0);
	assert_int_equal(c.max_send_sge, 0);
	assert_int_equal(c.max_inline_data, 0);
	assert_int_equal(c.reserved, 0);

	c = (struct pv_ipc_qp_cap){ 1, 3, 2, 3, 100, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_send_wr, 1);
	assert_int_equal(c.max_recv_wr, 4);
	assert_int_equal(c.max_send_sge, 2);
	assert_int_equal(c.max_recv_sge, 3);
	assert_int_equal(c.max_inline_data, 100);

	/* Inline up to the SGE room is granted (16-byte SGEs), capped by
	 * the device; no send queue, no inline. */
	c = (struct pv_ipc_qp_cap){ 1, 1, 1, 1, 0, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_inline_data, 16);
	c = (struct pv_ipc_qp_cap){ 1, 1, 8, 1, 0, 0 };
	lim.max_inline_data = 100;
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_inline_data, 100);
	lim.max_inline_data = cap_lim.max_inline_data;
	c = (struct pv_ipc_qp_cap){ 0, 1, 4, 1, 0, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_inline_data, 0);

	c = (struct pv_ipc_qp_cap){ 1000, 1024, 1, 1, 0, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_send_wr, 1024);
	assert_int_equal(c.max_recv_wr, 1024);

	/* a device limit that is no power of two caps the rounding */
	lim.max_qp_wr = 600;
	c = (struct pv_ipc_qp_cap){ 513, 600, 1, 1, 0, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_send_wr, 600);
	assert_int_equal(c.max_recv_wr, 600);

	lim.max_qp_wr = 0xffffffff;
	c = (struct pv_ipc_qp_cap){ 0x80000001u, 0xffffffff, 1, 1, 0, 0 };
	eng_qp_cap_grant(&c, &lim);
	assert_int_equal(c.max_send_wr, 0x80000001u);
	assert_int_equal(c.max_recv_wr, 0xffffffff);
}

/* Whatever passes the check is granted at least as asked, at most the
 * device limit, and a power of two unless the limit stopped it. */
void test_eng_qp_fsm__cap_grant_never_below_request(void **state)
{
	struct pv_ipc_dev_attr lim = cap_lim;
	uint32_t v, g;

	(void)state;
	lim.max_qp_wr = 1500;
	for (v = 0; v <= 1600; v++) {
		struct pv_ipc_qp_cap c = { v, v, 1, 1, 16, 0 };

		if (eng_qp_cap_check(&c, &lim, UD)) {
			assert_true(v > lim.max_qp_wr);
			continue;
		}
		eng_qp_cap_grant(&c, &lim);
		g = c.max_send_wr;
		assert_int_equal(c.max_recv_wr, g);
		assert_true(g >= v);
		assert_true(g <= lim.max_qp_wr);
		if (v == 0)
			assert_int_equal(g, 0);
		else
			assert_true((g & (g - 1)) == 0 || g == lim.max_qp_wr);
		assert_int_equal(c.max_send_sge, 1);
		assert_int_equal(c.max_inline_data, 16);
		assert_int_equal(eng_qp_cap_check(&c, &lim, UD), 0);
	}
}
