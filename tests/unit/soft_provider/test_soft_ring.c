/* SPDX-License-Identifier: MIT */
/* Ring geometry checks and index math (providers/soft/provider/soft_ring.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/provider/soft_dp.h"

static _Alignas(64) char map[4096];

static struct pv_ring_hdr *good_hdr(size_t off, uint32_t esz, uint32_t n)
{
	struct pv_ring_hdr *h = (struct pv_ring_hdr *)(map + off);

	memset(map, 0, sizeof(map));
	h->magic = PV_RING_MAGIC;
	h->version = PV_RING_VERSION;
	h->entry_size = esz;
	h->num_entries = n;
	h->entries_off = sizeof(*h);
	return h;
}

static void test_soft_ring__accepts_good_header(void **s)
{
	struct pv_ring_hdr *h = good_hdr(0, 64, 16);

	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 64, 16), 0);
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 40, 9), 0);
}

static void test_soft_ring__rejects_bad_magic_and_version(void **s)
{
	struct pv_ring_hdr *h = good_hdr(0, 64, 16);

	h->magic = 0;
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 64, 16), -EPROTO);
	h = good_hdr(0, 64, 16);
	h->version = PV_RING_VERSION + 1;
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 64, 16), -EPROTO);
}

static void test_soft_ring__rejects_non_pow2_and_small(void **s)
{
	struct pv_ring_hdr *h = good_hdr(0, 48, 16);

	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 48, 16), -EPROTO);
	h = good_hdr(0, 64, 12);
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 64, 12), -EPROTO);
	/* Smaller than the granted cap asks for. */
	h = good_hdr(0, 64, 16);
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 65, 16), -EPROTO);
	assert_int_equal(soft_ring_check(h, sizeof(map), 0, 64, 17), -EPROTO);
}

static void test_soft_ring__rejects_entries_past_map(void **s)
{
	struct pv_ring_hdr *h = good_hdr(256, 64, 64);

	/* 256 + 256 + 64 * 64 > 4096 */
	assert_int_equal(soft_ring_check(h, sizeof(map), 256, 64, 1), -EPROTO);
	h = good_hdr(256, 64, 32);
	assert_int_equal(soft_ring_check(h, sizeof(map), 256, 64, 1), 0);
	/* Offsets must be cache-line aligned and inside the map. */
	assert_int_equal(soft_ring_check(h, sizeof(map), 100, 64, 1), -EPROTO);
	assert_int_equal(soft_ring_check(h, sizeof(map), 8192, 64, 1),
			 -EPROTO);
	h->entries_off = 8;
	assert_int_equal(soft_ring_check(h, sizeof(map), 256, 64, 1), -EPROTO);
}

static void test_soft_ring__space_wraps_counters(void **s)
{
	assert_int_equal(soft_ring_space(8, 0, 0), 8);
	assert_int_equal(soft_ring_space(8, 8, 0), 0);
	assert_int_equal(soft_ring_space(8, 5, 2), 5);
	/* Free-running counters across 2^32. */
	assert_int_equal(soft_ring_space(8, 3, 0xfffffffeu), 3);
	assert_int_equal(soft_ring_space(8, 6, 0xfffffffeu), 0);
	/* A consumer ahead of the producer (a broken peer) gives no space. */
	assert_int_equal(soft_ring_space(8, 0, 1), 0);
}

static void test_soft_ring__slot_masks_and_attach_reads_counters(void **s)
{
	struct pv_ring_hdr *h = good_hdr(0, 64, 16);
	struct soft_ring r;

	h->prod = 21;
	h->cons = 7;
	soft_ring_attach(&r, h, true);
	assert_int_equal(r.head, 21);
	assert_int_equal(r.mask, 15);
	assert_ptr_equal(soft_ring_slot(&r, 21), map + 256 + 5 * 64);
	soft_ring_attach(&r, h, false);
	assert_int_equal(r.head, 7);
}

static void test_soft_ring__pow2_rounds_up(void **s)
{
	assert_int_equal(soft_pow2(1), 1);
	assert_int_equal(soft_pow2(3), 4);
	assert_int_equal(soft_pow2(64), 64);
	assert_int_equal(soft_pow2(65), 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_ring__accepts_good_header),
		cmocka_unit_test(test_soft_ring__rejects_bad_magic_and_version),
		cmocka_unit_test(test_soft_ring__rejects_non_pow2_and_small),
		cmocka_unit_test(test_soft_ring__rejects_entries_past_map),
		cmocka_unit_test(test_soft_ring__space_wraps_counters),
		cmocka_unit_test(test_soft_ring__slot_masks_and_attach_reads_counters),
		cmocka_unit_test(test_soft_ring__pow2_rounds_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
