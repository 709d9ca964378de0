/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the QP state machine and attribute validation.  The
 * expected transitions below are written out again independently of
 * providers/soft/engine/eng_qp_masks.c, from ibv_modify_qp(3) and IBA vol 1 §11.2.1, and
 * every (type, state, state, mask bit) combination is checked against
 * them.
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

const uint32_t types[3] = { RC, UC, UD };
static const char *const state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN",
};

/* One legal transition of one QP type: what ibv_modify_qp(3) requires and
 * what the IBA table permits besides. */
struct legal {
	uint32_t type, cur, next, req, opt;
};

#define APM	(IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)
#define RL	IBV_QP_RATE_LIMIT

static const struct legal legal[] = {
	/* RESET → INIT */
	{ RC, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ UC, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ UD, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0 },
	/* INIT → INIT */
	{ RC, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ UC, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ UD, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY },
	/* INIT → RTR */
	{ RC, INIT, RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ UC, INIT, RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	  IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ UD, INIT, RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	/* RTR → RTS */
	{ RC, RTR, RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | APM | RL },
	{ UC, RTR, RTS, IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | APM | RL },
	{ UD, RTR, RTS, IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY | RL },
	/* RTS → RTS */
	{ RC, RTS, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | APM | RL },
	{ UC, RTS, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | APM | RL },
	{ UD, RTS, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY | RL },
	/* RTS → SQD */
	{ RC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ UC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ UD, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	/* SQD → RTS */
	{ RC, SQD, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | APM },
	{ UC, SQD, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | APM },
	{ UD, SQD, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	/* SQD → SQD */
	{ RC, SQD, SQD, 0, IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
	  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
	  IBV_QP_MIN_RNR_TIMER | APM },
	{ UC, SQD, SQD, 0, IBV_QP_AV | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
	  APM },
	{ UD, SQD, SQD, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	/* SQE → RTS (RC never is in SQE; plain STATE is still legal) */
	{ RC, SQE, RTS, 0, 0 },
	{ UC, SQE, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS },
	{ UD, SQE, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
};

/* Looks a transition up in the expected table; any state may go to RESET
 * or ERR with nothing else. */
static int expect_legal(uint32_t type, uint32_t cur, uint32_t next,
			uint32_t *req, uint32_t *opt)
{
	size_t i;

	*req = *opt = 0;
	if (next == RESET || next == ERR)
		return 1;
	for (i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
		if (legal[i].type == type && legal[i].cur == cur &&
		    legal[i].next == next) {
			*req = legal[i].req;
			*opt = legal[i].opt;
			return 1;
		}
	}
	return 0;
}

/* Attribute values valid for every transition. */
static void good_ah(struct pv_ipc_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dgid[10] = 0xff;
	ah->dgid[11] = 0xff;
	ah->dgid[12] = 10;
	ah->dgid[15] = 2;
	ah->is_global = 1;
	ah->sgid_index = 0;
	ah->hop_limit = 64;
	ah->port_num = 1;
}

struct pv_ipc_qp_attr good_attr(uint32_t cur, uint32_t next)
{
	struct pv_ipc_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = next;
	a.cur_qp_state = cur;
	a.path_mtu = IBV_MTU_1024;
	a.path_mig_state = IBV_MIG_MIGRATED;
	a.qkey = 0x11111111;
	a.rq_psn = 0x123456;
	a.sq_psn = 0x654321;
	a.dest_qp_num = 0x12;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	a.pkey_index = 0;
	good_ah(&a.ah_attr);
	good_ah(&a.alt_ah_attr);
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.port_num = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.alt_port_num = 1;
	a.alt_timeout = 14;
	return a;
}

struct eng_qp_fsm_in make_in(uint32_t type, uint32_t cur, uint32_t mask,
			    const struct pv_ipc_qp_attr *a)
{
	struct eng_qp_fsm_in in = {
		.qp_type = type,
		.cur_state = cur,
		.attr_mask = mask,
		.attr = a,
		.phys_port_cnt = 1,
		.pkey_tbl_len = 2,
		.gid_tbl_len = 4,
		.max_qp_rd_atom = 16,
		.max_dest_rd_atom = 16,
	};
	return in;
}

/* Runs one modify check and fails the test with the whole case spelled
 * out when it does not return want. */
void check_modify(uint32_t type, uint32_t cur, uint32_t next, uint32_t mask,
		  int want)
{
	struct pv_ipc_qp_attr a = good_attr(cur, next);
	struct eng_qp_fsm_in in = make_in(type, cur, mask, &a);
	int got = eng_qp_modify_check(&in);

	if (got != want) {
		print_error("type %u %s->%s mask 0x%08x: got %d, want %d\n",
			    type, state_names[cur], state_names[next], mask,
			    got, want);
		fail();
	}
}

static void test_eng_qp_fsm__legal_minimal_mask_passes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
		check_modify(legal[i].type, legal[i].cur, legal[i].next,
			     IBV_QP_STATE | legal[i].req, 0);
}

static void test_eng_qp_fsm__every_state_to_reset_and_err(void **state)
{
	uint32_t cur;
	size_t t;

	(void)state;
	for (t = 0; t < 3; t++) {
		for (cur = RESET; cur <= ERR; cur++) {
			check_modify(types[t], cur, RESET, IBV_QP_STATE, 0);
			check_modify(types[t], cur, ERR, IBV_QP_STATE, 0);
		}
	}
}

static void test_eng_qp_fsm__each_required_bit_removed_fails(void **state)
{
	size_t i;
	int b;

	(void)state;
	for (i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
		for (b = 0; b < 32; b++) {
			uint32_t bit = 1u << b;

			if (!(legal[i].req & bit))
				continue;
			check_modify(legal[i].type, legal[i].cur, legal[i].next,
				     (IBV_QP_STATE | legal[i].req) & ~bit,
				     -EINVAL);
		}
	}
}

static void test_eng_qp_fsm__each_optional_bit_added_passes(void **state)
{
	size_t i;
	int b;

	(void)state;
	for (i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
		uint32_t base = IBV_QP_STATE | legal[i].req;

		for (b = 0; b < 32; b++) {
			uint32_t bit = 1u << b;

			if (!(legal[i].opt & bit))
				continue;
			check_modify(legal[i].type, legal[i].cur, legal[i].next,
				     base | bit, 0);
		}
		/* and all of them at once */
		check_modify(legal[i].type, legal[i].cur, legal[i].next,
			     base | legal[i].opt, 0);
	}
}

/* Every (type, cur, next) pair, every one of the 32 mask bits that the
 * transition neither requires nor permits: rejected. */
static void test_eng_qp_fsm__each_foreign_bit_added_fails(void **state)
{
	uint32_t cur, next, req, opt;
	size_t t;
	int b;

	(void)state;
	for (t = 0; t < 3; t++)
	for (cur = RESET; cur <= ERR; cur++)
	for (next = RESET; next <= ERR; next++) {
		if (!expect_legal(types[t], cur, next, &req, &opt))
			continue;
		for (b = 1; b < 32; b++) {
			uint32_t bit = 1u << b;

			if ((req | opt) & bit)
				continue;
			check_modify(types[t], cur, next,
				     IBV_QP_STATE | req | bit, -EINVAL);
		}
	}
}

static void test_eng_qp_fsm__illegal_transitions_fail(void **state)
{
	uint32_t cur, next, req, opt, m;
	size_t t;
	int n = 0;

	(void)state;
	for (t = 0; t < 3; t++)
	for (cur = RESET; cur <= ERR; cur++)
	for (next = RESET; next <= ERR; next++) {
		if (expect_legal(types[t], cur, next, &req, &opt))
			continue;
		n++;
		/* No mask makes them legal: try the plain one, every
		 * known bit, and each legal transition's required set. */
		check_modify(types[t], cur, next, IBV_QP_STATE, -EINVAL);
		check_modify(types[t], cur, next, ALL_KNOWN_BITS, -EINVAL);
		for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
			m = IBV_QP_STATE | legal[i].req | legal[i].opt;
			check_modify(types[t], cur, next, m, -EINVAL);
		}
	}
	/* 49 pairs per type, minus 14 into RESET/ERR and the 9 others
	 * legal for every type. */
	assert_int_equal(n, 3 * (49 - 14 - 9));
}

static void test_eng_qp_fsm__named_illegal_transitions(void **state)
{
	static const uint32_t bad[][2] = {
		{ RESET, RTR }, { RESET, RTS }, { RESET, SQD }, { RESET, SQE },
		{ INIT, RTS }, { INIT, SQD }, { RTR, INIT }, { RTR, RTR },
		{ RTR, SQD }, { RTS, INIT }, { RTS, RTR }, { RTS, SQE },
		{ SQD, INIT }, { SQD, RTR }, { SQE, SQE }, { SQE, SQD },
		{ ERR, INIT }, { ERR, RTS },
	};
	uint32_t req, opt;
	size_t i, t;

	(void)state;
	for (t = 0; t < 3; t++) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			check_modify(types[t], bad[i][0], bad[i][1],
				     ALL_KNOWN_BITS, -EINVAL);
			assert_int_equal(eng_qp_transition_masks(types[t],
					 bad[i][0], bad[i][1], &req, &opt),
					 -EINVAL);
		}
	}
}

/* The exposed table agrees with the expected one everywhere. */
static void test_eng_qp_fsm__table_matches_spec(void **state)
{
	uint32_t cur, next, req, opt, ereq, eopt;
	size_t t;
	int legal_here;

	(void)state;
	for (t = 0; t < 3; t++)
	for (cur = RESET; cur <= ERR; cur++)
	for (next = RESET; next <= ERR; next++) {
		legal_here = expect_legal(types[t], cur, next, &ereq, &eopt);
		req = opt = 0xdeadbeef;
		if (!legal_here) {
			assert_int_equal(eng_qp_transition_masks(types[t], cur,
					 next, &req, &opt), -EINVAL);
			continue;
		}
		assert_int_equal(eng_qp_transition_masks(types[t], cur, next,
							&req, &opt), 0);
		assert_int_equal(req, ereq);
		assert_int_equal(opt, eopt);
	}
	assert_int_equal(eng_qp_transition_masks(RC, ERR + 1, RESET, &req, &opt),
			 -EINVAL);
	assert_int_equal(eng_qp_transition_masks(RC, RESET, ERR + 1, &req, &opt),
			 -EINVAL);
}

/* Without IBV_QP_STATE the request is cur→cur. */
static void test_eng_qp_fsm__no_state_bit_is_same_state(void **state)
{
	(void)state;
	check_modify(RC, RESET, RESET, 0, 0);
	check_modify(RC, ERR, ERR, 0, 0);
	check_modify(RC, INIT, INIT, 0, 0);
	check_modify(RC, INIT, INIT, IBV_QP_ACCESS_FLAGS, 0);
	check_modify(UD, INIT, INIT, IBV_QP_QKEY, 0);
	check_modify(RC, RTS, RTS, IBV_QP_MIN_RNR_TIMER, 0);
	check_modify(UD, RTS, RTS, IBV_QP_QKEY, 0);
	check_modify(RC, SQD, SQD, IBV_QP_TIMEOUT | IBV_QP_AV, 0);
	/* no self-transition in RTR or SQE */
	check_modify(RC, RTR, RTR, 0, -EINVAL);
	check_modify(UC, SQE, SQE, 0, -EINVAL);
	check_modify(UD, RTR, RTR, IBV_QP_QKEY, -EINVAL);
	/* RESET and ERR take nothing but the state */
	check_modify(RC, RESET, RESET, IBV_QP_PORT, -EINVAL);
	check_modify(UD, ERR, ERR, IBV_QP_QKEY, -EINVAL);
	/* an RTR-only attribute in INIT without moving */
	check_modify(RC, INIT, INIT, IBV_QP_PATH_MTU, -EINVAL);
}

static void test_eng_qp_fsm__null_attr(void **state)
{
	struct eng_qp_fsm_in in = make_in(RC, RESET, 0, NULL);

	(void)state;
	assert_int_equal(eng_qp_modify_check(&in), 0);
	assert_int_equal(eng_qp_next_state(&in), RESET);
	in.attr_mask = IBV_QP_STATE;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	assert_int_equal(eng_qp_next_state(&in), RESET);
	assert_int_equal(eng_qp_modify_check(NULL), -EINVAL);
}

/* XRC's halves (IBA 19.2.5): the masks ibv_xsrq_pingpong sends pass;
 * XRC_SEND's RTR needs no responder attributes, XRC_RECV's RTS no
 * requester retry counts; each half still needs what it has. */
static void test_eng_qp_fsm__xrc_masks(void **state)
{
	const uint32_t init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      IBV_QP_ACCESS_FLAGS;
	const uint32_t rtr_uc = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	const uint32_t rtr_rc = rtr_uc | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
	const uint32_t rts_t = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN;
	const uint32_t rts_i = rts_t | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			       IBV_QP_MAX_QP_RD_ATOMIC;

	(void)state;
	assert_true(eng_qp_type_supported(IBV_QPT_XRC_SEND));
	assert_true(eng_qp_type_supported(IBV_QPT_XRC_RECV));
	check_modify(IBV_QPT_XRC_RECV, RESET, INIT, init, 0);
	check_modify(IBV_QPT_XRC_SEND, RESET, INIT, init, 0);
	check_modify(IBV_QPT_XRC_RECV, INIT, RTR, rtr_rc, 0);
	check_modify(IBV_QPT_XRC_RECV, INIT, RTR, rtr_uc, -EINVAL);
	check_modify(IBV_QPT_XRC_SEND, INIT, RTR, rtr_uc, 0);
	check_modify(IBV_QPT_XRC_SEND, INIT, RTR, rtr_rc, -EINVAL);
	check_modify(IBV_QPT_XRC_RECV, RTR, RTS, rts_t, 0);
	check_modify(IBV_QPT_XRC_RECV, RTR, RTS, rts_i, -EINVAL);
	check_modify(IBV_QPT_XRC_SEND, RTR, RTS, rts_i, 0);
	check_modify(IBV_QPT_XRC_SEND, RTR, RTS, rts_t, -EINVAL);
	check_modify(IBV_QPT_XRC_SEND, RESET, INIT,
		     init | IBV_QP_QKEY, -EINVAL);
}

static void test_eng_qp_fsm__unsupported_qp_type(void **state)
{
	static const uint32_t bad[] = {
		0, 1, 5, 6, 7, IBV_QPT_RAW_PACKET, IBV_QPT_DRIVER,
		0xffffffff,
	};
	struct pv_ipc_dev_attr lim = { .max_qp_wr = 16, .max_sge = 4 };
	struct pv_ipc_qp_cap cap = { .max_send_wr = 1 };
	uint32_t req, opt;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check_modify(bad[i], RESET, INIT, IBV_QP_STATE |
			     IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
			     -EOPNOTSUPP);
		check_modify(bad[i], RESET, RESET, 0, -EOPNOTSUPP);
		assert_false(eng_qp_type_supported(bad[i]));
		assert_int_equal(eng_qp_transition_masks(bad[i], RESET, ERR,
							&req, &opt), -EINVAL);
		assert_int_equal(eng_qp_cap_check(&cap, &lim, bad[i]),
				 -EOPNOTSUPP);
	}
	assert_true(eng_qp_type_supported(RC));
	assert_true(eng_qp_type_supported(UC));
	assert_true(eng_qp_type_supported(UD));
}

static void test_eng_qp_fsm__bad_states_rejected(void **state)
{
	struct pv_ipc_qp_attr a = good_attr(RESET, IBV_QPS_UNKNOWN);
	struct eng_qp_fsm_in in = make_in(RC, RESET, IBV_QP_STATE, &a);

	(void)state;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	a.qp_state = 100;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	a.qp_state = RESET;
	in.cur_state = IBV_QPS_UNKNOWN;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
	in.cur_state = 0xffffffff;
	in.attr_mask = 0;
	assert_int_equal(eng_qp_modify_check(&in), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_qp_fsm__legal_minimal_mask_passes),
		cmocka_unit_test(test_eng_qp_fsm__every_state_to_reset_and_err),
		cmocka_unit_test(test_eng_qp_fsm__each_required_bit_removed_fails),
		cmocka_unit_test(test_eng_qp_fsm__each_optional_bit_added_passes),
		cmocka_unit_test(test_eng_qp_fsm__each_foreign_bit_added_fails),
		cmocka_unit_test(test_eng_qp_fsm__illegal_transitions_fail),
		cmocka_unit_test(test_eng_qp_fsm__named_illegal_transitions),
		cmocka_unit_test(test_eng_qp_fsm__table_matches_spec),
		cmocka_unit_test(test_eng_qp_fsm__no_state_bit_is_same_state),
		cmocka_unit_test(test_eng_qp_fsm__null_attr),
		cmocka_unit_test(test_eng_qp_fsm__unsupported_qp_type),
		cmocka_unit_test(test_eng_qp_fsm__xrc_masks),
		cmocka_unit_test(test_eng_qp_fsm__bad_states_rejected),
		cmocka_unit_test(test_eng_qp_fsm__cur_state_attr),
		cmocka_unit_test(test_eng_qp_fsm__value_ranges),
		cmocka_unit_test(test_eng_qp_fsm__device_limits_from_input),
		cmocka_unit_test(test_eng_qp_fsm__next_state),
		cmocka_unit_test(test_eng_qp_fsm__full_lifecycle),
		cmocka_unit_test(test_eng_qp_fsm__cap_check),
		cmocka_unit_test(test_eng_qp_fsm__cap_grant_examples),
		cmocka_unit_test(test_eng_qp_fsm__cap_grant_never_below_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
