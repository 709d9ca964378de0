/* SPDX-License-Identifier: MIT */
/* Unit tests of collecting a paged ADM_DEV_LIST (proto/pv_dev_pages.c):
 * pages join in order, and replies that would loop or overrun a tool are
 * refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/proto/pv_dev_pages.h"

/* A reply listing ids[0..n) with `total` devices from its cursor on. */
static uint32_t page(void *buf, const uint32_t *ids, uint32_t n,
		     uint32_t total)
{
	struct pv_ipc_adm_dev_list *l = buf;

	memset(l, 0, sizeof(*l) + n * sizeof(l->dev[0]));
	l->count = n;
	l->total = total;
	for (uint32_t i = 0; i < n; i++)
		l->dev[i].info.dev_id = ids[i];
	return (uint32_t)(sizeof(*l) + n * sizeof(l->dev[0]));
}

static void *buf_new(void)
{
	void *b = malloc(sizeof(struct pv_ipc_adm_dev_list) +
			 8 * sizeof(struct pv_ipc_adm_dev));

	assert_non_null(b);
	return b;
}

static void test_pv_adm_pages__joins_pages_in_order(void **state)
{
	static const uint32_t p1[] = { 1, 2, 5 }, p2[] = { 9, 12 };
	struct pv_ipc_list_req req;
	struct pv_ipc_adm_dev_list *l;
	struct pv_adm_pages pg;
	void *b = buf_new();
	uint32_t len;

	(void)state;
	pv_adm_pages_init(&pg);
	len = page(b, p1, 3, 5);
	assert_int_equal(pv_adm_pages_take(&pg, b, len), 1);
	pv_adm_pages_req(&pg, &req);
	assert_int_equal(req.cursor, 6);
	assert_int_equal(req.max, 0);
	len = page(b, p2, 2, 2);
	assert_int_equal(pv_adm_pages_take(&pg, b, len), 0);
	l = pv_adm_pages_done(&pg);
	assert_non_null(l);
	assert_int_equal(l->count, 5);
	assert_int_equal(l->total, 5);
	assert_int_equal(l->dev[2].info.dev_id, 5);
	assert_int_equal(l->dev[4].info.dev_id, 12);
	assert_int_equal(pg.pages, 2);
	free(l);
	pv_adm_pages_fini(&pg);
	free(b);
}

/* An engine before paging answers the empty request with everything. */
static void test_pv_adm_pages__one_page_and_empty(void **state)
{
	static const uint32_t p1[] = { 3 };
	struct pv_ipc_adm_dev_list *l;
	struct pv_adm_pages pg;
	void *b = buf_new();

	(void)state;
	pv_adm_pages_init(&pg);
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, p1, 1, 1)), 0);
	l = pv_adm_pages_done(&pg);
	assert_int_equal(l->count, 1);
	free(l);
	pv_adm_pages_init(&pg);
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, NULL, 0, 0)), 0);
	l = pv_adm_pages_done(&pg);
	assert_non_null(l);
	assert_int_equal(l->count, 0);
	free(l);
	free(b);
}

static void test_pv_adm_pages__hostile_replies_refused(void **state)
{
	static const uint32_t down[] = { 4, 3 }, dup[] = { 4, 4 },
			      p1[] = { 7 }, back[] = { 7 }, top[] = { UINT32_MAX };
	struct pv_adm_pages pg;
	void *b = buf_new();
	uint32_t len;

	(void)state;
	pv_adm_pages_init(&pg);
	/* Shorter than its header, count past its length, total < count. */
	assert_int_equal(pv_adm_pages_take(&pg, b, 4), -EPROTO);
	len = page(b, p1, 1, 1);
	((struct pv_ipc_adm_dev_list *)b)->count = 2;
	assert_int_equal(pv_adm_pages_take(&pg, b, len), -EPROTO);
	len = page(b, p1, 1, 0);
	assert_int_equal(pv_adm_pages_take(&pg, b, len), -EPROTO);
	/* Ids that fall or repeat. */
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, down, 2, 2)),
			 -EPROTO);
	pv_adm_pages_fini(&pg);
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, dup, 2, 2)),
			 -EPROTO);
	pv_adm_pages_fini(&pg);
	/* "More" with nothing listed would ask the same page forever. */
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, NULL, 0, 3)),
			 -EPROTO);
	pv_adm_pages_fini(&pg);
	/* A next page must start past the cursor. */
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, p1, 1, 2)), 1);
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, back, 1, 1)),
			 -EPROTO);
	pv_adm_pages_fini(&pg);
	/* No id past the top one to continue from. */
	assert_int_equal(pv_adm_pages_take(&pg, b, page(b, top, 1, 2)),
			 -EPROTO);
	pv_adm_pages_fini(&pg);
	free(b);
}

/* A stream of pages that never ends stops at PV_ADM_PAGES_MAX_DEVS. */
static void test_pv_adm_pages__bounded(void **state)
{
	struct pv_adm_pages pg;
	void *b = buf_new();
	uint32_t ids[8], n = 0;
	int ret;

	(void)state;
	pv_adm_pages_init(&pg);
	do {
		for (uint32_t i = 0; i < 8; i++)
			ids[i] = pg.cursor + i;
		ret = pv_adm_pages_take(&pg, b, page(b, ids, 8, 9));
		n++;
	} while (ret == 1 && n < PV_ADM_PAGES_MAX_DEVS);
	assert_int_equal(ret, -EPROTO);
	assert_int_equal(pg.list->count, PV_ADM_PAGES_MAX_DEVS);
	pv_adm_pages_fini(&pg);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pv_adm_pages__joins_pages_in_order),
		cmocka_unit_test(test_pv_adm_pages__one_page_and_empty),
		cmocka_unit_test(test_pv_adm_pages__hostile_replies_refused),
		cmocka_unit_test(test_pv_adm_pages__bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
