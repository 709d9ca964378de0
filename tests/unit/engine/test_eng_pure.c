/* SPDX-License-Identifier: MIT */
/* Unit tests of the engine's pure pieces: index and handle tables, MTU
 * mapping, GUID from MAC, the CSPRNG and key tables, limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_csprng.h"
#include "providers/soft/engine/eng_dp_budget.h"
#include "providers/soft/engine/eng_handles.h"
#include "providers/soft/engine/eng_idtab.h"
#include "providers/soft/engine/eng_keytab.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_mrkey.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_rguard.h"

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

/* A live handle may name another object (of another kind) in place;
 * a stale or freed one may not. */
static void test_eng_handles__set_in_place(void **state)
{
	struct eng_htab t;
	int a, b;

	(void)state;
	eng_htab_init(&t);
	int64_t ha = eng_htab_add(&t, &a, 1);

	assert_int_equal(eng_htab_set(&t, (uint32_t)ha, &b, 2), 0);
	assert_null(eng_htab_get(&t, (uint32_t)ha, 1));
	assert_ptr_equal(eng_htab_get(&t, (uint32_t)ha, 2), &b);
	assert_int_equal(t.used, 1);
	assert_int_equal(eng_htab_set(&t, (uint32_t)ha, NULL, 2), -ENOENT);
	assert_int_equal(eng_htab_set(&t, (uint32_t)ha + 0x10000u, &a, 1),
			 -ENOENT);
	assert_int_equal(eng_htab_del(&t, (uint32_t)ha), 0);
	assert_int_equal(eng_htab_set(&t, (uint32_t)ha, &a, 1), -ENOENT);
	assert_int_equal(eng_htab_set(&t, 0, &a, 1), -ENOENT);
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

/* RFC 8439 2.3.2's test vector for the block function. */
static void test_eng_csprng__chacha20_rfc8439_vector(void **state)
{
	uint32_t key[8], nonce[3] = { 0x09000000, 0x4a000000, 0 }, out[16];
	static const uint32_t want[16] = {
		0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
		0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
		0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
		0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
	};

	(void)state;
	for (int i = 0; i < 8; i++)
		key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 |
			 (uint32_t)(4 * i + 2) << 16 |
			 (uint32_t)(4 * i + 3) << 24;
	eng_chacha20_block(key, 1, nonce, out);
	assert_memory_equal(out, want, sizeof(want));
}

static void test_eng_csprng__below_stays_in_range(void **state)
{
	unsigned seen[7] = { 0 };

	(void)state;
	for (int i = 0; i < 7000; i++) {
		uint32_t v = eng_csprng_below(7);

		assert_true(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(seen[i] > 700 && seen[i] < 1300);
}

/* ibv_rereg_mr's rekey: both keys new and distinct, the old ones no
 * longer find the MR (and stay out of use), the other MR untouched. */
static void test_eng_mrkey__rekey_replaces_both(void **state)
{
	struct eng_mr a = { 0 }, b = { 0 };
	struct eng_mrkeys k;
	uint32_t ol, orr;

	(void)state;
	eng_mrkeys_init(&k);
	assert_int_equal(eng_mrkeys_assign(&k, &a), 0);
	assert_int_equal(eng_mrkeys_assign(&k, &b), 0);
	for (int i = 0; i < 100; i++) {
		ol = a.lkey;
		orr = a.rkey;
		assert_int_equal(eng_mrkeys_rekey(&k, &a), 0);
		assert_int_not_equal(a.lkey, ol);
		assert_int_not_equal(a.rkey, orr);
		assert_int_not_equal(a.lkey, a.rkey);
		assert_null(eng_mrkeys_by_lkey(&k, ol));
		assert_null(eng_mrkeys_by_rkey(&k, orr));
		assert_true(eng_keytab_taken(&k.rkeys, orr));
		assert_ptr_equal(eng_mrkeys_by_lkey(&k, a.lkey), &a);
		assert_ptr_equal(eng_mrkeys_by_rkey(&k, a.rkey), &a);
		assert_null(eng_mrkeys_by_lkey(&k, a.rkey));
		assert_ptr_equal(eng_mrkeys_by_rkey(&k, b.rkey), &b);
	}
	assert_int_equal(k.lkeys.live, 2);
	assert_int_equal(k.rkeys.live, 2);
	eng_mrkeys_fini(&k);
}

/* Memory windows: found by index whatever the key byte; an index's 256
 * keys never hold an MR key; a released index stays out of use. */
static void test_eng_mrkey__mw_index(void **state)
{
	static struct eng_mw w[64];
	struct eng_mr m[64];
	struct eng_mrkeys k;

	(void)state;
	memset(m, 0, sizeof(m));
	eng_mrkeys_init(&k);
	for (int i = 0; i < 64; i++) {
		assert_int_equal(eng_mrkeys_mw_assign(&k, &w[i]), 0);
		assert_int_equal(eng_mrkeys_assign(&k, &m[i]), 0);
	}
	for (int i = 0; i < 64; i++) {
		uint32_t r = w[i].rkey;

		assert_ptr_equal(eng_mrkeys_mw_by_rkey(&k, r), &w[i]);
		assert_ptr_equal(eng_mrkeys_mw_by_rkey(&k, r ^ 0xffu), &w[i]);
		assert_null(eng_mrkeys_by_rkey(&k, r));
		for (int j = 0; j < 64; j++) {
			assert_int_not_equal(ENG_MW_IDX(m[j].rkey),
					     ENG_MW_IDX(r));
			assert_int_not_equal(ENG_MW_IDX(m[j].lkey),
					     ENG_MW_IDX(r));
		}
	}
	eng_mrkeys_mw_release(&k, &w[0]);
	assert_null(eng_mrkeys_mw_by_rkey(&k, w[0].rkey));
	assert_true(eng_keytab_taken(&k.mwidx, ENG_MW_IDX(w[0].rkey)));
	eng_mrkeys_fini(&k);
}

static void test_eng_keytab__put_get_del_quarantine(void **state)
{
	struct eng_keytab t;
	int x[3000];

	(void)state;
	eng_keytab_init(&t, 8);
	assert_int_equal(eng_keytab_put(&t, 0, &x[0]), -EINVAL);
	for (uint32_t k = 1; k <= 3000; k++)
		assert_int_equal(eng_keytab_put(&t, k * 7919u, &x[k - 1]), 0);
	assert_int_equal(eng_keytab_put(&t, 7919u, &x[0]), -EEXIST);
	for (uint32_t k = 1; k <= 3000; k++)
		assert_ptr_equal(eng_keytab_get(&t, k * 7919u), &x[k - 1]);
	assert_null(eng_keytab_get(&t, 12345));
	/* Freed keys stay taken for the next 8 frees, then come free. */
	for (uint32_t k = 1; k <= 20; k++)
		eng_keytab_del(&t, k * 7919u);
	for (uint32_t k = 1; k <= 20; k++) {
		assert_null(eng_keytab_get(&t, k * 7919u));
		assert_int_equal(eng_keytab_taken(&t, k * 7919u), k > 12);
	}
	for (uint32_t k = 21; k <= 3000; k++)
		assert_ptr_equal(eng_keytab_get(&t, k * 7919u), &x[k - 1]);
	assert_int_equal(eng_keytab_put(&t, 20 * 7919u, &x[0]), -EEXIST);
	assert_int_equal(eng_keytab_put(&t, 1 * 7919u, &x[0]), 0);
	assert_int_equal(t.live, 2981);
	assert_int_equal(t.quarantined, 8);
	eng_keytab_fini(&t);
}

/* QP numbers: random over the range, never a live or recently freed
 * one, never below min or above max. */
static void test_eng_idtab__sparse_random_no_early_reuse(void **state)
{
	enum { WINDOW = 4096, ROUNDS = 20000 };
	static uint32_t hist[ROUNDS];
	struct eng_idtab t;
	int x;
	uint32_t seq_hits = 0;

	(void)state;
	eng_idtab_init_sparse(&t, 2, 0xfffffe, WINDOW);
	for (int i = 0; i < ROUNDS; i++) {
		int64_t q = eng_idtab_alloc(&t, &x);

		assert_true(q >= 2 && q <= 0xfffffe);
		for (int j = i > WINDOW ? i - WINDOW : 0; j < i; j++)
			assert_true(hist[j] != (uint32_t)q);
		if (i && (uint32_t)q == hist[i - 1] + 1)
			seq_hits++;
		hist[i] = (uint32_t)q;
		assert_ptr_equal(eng_idtab_get(&t, (uint32_t)q), &x);
		eng_idtab_free(&t, (uint32_t)q);
		assert_null(eng_idtab_get(&t, (uint32_t)q));
	}
	assert_true(seq_hits < 5);
	assert_int_equal(t.used, 0);
	eng_idtab_fini(&t);
}

static void test_eng_idtab__sparse_small_range_fills(void **state)
{
	struct eng_idtab t;
	int x;

	(void)state;
	eng_idtab_init_sparse(&t, 2, 9, 0);
	for (int i = 0; i < 8; i++) {
		int64_t q = eng_idtab_alloc(&t, &x);

		assert_true(q >= 2 && q <= 9);
	}
	assert_int_equal(eng_idtab_alloc(&t, &x), -ENOMEM);
	assert_null(eng_idtab_get(&t, 1));
	assert_null(eng_idtab_get(&t, 10));
	eng_idtab_fini(&t);
}

/* The remote-error budget: rguard_burst errors, then refusals until
 * tokens come back at rguard_rate a second. */
static void check_rguard(uint32_t burst, uint32_t rate)
{
	struct eng_rguard g = { 0 };
	uint64_t t = 5000000000ull;
	int emptied = 0;

	assert_true(eng_rguard_admit(&g, t));
	for (uint32_t i = 0; i < burst; i++)
		emptied += eng_rguard_charge(&g, t);
	assert_int_equal(emptied, 1);
	assert_true(g.limited);
	assert_false(eng_rguard_admit(&g, t + 1000000000ull / rate / 4));
	assert_int_equal(g.refused, 1);
	/* One token per 1/RATE s. */
	assert_false(eng_rguard_admit(&g, t + 1000000000ull / rate / 2));
	assert_true(eng_rguard_admit(&g, t + 1000000000ull / rate));
	assert_false(g.limited);
	assert_true(eng_rguard_charge(&g, t + 1000000000ull / rate));
	/* A long quiet spell refills only up to the burst. */
	eng_rguard_refill(&g, t + 3600000000000ull);
	assert_int_equal(g.b.tokens, burst);
	/* Nor does a year at the highest rate overflow the arithmetic. */
	g.b.tokens = 0;
	eng_rguard_refill(&g, t + 3600000000000ull * 24 * 365);
	assert_int_equal(g.b.tokens, burst);
}

static void test_eng_rguard__burst_then_rate(void **state)
{
	(void)state;
	assert_int_equal(eng_lim.rguard_burst, 64);
	assert_int_equal(eng_lim.rguard_rate, 16);
	check_rguard(64, 16);
}

/* --limit rguard_burst=... and rguard_rate=... reach the bucket. */
static void test_eng_rguard__limits_reach_the_bucket(void **state)
{
	(void)state;
	assert_int_equal(eng_limits_set("rguard_burst=3"), 0);
	assert_int_equal(eng_limits_set("rguard_rate=1000"), 0);
	check_rguard(3, 1000);
	assert_int_equal(eng_limits_set("rguard_burst=65536"), 0);
	assert_int_equal(eng_limits_set("rguard_rate=1000000"), 0);
	check_rguard(65536, 1000000);
	assert_int_equal(eng_limits_set("rguard_burst=0"), -ERANGE);
	assert_int_equal(eng_limits_set("rguard_burst=65537"), -ERANGE);
	assert_int_equal(eng_limits_set("rguard_rate=0"), -ERANGE);
	assert_int_equal(eng_limits_set("rguard_burst=64"), 0);
	assert_int_equal(eng_limits_set("rguard_rate=16"), 0);
}

/* The data path's budgets come from the dp_* limits (here a QP turn 2
 * chunks / 16 WQEs, a pod 4 chunks / 64 WQEs, a pass 16 chunks / 256
 * WQEs), and a changed limit changes the budget. */
static void test_eng_dp_budget__limits_reach_the_scheduler(void **state)
{
	struct eng_dp_budget pass, b;

	(void)state;
	assert_int_equal(eng_limits_set("dp_pass_kb=1024"), 0);
	assert_int_equal(eng_limits_set("dp_pass_wqes=256"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_kb=256"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_wqes=64"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_kb=128"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_wqes=16"), 0);
	pass = eng_dp_pass_budget();
	assert_true(pass.bytes == 16ull * ENG_DP_CHUNK);
	assert_int_equal(pass.wqes, 256);
	b = eng_dp_turn_budget(&pass, 0, 0);
	assert_true(b.bytes == 2ull * ENG_DP_CHUNK);
	assert_int_equal(b.wqes, 16);
	/* The pod's share used up (or over, by a last chunk): nothing. */
	b = eng_dp_turn_budget(&pass, 4ull * ENG_DP_CHUNK, 0);
	assert_true(b.bytes == 0);
	b = eng_dp_turn_budget(&pass, 5ull * ENG_DP_CHUNK, 70);
	assert_true(b.bytes == 0 && b.wqes == 0);
	b = eng_dp_turn_budget(&pass, 3ull * ENG_DP_CHUNK, 60);
	assert_true(b.bytes == ENG_DP_CHUNK);
	assert_int_equal(b.wqes, 4);
	/* The pass's remainder bounds the turn. */
	pass.bytes = 1000;
	pass.wqes = 2;
	b = eng_dp_turn_budget(&pass, 0, 0);
	assert_true(b.bytes == 1000);
	assert_int_equal(b.wqes, 2);

	assert_int_equal(eng_limits_set("dp_pass_kb=4096"), 0);
	assert_int_equal(eng_limits_set("dp_pass_wqes=1000"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_kb=2048"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_wqes=300"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_kb=512"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_wqes=100"), 0);
	pass = eng_dp_pass_budget();
	assert_true(pass.bytes == 4096ull * 1024);
	assert_int_equal(pass.wqes, 1000);
	b = eng_dp_turn_budget(&pass, 0, 0);
	assert_true(b.bytes == 512ull * 1024);
	assert_int_equal(b.wqes, 100);
	b = eng_dp_turn_budget(&pass, 1800ull * 1024, 250);
	assert_true(b.bytes == 248ull * 1024);
	assert_int_equal(b.wqes, 50);
	assert_int_equal(eng_limits_set("dp_qp_turn_wqes=0"), -ERANGE);
	assert_int_equal(eng_limits_set("dp_pass_kb=0"), -ERANGE);
	assert_int_equal(eng_limits_set("dp_pass_kb=8192"), 0);
	assert_int_equal(eng_limits_set("dp_pass_wqes=1024"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_kb=2048"), 0);
	assert_int_equal(eng_limits_set("dp_pod_pass_wqes=128"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_kb=1024"), 0);
	assert_int_equal(eng_limits_set("dp_qp_turn_wqes=64"), 0);
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
		cmocka_unit_test(test_eng_handles__set_in_place),
		cmocka_unit_test(test_eng_handles__many),
		cmocka_unit_test(test_eng_port__ib_mtu_from_netdev_mtu),
		cmocka_unit_test(test_eng_port__guid_is_modified_eui64),
		cmocka_unit_test(test_eng_csprng__chacha20_rfc8439_vector),
		cmocka_unit_test(test_eng_csprng__below_stays_in_range),
		cmocka_unit_test(test_eng_keytab__put_get_del_quarantine),
		cmocka_unit_test(test_eng_mrkey__rekey_replaces_both),
		cmocka_unit_test(test_eng_mrkey__mw_index),
		cmocka_unit_test(test_eng_idtab__sparse_random_no_early_reuse),
		cmocka_unit_test(test_eng_idtab__sparse_small_range_fills),
		cmocka_unit_test(test_eng_rguard__burst_then_rate),
		cmocka_unit_test(test_eng_rguard__limits_reach_the_bucket),
		cmocka_unit_test(test_eng_dp_budget__limits_reach_the_scheduler),
		cmocka_unit_test(test_eng_limits__set_and_reject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
