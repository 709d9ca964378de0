/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine's XRC domains (eng_xrcd.c) with made-up
 * clients: two on device 1, one on device 2.  XRCD requests are what a
 * hostile client could send, with real files' fds.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

struct fx {
	struct eng e;
	struct eng_dev dev1, dev2;
	struct eng_conn c1, c1b, c2;	/* c1, c1b on dev1; c2 on dev2 */
	int fa, fb;			/* two files */
	char pa[64], pb[64];
};

static void conn_init(struct eng_conn *c, struct eng_dev *d, uint32_t id)
{
	eng_htab_init(&c->handles);
	eng_list_init(&c->objs);
	c->dev = d;
	c->id = id;
}

static int tmpfile_fd(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/test_eng_xrcd.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	return fd;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	eng_list_init(&f->e.xrcd_doms);
	f->dev1.id = 1;
	f->dev2.id = 2;
	conn_init(&f->c1, &f->dev1, 1);
	conn_init(&f->c1b, &f->dev1, 2);
	conn_init(&f->c2, &f->dev2, 3);
	f->fa = tmpfile_fd(f->pa, sizeof(f->pa));
	f->fb = tmpfile_fd(f->pb, sizeof(f->pb));
	memset(eng_stats, 0, sizeof(eng_stats));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	eng_objs_free_all(&f->e, &f->c1);
	eng_objs_free_all(&f->e, &f->c1b);
	eng_objs_free_all(&f->e, &f->c2);
	/* Every domain went with its last handle. */
	assert_true(eng_list_empty(&f->e.xrcd_doms));
	eng_htab_fini(&f->c1.handles);
	eng_htab_fini(&f->c1b.handles);
	eng_htab_fini(&f->c2.handles);
	close(f->fa);
	close(f->fb);
	unlink(f->pa);
	unlink(f->pb);
	free(f);
	return 0;
}

static int xrcd_req(struct fx *f, struct eng_conn *c,
		    const struct pv_ipc_xrcd *in, int fd, uint32_t *handle)
{
	uint8_t out[64];
	struct eng_req r = { .e = &f->e, .c = c, .op = PV_OP_XRCD, .in = in,
			     .in_len = sizeof(*in), .out = out,
			     .in_fds = { fd }, .in_nfds = fd >= 0 ? 1 : 0 };
	int ret = eng_op_xrcd(&r);

	if (ret == 0 && in->cmd == PV_XRCD_OPEN) {
		assert_int_equal(r.out_len, sizeof(struct pv_ipc_handle));
		*handle = ((struct pv_ipc_handle *)out)->handle;
	}
	return ret;
}

static int xopen(struct fx *f, struct eng_conn *c, int fd, uint32_t oflags,
		 struct eng_xrcd **ret_x)
{
	struct pv_ipc_xrcd in = { .cmd = PV_XRCD_OPEN, .oflags = oflags };
	uint32_t h = 0;
	int ret = xrcd_req(f, c, &in, fd, &h);

	if (ret == 0) {
		*ret_x = eng_obj_get(c, h, PV_OBJ_XRCD);
		assert_non_null(*ret_x);
	}
	return ret;
}

static int xclose(struct fx *f, struct eng_conn *c, struct eng_xrcd *x)
{
	struct pv_ipc_xrcd in = { .cmd = PV_XRCD_CLOSE, .handle = x->o.handle };

	return xrcd_req(f, c, &in, -1, NULL);
}

/* fd -1: a new private domain each time, shared with nobody. */
static void test_eng_xrcd__private(void **state)
{
	struct fx *f = *state;
	struct eng_xrcd *x, *y;

	assert_int_equal(xopen(f, &f->c1, -1, O_CREAT, &x), 0);
	assert_int_equal(xopen(f, &f->c1, -1, O_CREAT, &y), 0);
	assert_false(eng_xrcd_same(x, y));
	assert_true(eng_xrcd_same(x, x));
	assert_false(eng_xrcd_same(x, NULL));
	assert_int_equal(xclose(f, &f->c1, x), 0);
	assert_int_equal(xclose(f, &f->c1, y), 0);
	assert_int_equal(eng_stats[ENG_STAT_xrcd_opened], 2);
}

/* One file, one device: one domain for both clients; another file
 * another domain; O_EXCL and a missing O_CREAT as ibv_open_xrcd(3). */
static void test_eng_xrcd__shared_by_file_within_device(void **state)
{
	struct fx *f = *state;
	struct eng_xrcd *x, *y, *z, *w;
	int again = open(f->pa, O_RDONLY);

	assert_true(again >= 0);
	assert_int_equal(xopen(f, &f->c1, f->fa, 0, &x), -EINVAL);
	assert_int_equal(xopen(f, &f->c1, f->fa, O_CREAT, &x), 0);
	assert_int_equal(xopen(f, &f->c1b, again, 0, &y), 0);
	assert_true(eng_xrcd_same(x, y));
	assert_int_equal(xopen(f, &f->c1b, f->fa, O_CREAT | O_EXCL, &z),
			 -EEXIST);
	assert_int_equal(xopen(f, &f->c1b, f->fb, O_CREAT | O_EXCL, &z), 0);
	assert_false(eng_xrcd_same(x, z));
	assert_int_equal(xopen(f, &f->c1, f->fb, O_CREAT, &w), 0);
	assert_true(eng_xrcd_same(z, w));
	/* The domain outlives the client that made it. */
	assert_int_equal(xclose(f, &f->c1, x), 0);
	assert_int_equal(xopen(f, &f->c1, f->fa, 0, &x), 0);
	assert_true(eng_xrcd_same(x, y));
	close(again);
}

/* Device 1's file reaches no domain for device 2 while device 1 holds
 * it: refused and counted; once device 1 let go, device 2 makes its own. */
static void test_eng_xrcd__other_device_refused(void **state)
{
	struct fx *f = *state;
	struct eng_xrcd *x, *y;

	assert_int_equal(xopen(f, &f->c1, f->fa, O_CREAT, &x), 0);
	assert_int_equal(xopen(f, &f->c2, f->fa, O_CREAT, &y), -EPERM);
	assert_int_equal(xopen(f, &f->c2, f->fa, 0, &y), -EPERM);
	assert_int_equal(eng_stats[ENG_STAT_xrcd_refused], 2);
	assert_int_equal(f->c2.count[PV_OBJ_XRCD], 0);
	assert_int_equal(xclose(f, &f->c1, x), 0);
	assert_int_equal(xopen(f, &f->c2, f->fa, O_CREAT, &y), 0);
	assert_int_equal(xopen(f, &f->c1, f->fa, O_CREAT, &x), -EPERM);
}

/* Hostile requests: every field checked. */
static void test_eng_xrcd__bad_requests(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_xrcd in;
	struct eng_xrcd *x;
	uint32_t h;

	assert_int_equal(xopen(f, &f->c1, -1, O_CREAT, &x), 0);
	in = (struct pv_ipc_xrcd){ .cmd = PV_XRCD_OPEN, .oflags = O_CREAT,
				   .reserved = 1 };
	assert_int_equal(xrcd_req(f, &f->c1, &in, -1, &h), -EINVAL);
	in = (struct pv_ipc_xrcd){ .cmd = 3 };
	assert_int_equal(xrcd_req(f, &f->c1, &in, -1, &h), -EINVAL);
	in = (struct pv_ipc_xrcd){ .cmd = PV_XRCD_OPEN,
				   .oflags = O_CREAT | O_TRUNC };
	assert_int_equal(xrcd_req(f, &f->c1, &in, -1, &h), -EINVAL);
	in = (struct pv_ipc_xrcd){ .cmd = PV_XRCD_OPEN, .oflags = O_CREAT,
				   .handle = x->o.handle };
	assert_int_equal(xrcd_req(f, &f->c1, &in, -1, &h), -EINVAL);
	in = (struct pv_ipc_xrcd){ .cmd = PV_XRCD_CLOSE,
				   .handle = x->o.handle };
	assert_int_equal(xrcd_req(f, &f->c1, &in, f->fa, &h), -EINVAL);
	/* Another client's handle, and a handle of another kind. */
	assert_int_equal(xrcd_req(f, &f->c1b, &in, -1, &h), -EINVAL);
	in.handle = 0x7777;
	assert_int_equal(xrcd_req(f, &f->c1, &in, -1, &h), -EINVAL);
	/* In use (an XRC SRQ or XRC_RECV QP holds it). */
	x->o.users = 1;
	assert_int_equal(xclose(f, &f->c1, x), -EBUSY);
	x->o.users = 0;
	assert_int_equal(xclose(f, &f->c1, x), 0);
	assert_int_equal(f->c1.count[PV_OBJ_XRCD], 0);
}

/* max_xrcd per client: past it ENOMEM and limit_hits; the others of
 * the device are not charged. */
static void test_eng_xrcd__per_client_limit(void **state)
{
	struct fx *f = *state;
	uint64_t lim = eng_lim.max_xrcd;
	struct eng_xrcd *x;

	eng_lim.max_xrcd = 3;
	for (int i = 0; i < 3; i++)
		assert_int_equal(xopen(f, &f->c1, i ? -1 : f->fa, O_CREAT, &x),
				 0);
	assert_int_equal(xopen(f, &f->c1, -1, O_CREAT, &x), -ENOMEM);
	assert_int_equal(xopen(f, &f->c1, f->fa, 0, &x), -ENOMEM);
	assert_int_equal(eng_stats[ENG_STAT_limit_hits], 2);
	assert_int_equal(xopen(f, &f->c1b, f->fa, 0, &x), 0);
	eng_lim.max_xrcd = lim;
}

/* SRQ numbers: 0 and unknown ones name nothing. */
static void test_eng_xrcd__srq_lookup(void **state)
{
	struct fx *f = *state;
	struct eng_srq srq = { 0 };
	int64_t n;

	eng_idtab_init_sparse(&f->dev1.srqns, 1, 0xfffffe, 16);
	n = eng_idtab_alloc(&f->dev1.srqns, &srq);
	assert_true(n >= 1 && n <= 0xfffffe);
	assert_ptr_equal(eng_xrcd_srq_find(&f->dev1, (uint32_t)n), &srq);
	assert_null(eng_xrcd_srq_find(&f->dev1, 0));
	assert_null(eng_xrcd_srq_find(&f->dev1, (uint32_t)n ^ 1));
	assert_null(eng_xrcd_srq_find(NULL, (uint32_t)n));
	eng_idtab_free(&f->dev1.srqns, (uint32_t)n);
	assert_null(eng_xrcd_srq_find(&f->dev1, (uint32_t)n));
	eng_idtab_fini(&f->dev1.srqns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_eng_xrcd__private, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_xrcd__shared_by_file_within_device, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_xrcd__other_device_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_xrcd__bad_requests,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_xrcd__per_client_limit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_xrcd__srq_lookup,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
