/* SPDX-License-Identifier: MIT */
/*
 * The engine's multicast table (eng_mcast.c): the bounds per QP, per
 * device share of a group and per device; attaching twice; detaching
 * what is not attached; a QP that goes takes its attachments along.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

#define NQP	(ENG_MCAST_PER_DEV + 8)

static struct eng_dev dev_a, dev_b;
static struct eng_conn conn_a, conn_b;
static struct eng_qp qa[NQP], qb[ENG_MCAST_PER_GROUP + 1];

static void grp(uint8_t g[16], unsigned n)
{
	memset(g, 0, 16);
	g[10] = g[11] = 0xff;
	g[12] = 239;
	g[13] = (uint8_t)(n >> 16);
	g[14] = (uint8_t)(n >> 8);
	g[15] = (uint8_t)n;
}

static int setup(void **state)
{
	conn_a.dev = &dev_a;
	conn_b.dev = &dev_b;
	for (int i = 0; i < NQP; i++)
		qa[i].o.conn = &conn_a;
	for (int i = 0; i <= ENG_MCAST_PER_GROUP; i++)
		qb[i].o.conn = &conn_b;
	return 0;
}

static void test_bounds(void **state)
{
	uint64_t att0 = eng_stats[ENG_STAT_mcast_attaches];
	const char *why = NULL;
	uint8_t g[16];
	int n = 0;

	/* Per QP. */
	for (int i = 0; i < ENG_MCAST_PER_QP; i++) {
		grp(g, 1000 + (unsigned)i);
		assert_int_equal(eng_mcast_attach(NULL, &qa[0], g, &why), 0);
	}
	assert_int_equal(eng_mcast_attach(NULL, &qa[0], g, &why), 0); /* again */
	grp(g, 2000);
	assert_int_equal(eng_mcast_attach(NULL, &qa[0], g, &why), -ENOMEM);
	assert_non_null(strstr(why, "QP"));
	n += ENG_MCAST_PER_QP;
	/* Pod a fills its share of group 7; pod b still joins it. */
	grp(g, 7);
	for (int i = 1; i <= ENG_MCAST_PER_GROUP; i++, n++)
		assert_int_equal(eng_mcast_attach(NULL, &qa[i], g, &why), 0);
	assert_int_equal(eng_mcast_attach(NULL, &qa[ENG_MCAST_PER_GROUP + 1], g,
					  &why), -ENOMEM);
	assert_non_null(strstr(why, "group"));
	assert_int_equal(eng_mcast_attach(NULL, &qb[0], g, &why), 0);
	/* Per device. */
	for (int i = ENG_MCAST_PER_GROUP + 1; n < ENG_MCAST_PER_DEV; i++, n++) {
		grp(g, 3000 + (unsigned)i);
		assert_int_equal(eng_mcast_attach(NULL, &qa[i], g, &why), 0);
	}
	grp(g, 9999);
	assert_int_equal(eng_mcast_attach(NULL, &qa[NQP - 1], g, &why), -ENOMEM);
	assert_non_null(strstr(why, "device"));
	assert_int_equal(eng_stats[ENG_STAT_mcast_attaches] - att0,
			 (uint64_t)ENG_MCAST_PER_DEV + 1);
	/* Detach: only what is attached; a QP that goes, all of its. */
	grp(g, 7);
	assert_int_equal(eng_mcast_detach(NULL, &qa[1], g), 0);
	assert_int_equal(eng_mcast_detach(NULL, &qa[1], g), -EINVAL);
	assert_int_equal(eng_mcast_attach(NULL, &qa[NQP - 1], g, &why), 0);
	eng_mcast_qp_gone(NULL, &qa[0]);
	grp(g, 1000);
	assert_int_equal(eng_mcast_detach(NULL, &qa[0], g), -EINVAL);
	for (int i = 0; i < NQP; i++)
		eng_mcast_qp_gone(NULL, &qa[i]);
	eng_mcast_qp_gone(NULL, &qb[0]);
	assert_int_equal(eng_stats[ENG_STAT_mcast_attaches] -
			 eng_stats[ENG_STAT_mcast_detaches], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bounds, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
