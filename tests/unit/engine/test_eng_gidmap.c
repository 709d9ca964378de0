/* SPDX-License-Identifier: MIT */
/* Unit tests of the engine's GID -> device index (eng_gidmap.c): lookups
 * by GID and by (GID, device), two holders of one GID at once, deletion
 * keeping every other entry findable (backward shift), growth, and a
 * look-up's probe run staying short for GIDs a pod picks: 4096 GIDs of one
 * /116 (what one interface's addresses could be) under two seeds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_gidmap.h"

/* A RoCEv2 GID of IPv4 10.80.x.y (::ffff:a.b.c.d). */
static void v4gid(uint8_t g[16], uint32_t ip)
{
	memset(g, 0, 16);
	g[10] = g[11] = 0xff;
	g[12] = (uint8_t)(ip >> 24);
	g[13] = (uint8_t)(ip >> 16);
	g[14] = (uint8_t)(ip >> 8);
	g[15] = (uint8_t)ip;
}

static void test_eng_gidmap__put_get_has_del(void **state)
{
	struct eng_gidmap m;
	uint8_t a[16], b[16], c[16];

	(void)state;
	eng_gidmap_init(&m, 1);
	v4gid(a, 0x0a50010a);
	v4gid(b, 0x0a50020a);
	v4gid(c, 0x0a50030a);
	assert_int_equal(eng_gidmap_get(&m, a), 0);	/* empty, no table */
	assert_false(eng_gidmap_has(&m, a, 1));
	assert_int_equal(eng_gidmap_put(&m, a, 0), -EINVAL);
	assert_int_equal(eng_gidmap_put(&m, a, 1), 0);
	assert_int_equal(eng_gidmap_put(&m, a, 1), 0);	/* idempotent */
	assert_int_equal(m.n, 1);
	assert_int_equal(eng_gidmap_put(&m, b, 2), 0);
	assert_int_equal(eng_gidmap_get(&m, a), 1);
	assert_int_equal(eng_gidmap_get(&m, b), 2);
	assert_int_equal(eng_gidmap_get(&m, c), 0);
	assert_true(eng_gidmap_has(&m, a, 1));
	assert_false(eng_gidmap_has(&m, a, 2));
	assert_false(eng_gidmap_has(&m, a, 0));
	eng_gidmap_del(&m, a, 2);			/* not its holder */
	assert_int_equal(eng_gidmap_get(&m, a), 1);
	eng_gidmap_del(&m, a, 1);
	assert_int_equal(eng_gidmap_get(&m, a), 0);
	assert_int_equal(eng_gidmap_get(&m, b), 2);
	assert_int_equal(m.n, 1);
	eng_gidmap_fini(&m);
	assert_int_equal(eng_gidmap_get(&m, b), 0);
}

/* A claim takes a GID from a squatter before the squatter's table is
 * rebuilt: both hold it for a moment, and either may let go first. */
static void test_eng_gidmap__two_holders(void **state)
{
	struct eng_gidmap m;
	uint8_t g[16];

	(void)state;
	eng_gidmap_init(&m, 7);
	v4gid(g, 0x0a500110);
	assert_int_equal(eng_gidmap_put(&m, g, 3), 0);
	assert_int_equal(eng_gidmap_put(&m, g, 9), 0);
	assert_true(eng_gidmap_has(&m, g, 3));
	assert_true(eng_gidmap_has(&m, g, 9));
	eng_gidmap_del(&m, g, 3);
	assert_int_equal(eng_gidmap_get(&m, g), 9);
	assert_false(eng_gidmap_has(&m, g, 3));
	eng_gidmap_del(&m, g, 9);
	assert_int_equal(eng_gidmap_get(&m, g), 0);
	eng_gidmap_fini(&m);
}

/* Many devices' GIDs: every one found after growth and after half of them
 * are deleted in an order unrelated to insertion. */
static void test_eng_gidmap__grow_and_delete(void **state)
{
	struct eng_gidmap m;
	uint8_t g[16];

	(void)state;
	eng_gidmap_init(&m, 0x1234567890abcdefull);
	for (uint32_t i = 1; i <= 3000; i++) {
		v4gid(g, 0x0a000000 + i * 7919u);
		assert_int_equal(eng_gidmap_put(&m, g, 1 + i % 200), 0);
	}
	assert_int_equal(m.n, 3000);
	assert_true(2 * m.n <= m.mask + 1);		/* at most half full */
	for (uint32_t i = 3000; i >= 1; i -= 2) {
		v4gid(g, 0x0a000000 + i * 7919u);
		eng_gidmap_del(&m, g, 1 + i % 200);
		if (i < 2)
			break;
	}
	for (uint32_t i = 1; i <= 3000; i++) {
		v4gid(g, 0x0a000000 + i * 7919u);
		assert_int_equal(eng_gidmap_get(&m, g),
				 i % 2 == 0 ? 0 : 1 + i % 200);
	}
	eng_gidmap_fini(&m);
}

/* The longest probe run a look-up walks for gid (entries scanned). */
static uint32_t run_len(const struct eng_gidmap *m, const uint8_t gid[16])
{
	uint32_t longest = 0, cur = 0;

	(void)gid;
	for (uint32_t i = 0; i < 2 * (m->mask + 1); i++) {
		if (m->ent[i & m->mask].dev_id) {
			cur++;
			if (cur > longest)
				longest = cur;
		} else {
			cur = 0;
		}
	}
	return longest;
}

static void test_eng_gidmap__runs_stay_short(void **state)
{
	const uint64_t seeds[] = { 0, 0xfeedface12345678ull };

	(void)state;
	for (unsigned s = 0; s < 2; s++) {
		struct eng_gidmap m;
		uint8_t g[16];

		eng_gidmap_init(&m, seeds[s]);
		for (uint32_t i = 0; i < 4096; i++) {
			v4gid(g, 0x0a500000 + i);	/* consecutive addresses */
			assert_int_equal(eng_gidmap_put(&m, g, 1), 0);
		}
		/* Half full and well spread: no run near the table's size
		 * (a linear scan's cost); 64 is generous for 8192 slots. */
		assert_true(run_len(&m, g) < 64);
		eng_gidmap_fini(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_gidmap__put_get_has_del),
		cmocka_unit_test(test_eng_gidmap__two_holders),
		cmocka_unit_test(test_eng_gidmap__grow_and_delete),
		cmocka_unit_test(test_eng_gidmap__runs_stay_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
