/* SPDX-License-Identifier: MIT */
/* Unit tests of GID ownership: one device per GID, first holder wins,
 * tables stay dense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_gid_own.h"

/* ::ffff:10.0.0.x */
static void v4(uint8_t g[16], uint8_t x)
{
	memset(g, 0, 16);
	g[10] = 0xff;
	g[11] = 0xff;
	g[12] = 10;
	g[15] = x;
}

static void fill_table(struct pv_ipc_gid_entry *t, const uint8_t *xs,
		       uint32_t n)
{
	memset(t, 0, sizeof(*t) * PV_GID_TABLE_MAX);
	for (uint32_t i = 0; i < n; i++)
		v4(t[i].gid, xs[i]);
}

static void test_eng_gid_own__no_other_device_keeps_all_in_order(void **state)
{
	uint8_t want[3][16], g[16];
	struct eng_gid_claim cl;

	(void)state;
	v4(want[0], 1);
	v4(want[1], 7);
	v4(want[2], 3);
	eng_gid_claim(1, (const uint8_t (*)[16])want, 3, NULL, 0, &cl);
	assert_int_equal(cl.count, 3);
	assert_int_equal(cl.nconflicts, 0);
	v4(g, 1);
	assert_memory_equal(cl.gid[0], g, 16);
	v4(g, 7);
	assert_memory_equal(cl.gid[1], g, 16);
	v4(g, 3);
	assert_memory_equal(cl.gid[2], g, 16);
}

static void test_eng_gid_own__owned_gid_left_out_and_next_moves_up(void **state)
{
	struct pv_ipc_gid_entry b[PV_GID_TABLE_MAX];
	struct eng_gid_holder h = { .dev_id = 2, .count = 1, .gid = b };
	uint8_t want[2][16], g[16];
	struct eng_gid_claim cl;

	(void)state;
	fill_table(b, (const uint8_t[]){ 2 }, 1);
	/* the primary IPv4 is another device's: index 0 goes to the next */
	v4(want[0], 2);
	v4(want[1], 5);
	eng_gid_claim(1, (const uint8_t (*)[16])want, 2, &h, 1, &cl);
	assert_int_equal(cl.count, 1);
	v4(g, 5);
	assert_memory_equal(cl.gid[0], g, 16);
	assert_int_equal(cl.nconflicts, 1);
	v4(g, 2);
	assert_memory_equal(cl.conflict[0], g, 16);
	assert_int_equal(cl.conflict_owner[0], 2);
}

/* A claimed GID (the CNI assigned the address to this attachment) is
 * taken from a holder that does not claim it; between claimants the
 * holder keeps it. */
static void test_eng_gid_own__claim_beats_squatter_not_claimant(void **state)
{
	struct pv_ipc_gid_entry sq[PV_GID_TABLE_MAX];
	uint8_t want[1][16], claim[1][16];
	struct eng_gid_holder h = { .dev_id = 2, .count = 1, .gid = sq };
	struct eng_gid_claim cl;

	(void)state;
	fill_table(sq, (const uint8_t[]){ 1 }, 1);
	v4(want[0], 1);
	v4(claim[0], 1);
	eng_gid_claim_with(1, (const uint8_t (*)[16])want, 1,
			   (const uint8_t (*)[16])claim, 1, &h, 1, &cl);
	assert_int_equal(cl.count, 1);
	assert_int_equal(cl.nconflicts, 0);
	/* The squatter, rebuilt with device 1 holding it, loses it. */
	{
		struct pv_ipc_gid_entry own[PV_GID_TABLE_MAX];
		struct eng_gid_holder o = { .dev_id = 1, .count = 1,
					    .gid = own, .nclaims = 1,
					    .claims = (const uint8_t (*)[16])claim };

		fill_table(own, (const uint8_t[]){ 1 }, 1);
		eng_gid_claim(2, (const uint8_t (*)[16])want, 1, &o, 1, &cl);
		assert_int_equal(cl.count, 0);
		assert_int_equal(cl.nconflicts, 1);
		assert_int_equal(cl.conflict_owner[0], 1);
	}
	/* Both claim: the holder keeps it. */
	h.nclaims = 1;
	h.claims = (const uint8_t (*)[16])claim;
	eng_gid_claim_with(1, (const uint8_t (*)[16])want, 1,
			   (const uint8_t (*)[16])claim, 1, &h, 1, &cl);
	assert_int_equal(cl.count, 0);
	assert_int_equal(cl.nconflicts, 1);
}

static void test_eng_gid_own__own_table_is_not_a_conflict(void **state)
{
	struct pv_ipc_gid_entry a[PV_GID_TABLE_MAX];
	struct eng_gid_holder h = { .dev_id = 1, .count = 1, .gid = a };
	uint8_t want[1][16];
	struct eng_gid_claim cl;

	(void)state;
	fill_table(a, (const uint8_t[]){ 1 }, 1);
	v4(want[0], 1);
	eng_gid_claim(1, (const uint8_t (*)[16])want, 1, &h, 1, &cl);
	assert_int_equal(cl.count, 1);
	assert_int_equal(cl.nconflicts, 0);
}

static void test_eng_gid_own__owner_found_among_many(void **state)
{
	struct pv_ipc_gid_entry t1[PV_GID_TABLE_MAX], t2[PV_GID_TABLE_MAX];
	struct eng_gid_holder h[2] = {
		{ .dev_id = 4, .count = 2, .gid = t1 },
		{ .dev_id = 9, .count = 1, .gid = t2 },
	};
	uint8_t g[16];

	(void)state;
	fill_table(t1, (const uint8_t[]){ 1, 2 }, 2);
	fill_table(t2, (const uint8_t[]){ 3 }, 1);
	v4(g, 2);
	assert_int_equal(eng_gid_owner(h, 2, 0, g), 4);
	v4(g, 3);
	assert_int_equal(eng_gid_owner(h, 2, 0, g), 9);
	assert_int_equal(eng_gid_owner(h, 2, 9, g), 0);
	v4(g, 4);
	assert_int_equal(eng_gid_owner(h, 2, 0, g), 0);
	/* entries past a holder's count are not its GIDs */
	h[1].count = 0;
	v4(g, 3);
	assert_int_equal(eng_gid_owner(h, 2, 0, g), 0);
}

static void test_eng_gid_own__repeated_candidate_kept_once(void **state)
{
	uint8_t want[3][16];
	struct eng_gid_claim cl;

	(void)state;
	v4(want[0], 1);
	v4(want[1], 1);
	v4(want[2], 2);
	eng_gid_claim(1, (const uint8_t (*)[16])want, 3, NULL, 0, &cl);
	assert_int_equal(cl.count, 2);
}

static void test_eng_gid_own__conflicts_let_later_candidates_fill_table(void **state)
{
	struct pv_ipc_gid_entry b[PV_GID_TABLE_MAX];
	struct eng_gid_holder h = { .dev_id = 2, .count = 4, .gid = b };
	uint8_t want[PV_GID_TABLE_MAX + 4][16];
	struct eng_gid_claim cl;

	(void)state;
	fill_table(b, (const uint8_t[]){ 100, 101, 102, 103 }, 4);
	for (uint32_t i = 0; i < PV_GID_TABLE_MAX + 4; i++)
		v4(want[i], (uint8_t)(100 + i));
	eng_gid_claim(1, (const uint8_t (*)[16])want, PV_GID_TABLE_MAX + 4,
		      &h, 1, &cl);
	assert_int_equal(cl.count, PV_GID_TABLE_MAX);
	assert_int_equal(cl.nconflicts, 4);
	/* the first free candidate moved up to index 0 */
	{
		uint8_t g[16];

		v4(g, 104);
		assert_memory_equal(cl.gid[0], g, 16);
		v4(g, 100 + 4 + PV_GID_TABLE_MAX - 1);
		assert_memory_equal(cl.gid[PV_GID_TABLE_MAX - 1], g, 16);
	}
}

static void test_eng_gid_own__table_capped_without_conflicts(void **state)
{
	uint8_t want[PV_GID_TABLE_MAX + 2][16];
	struct eng_gid_claim cl;

	(void)state;
	for (uint32_t i = 0; i < PV_GID_TABLE_MAX + 2; i++)
		v4(want[i], (uint8_t)i);
	eng_gid_claim(1, (const uint8_t (*)[16])want, PV_GID_TABLE_MAX + 2,
		      NULL, 0, &cl);
	assert_int_equal(cl.count, PV_GID_TABLE_MAX);
	assert_int_equal(cl.nconflicts, 0);
}

static void test_eng_gid_own__released_when_a_gid_leaves(void **state)
{
	struct pv_ipc_gid_entry old[PV_GID_TABLE_MAX];
	uint8_t now[2][16];

	(void)state;
	fill_table(old, (const uint8_t[]){ 1, 2 }, 2);
	v4(now[0], 2);
	v4(now[1], 1);
	/* reordered: nothing let go */
	assert_false(eng_gid_released(old, 2, (const uint8_t (*)[16])now, 2));
	/* one replaced by another: let go */
	v4(now[1], 3);
	assert_true(eng_gid_released(old, 2, (const uint8_t (*)[16])now, 2));
	assert_true(eng_gid_released(old, 1, (const uint8_t (*)[16])now, 0));
	assert_false(eng_gid_released(old, 0, (const uint8_t (*)[16])now, 0));
}

/* The scenario of a pod adding its neighbour's address: the second
 * device's claim leaves it out; once the owner drops it (its table no
 * longer has it), the same candidates claim it. */
static void test_eng_gid_own__pickup_after_owner_lets_go(void **state)
{
	struct pv_ipc_gid_entry b[PV_GID_TABLE_MAX];
	struct eng_gid_holder h = { .dev_id = 2, .count = 1, .gid = b };
	uint8_t want[2][16], g[16];
	struct eng_gid_claim cl;

	(void)state;
	fill_table(b, (const uint8_t[]){ 2 }, 1);
	v4(want[0], 1);
	v4(want[1], 2);
	eng_gid_claim(1, (const uint8_t (*)[16])want, 2, &h, 1, &cl);
	assert_int_equal(cl.count, 1);
	assert_int_equal(cl.nconflicts, 1);
	h.count = 0;
	eng_gid_claim(1, (const uint8_t (*)[16])want, 2, &h, 1, &cl);
	assert_int_equal(cl.count, 2);
	assert_int_equal(cl.nconflicts, 0);
	v4(g, 2);
	assert_memory_equal(cl.gid[1], g, 16);
	assert_true(eng_gid_in(cl.gid, cl.count, g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_gid_own__no_other_device_keeps_all_in_order),
		cmocka_unit_test(test_eng_gid_own__owned_gid_left_out_and_next_moves_up),
		cmocka_unit_test(test_eng_gid_own__own_table_is_not_a_conflict),
		cmocka_unit_test(test_eng_gid_own__owner_found_among_many),
		cmocka_unit_test(test_eng_gid_own__repeated_candidate_kept_once),
		cmocka_unit_test(test_eng_gid_own__conflicts_let_later_candidates_fill_table),
		cmocka_unit_test(test_eng_gid_own__table_capped_without_conflicts),
		cmocka_unit_test(test_eng_gid_own__released_when_a_gid_leaves),
		cmocka_unit_test(test_eng_gid_own__claim_beats_squatter_not_claimant),
		cmocka_unit_test(test_eng_gid_own__pickup_after_owner_lets_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
