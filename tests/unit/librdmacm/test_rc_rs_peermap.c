/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of riowrite's view of the peer's iomap windows
 * (librdmacm/rc_rs_peermap.h), with the iomap area written the way the
 * engine places an RDMA WRITE of an entry: 24 bytes as two overlapping
 * 16-byte stores (bytes 0..15, then 8..23, or the other way round), and
 * only then does the IOMAP_SGL message complete.  A lookup between the
 * stores, or before the completion, must see the whole former window (or
 * none), never the new address with the old rkey or length.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librdmacm/rc_rs_peermap.h"
#include "librdmacm/rc_rs_proto.h"

#define N	4u
#define ENTRY	((uint32_t)sizeof(struct rc_rs_iomap))

struct side {
	struct rc_rs_iomap area[N];	/* the peer writes it */
	struct rc_rs_peermaps p;
};

static void side_init(struct side *s)
{
	memset(s->area, 0, sizeof(s->area));
	assert_int_equal(rc_rs_peermaps_init(&s->p, s->area, N), 0);
}

/* One of the two stores of the placement of e into entry i. */
static void store(struct side *s, uint32_t i, const struct rc_rs_iomap *e,
		  size_t from)
{
	memcpy((uint8_t *)&s->area[i] + from, (const uint8_t *)e + from, 16);
}

static void complete(struct side *s, uint32_t i)
{
	const char *why = "";

	assert_int_equal(rc_rs_peermaps_arrived(&s->p, i, ENTRY, false, &why),
			 0);
}

/* The lookup at offset finds exactly window e at it. */
static void finds(const struct side *s, uint64_t offset,
		  const struct rc_rs_iomap *e)
{
	uint64_t addr = 0, room = 0;
	uint32_t key = 0;

	assert_int_equal(rc_rs_peermaps_find(&s->p, offset, &addr, &key,
					     &room), 0);
	assert_int_equal(addr, e->sge.addr + (offset - e->offset));
	assert_int_equal(key, e->sge.key);
	assert_int_equal(room, e->sge.length - (offset - e->offset));
}

static void finds_none(const struct side *s, uint64_t offset)
{
	uint64_t addr, room;
	uint32_t key;

	assert_int_equal(rc_rs_peermaps_find(&s->p, offset, &addr, &key,
					     &room), -EINVAL);
}

/* A window mapped again at the same index (riounmap, riomap): between
 * the stores and until the completion the old window, whole. */
static void remap_torn(size_t first, size_t second)
{
	const struct rc_rs_iomap old = { .offset = 0,
		.sge = { .addr = 0x10000, .key = 0x11, .length = 4096 } };
	const struct rc_rs_iomap neu = { .offset = 0x800,
		.sge = { .addr = 0x90000, .key = 0x22, .length = 8192 } };
	struct side s;

	side_init(&s);
	store(&s, 1, &old, 0);
	store(&s, 1, &old, 8);
	complete(&s, 1);
	finds(&s, 0x900, &old);
	store(&s, 1, &neu, first);
	finds(&s, 0x900, &old);
	finds_none(&s, 0x1800);
	store(&s, 1, &neu, second);
	finds(&s, 0x900, &old);
	finds(&s, 0, &old);
	complete(&s, 1);
	finds(&s, 0x900, &neu);
	finds(&s, 0x1800, &neu);
	finds_none(&s, 0);
	rc_rs_peermaps_free(&s.p);
}

static void test_rc_rs_peermap__remap_torn_low_first(void **state)
{
	(void)state;
	remap_torn(0, 8);
}

static void test_rc_rs_peermap__remap_torn_high_first(void **state)
{
	(void)state;
	remap_torn(8, 0);
}

/* A first window is not there before its message completed, even once
 * its length is in memory (the high store first: offset 0 still). */
static void test_rc_rs_peermap__new_before_completion(void **state)
{
	const struct rc_rs_iomap e = { .offset = 0x4000,
		.sge = { .addr = 0x50000, .key = 0x33, .length = 0x8000 } };
	struct side s;

	(void)state;
	side_init(&s);
	store(&s, 0, &e, 8);
	finds_none(&s, 0);
	finds_none(&s, 0x4000);
	store(&s, 0, &e, 0);
	finds_none(&s, 0x4000);
	complete(&s, 0);
	finds(&s, 0x4000, &e);
	finds(&s, 0xBFFF, &e);
	finds_none(&s, 0xC000);
	finds_none(&s, 0x3FFF);
	/* The peer's memory changes; our copy does not, and it is never
	 * written by us. */
	s.area[0].sge.key = 0x99;
	finds(&s, 0x4000, &e);
	assert_int_equal(s.area[0].sge.key, 0x99);
	rc_rs_peermaps_free(&s.p);
}

/* What the completion refuses leaves the copies as they were. */
static void test_rc_rs_peermap__checked(void **state)
{
	const struct rc_rs_iomap good = { .offset = 100,
		.sge = { .addr = 0x1000, .key = 1, .length = 50 } };
	const struct rc_rs_iomap bad[] = {
		{ .offset = UINT64_MAX - 10,
		  .sge = { .addr = 0x1000, .key = 2, .length = 12 } },
		{ .offset = 0, .sge = { .addr = UINT64_MAX - 5, .key = 3,
					.length = 7 } },
	};
	const char *why = NULL;
	struct side s;

	(void)state;
	side_init(&s);
	s.area[2] = good;
	complete(&s, 2);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		s.area[2] = bad[i];
		assert_int_equal(rc_rs_peermaps_arrived(&s.p, 2, ENTRY, false,
							&why), -EPROTO);
		assert_non_null(why);
		finds(&s, 120, &good);
		finds_none(&s, 0);
		finds_none(&s, UINT64_MAX - 1);
	}
	/* The exact end of the offsets and of the addresses is fine. */
	s.area[3] = (struct rc_rs_iomap){ .offset = UINT64_MAX - 9,
		.sge = { .addr = UINT64_MAX - 9, .key = 4, .length = 10 } };
	complete(&s, 3);
	finds(&s, UINT64_MAX, &s.area[3]);
	s.area[0] = good;
	s.area[0].offset = 500;
	why = NULL;
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, 0, ENTRY - 1, false,
						&why), -EPROTO);
	assert_non_null(why);
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, 0, 0, false, &why),
			 -EPROTO);
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, 0, 2 * ENTRY, false,
						&why), -EPROTO);
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, N, ENTRY, false, &why),
			 -EPROTO);
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, 0xFFFF, ENTRY, false,
						&why), -EPROTO);
	finds_none(&s, 500);
	finds(&s, 100, &good);
	rc_rs_peermaps_free(&s.p);
}

/* No area offered (RDMA_IOMAPSIZE 0): every IOMAP_SGL is refused. */
static void test_rc_rs_peermap__none_offered(void **state)
{
	struct rc_rs_peermaps p;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rc_rs_peermaps_init(&p, NULL, 0), 0);
	assert_int_equal(rc_rs_peermaps_arrived(&p, 0, ENTRY, false, &why),
			 -EPROTO);
	assert_non_null(why);
	{
		uint64_t addr, room;
		uint32_t key;

		assert_int_equal(rc_rs_peermaps_find(&p, 0, &addr, &key,
						     &room), -EINVAL);
	}
	rc_rs_peermaps_free(&p);
}

/* A newer window replaces the older ones it overlaps; others stay; a
 * length of 0 clears an entry. */
static void test_rc_rs_peermap__overlap_newest(void **state)
{
	const struct rc_rs_iomap a = { .offset = 0,
		.sge = { .addr = 0x1000, .key = 1, .length = 0x1000 } };
	const struct rc_rs_iomap b = { .offset = 0x1000,
		.sge = { .addr = 0x8000, .key = 2, .length = 0x1000 } };
	const struct rc_rs_iomap c = { .offset = 0x1800,
		.sge = { .addr = 0x20000, .key = 3, .length = 0x100 } };
	struct side s;

	(void)state;
	side_init(&s);
	s.area[0] = a;
	complete(&s, 0);
	s.area[1] = b;
	complete(&s, 1);
	finds(&s, 0xFFF, &a);
	finds(&s, 0x1000, &b);
	/* Both unmapped (nothing on the wire), then c mapped at index 0,
	 * inside b's old range: b's stale entry at index 1 is no answer. */
	s.area[0] = c;
	complete(&s, 0);
	finds(&s, 0x1800, &c);
	finds_none(&s, 0x1000);		/* b's copy went with the overlap */
	finds_none(&s, 0);		/* a's index is c's */
	finds_none(&s, 0x1900);
	/* The window at index 1 again, not overlapping. */
	s.area[1] = a;
	complete(&s, 1);
	finds(&s, 0, &a);
	finds(&s, 0x1800, &c);
	/* Cleared. */
	memset(&s.area[0], 0, sizeof(s.area[0]));
	complete(&s, 0);
	finds_none(&s, 0x1800);
	finds(&s, 0, &a);
	rc_rs_peermaps_free(&s.p);
}

/* A peer of the other byte order. */
static void test_rc_rs_peermap__swapped(void **state)
{
	const struct rc_rs_iomap e = { .offset = 0x123456789ull,
		.sge = { .addr = 0xABCDEF000ull, .key = 0x1234, .length = 77 } };
	const char *why = "";
	struct side s;

	(void)state;
	side_init(&s);
	s.area[3] = rc_rs_iomap_swap(e, true);
	assert_int_equal(rc_rs_peermaps_arrived(&s.p, 3, ENTRY, true, &why),
			 0);
	finds(&s, 0x123456789ull + 76, &e);
	finds_none(&s, 0x123456789ull + 77);
	rc_rs_peermaps_free(&s.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_rs_peermap__remap_torn_low_first),
		cmocka_unit_test(test_rc_rs_peermap__remap_torn_high_first),
		cmocka_unit_test(test_rc_rs_peermap__new_before_completion),
		cmocka_unit_test(test_rc_rs_peermap__checked),
		cmocka_unit_test(test_rc_rs_peermap__none_offered),
		cmocka_unit_test(test_rc_rs_peermap__overlap_newest),
		cmocka_unit_test(test_rc_rs_peermap__swapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
