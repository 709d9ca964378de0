/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of shared XRC_RECV QPs (eng_qp_open.c) with made-up
 * clients: c1, c1b and c1c on device 1 (c1 creates, the others open),
 * c2 on device 2.  QP_OPEN requests are what a hostile client could
 * send; hand-overs at a destroy and at a connection's end; the QP limit;
 * async events to every holder.
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
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

struct fx {
	struct eng e;
	struct eng_dev dev1, dev2;
	struct eng_conn c1, c1b, c1c, c2;
	int fa;
	char pa[64];
	uint8_t out[PV_IPC_MAX_PAYLOAD];
};

static void conn_init(struct eng_conn *c, struct eng_dev *d, uint32_t id)
{
	eng_htab_init(&c->handles);
	eng_list_init(&c->objs);
	c->dev = d;
	c->id = id;
	c->ev_fd = -1;
}

static void dev_init(struct eng_dev *d, uint32_t id)
{
	d->id = id;
	eng_idtab_init_sparse(&d->qps, 2, 0xfffffe, 16);
	eng_idtab_init_sparse(&d->srqns, 1, 0xfffffe, 16);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	eng_list_init(&f->e.xrcd_doms);
	dev_init(&f->dev1, 1);
	dev_init(&f->dev2, 2);
	conn_init(&f->c1, &f->dev1, 1);
	conn_init(&f->c1b, &f->dev1, 2);
	conn_init(&f->c1c, &f->dev1, 3);
	conn_init(&f->c2, &f->dev2, 4);
	snprintf(f->pa, sizeof(f->pa), "/tmp/test_eng_qp_open.XXXXXX");
	f->fa = mkstemp(f->pa);
	assert_true(f->fa >= 0);
	memset(eng_stats, 0, sizeof(eng_stats));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct eng_conn *cs[] = { &f->c1, &f->c1b, &f->c1c, &f->c2 };

	for (size_t i = 0; i < 4; i++)
		eng_objs_free_all(&f->e, cs[i]);
	assert_true(eng_list_empty(&f->e.xrcd_doms));
	for (size_t i = 0; i < 4; i++) {
		assert_true(eng_list_empty(&cs[i]->objs));
		eng_htab_fini(&cs[i]->handles);
	}
	eng_idtab_fini(&f->dev1.qps);
	eng_idtab_fini(&f->dev1.srqns);
	eng_idtab_fini(&f->dev2.qps);
	eng_idtab_fini(&f->dev2.srqns);
	close(f->fa);
	unlink(f->pa);
	free(f);
	return 0;
}

static int call(struct fx *f, struct eng_conn *c, eng_handler_fn fn,
		const void *in, uint32_t len, int fd)
{
	struct eng_req r = { .e = &f->e, .c = c, .in = in, .in_len = len,
			     .out = f->out, .in_fds = { fd },
			     .in_nfds = fd >= 0 ? 1 : 0 };

	return fn(&r);
}

/* c's handle on the file's domain (fd >= 0) or on a private one. */
static uint32_t xopen(struct fx *f, struct eng_conn *c, int fd)
{
	struct pv_ipc_xrcd in = { .cmd = PV_XRCD_OPEN, .oflags = O_CREAT };

	assert_int_equal(call(f, c, eng_op_xrcd, &in, sizeof(in), fd), 0);
	return ((struct pv_ipc_handle *)f->out)->handle;
}

static int xclose(struct fx *f, struct eng_conn *c, uint32_t h)
{
	struct pv_ipc_xrcd in = { .cmd = PV_XRCD_CLOSE, .handle = h };

	return call(f, c, eng_op_xrcd, &in, sizeof(in), -1);
}

/* An XRC_RECV QP of c in domain handle x: its number, *ret_h its handle. */
static uint32_t tgt_create(struct fx *f, struct eng_conn *c, uint32_t x,
			   uint32_t *ret_h)
{
	struct pv_ipc_qp_create in = { .qp_type = IBV_QPT_XRC_RECV,
				       .xrcd_handle = x };
	struct pv_ipc_qp_create_resp *out = (void *)f->out;

	assert_int_equal(call(f, c, eng_op_qp_create, &in, sizeof(in), -1),
			 0);
	*ret_h = out->handle;
	return out->qp_num;
}

static int qp_open(struct fx *f, struct eng_conn *c, uint32_t x,
		   uint32_t qpn, uint32_t *ret_h)
{
	struct pv_ipc_qp_open in = { .xrcd_handle = x, .qp_num = qpn,
				     .qp_type = IBV_QPT_XRC_RECV };
	struct pv_ipc_qp_open_resp *out = (void *)f->out;
	int ret = call(f, c, eng_op_qp_open, &in, sizeof(in), -1);

	if (ret == 0) {
		assert_int_equal(out->qp_num, qpn);
		*ret_h = out->handle;
	}
	return ret;
}

static int qp_destroy(struct fx *f, struct eng_conn *c, uint32_t h)
{
	struct pv_ipc_handle in = { .handle = h };

	return call(f, c, eng_op_qp_destroy, &in, sizeof(in), -1);
}

static int qp_to_init(struct fx *f, struct eng_conn *c, uint32_t h)
{
	struct pv_ipc_qp_modify in = {
		.qp_handle = h,
		.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS,
		.attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 },
	};

	return call(f, c, eng_op_qp_modify, &in, sizeof(in), -1);
}

static struct pv_ipc_qp_query_resp *qp_query(struct fx *f, struct eng_conn *c,
					     uint32_t h)
{
	struct pv_ipc_qp_modify in = { .qp_handle = h };

	if (call(f, c, eng_op_qp_query, &in, sizeof(in), -1) < 0)
		return NULL;
	return (struct pv_ipc_qp_query_resp *)f->out;
}

/* Another client of the device opens the QP by number through its own
 * handle on the file's domain; modify and query go through it. */
static void test_eng_qp_open__by_number(void **state)
{
	struct fx *f = *state;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t th, oh, qpn = tgt_create(f, &f->c1, x1, &th);
	struct eng_qp_open *op;
	struct eng_qp *qp;
	struct pv_ipc_qp_query_resp *q;

	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &oh), 0);
	qp = eng_qp_by_handle(&f->c1b, oh, &op);
	assert_non_null(qp);
	assert_non_null(op);
	assert_ptr_equal(qp, eng_idtab_get(&f->dev1.qps, qpn));
	assert_int_equal(qp_to_init(f, &f->c1b, oh), 0);
	assert_int_equal(qp->state, IBV_QPS_INIT);
	q = qp_query(f, &f->c1, th);
	assert_non_null(q);
	assert_int_equal(q->attr.qp_state, IBV_QPS_INIT);
	assert_int_equal(q->init.xrcd_handle, x1);
	q = qp_query(f, &f->c1b, oh);
	assert_non_null(q);
	assert_int_equal(q->init.xrcd_handle, xb);	/* its own handle */
	/* The opener's handle is no ring owner's: QP_MAP's lookup misses. */
	assert_null(eng_obj_get(&f->c1b, oh, PV_OBJ_QP));
	/* Its domain handle is in use while it holds the QP open. */
	assert_int_equal(xclose(f, &f->c1b, xb), -EBUSY);
	assert_int_equal(f->c1b.count[PV_OBJ_QP], 1);
	assert_int_equal(eng_stats[ENG_STAT_xrc_qp_opened], 1);
	/* The opener's destroy drops its handle only. */
	assert_int_equal(qp_destroy(f, &f->c1b, oh), 0);
	assert_int_equal(f->c1b.count[PV_OBJ_QP], 0);
	assert_null(qp_query(f, &f->c1b, oh));
	assert_ptr_equal(eng_idtab_get(&f->dev1.qps, qpn), qp);
	assert_int_equal(xclose(f, &f->c1b, xb), 0);
}

/* Every field of the request is checked; none reaches another domain's
 * or another device's QP. */
static void test_eng_qp_open__refused(void **state)
{
	struct fx *f = *state;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t xp = xopen(f, &f->c1b, -1), x2 = xopen(f, &f->c2, -1);
	uint32_t th, h, qpn = tgt_create(f, &f->c1, x1, &th);
	struct pv_ipc_qp_open in = { .xrcd_handle = xb, .qp_num = qpn,
				     .qp_type = IBV_QPT_RC };

	assert_int_equal(call(f, &f->c1b, eng_op_qp_open, &in, sizeof(in), -1),
			 -EINVAL);
	in.qp_type = IBV_QPT_XRC_RECV;
	in.reserved = 1;
	assert_int_equal(call(f, &f->c1b, eng_op_qp_open, &in, sizeof(in), -1),
			 -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, xb, 0, &h), -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn | 0x1000000u, &h),
			 -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn ^ 1, &h), -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, xp, qpn, &h), -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, 0, qpn, &h), -EINVAL);
	assert_int_equal(qp_open(f, &f->c1b, th, qpn, &h), -EINVAL);
	/* Device 2 has no such QP, whatever its domain. */
	assert_int_equal(qp_open(f, &f->c2, x2, qpn, &h), -EINVAL);
	assert_int_equal(eng_stats[ENG_STAT_xrc_qp_open_refused], 9);
	assert_int_equal(eng_stats[ENG_STAT_xrc_qp_opened], 0);
	assert_int_equal(f->c1b.count[PV_OBJ_QP], 0);
}

/* The creator's destroy while another holds it open: the QP passes on,
 * the creator's domain handle is free, the QP number still answers. */
static void test_eng_qp_open__creator_destroy(void **state)
{
	struct fx *f = *state;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t th, oh, qpn = tgt_create(f, &f->c1, x1, &th);
	struct eng_qp *qp = eng_idtab_get(&f->dev1.qps, qpn);
	struct eng_qp_open *op;

	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &oh), 0);
	assert_int_equal(xclose(f, &f->c1, x1), -EBUSY);
	assert_int_equal(qp_destroy(f, &f->c1, th), 0);
	assert_int_equal(eng_stats[ENG_STAT_xrc_qp_handed_over], 1);
	assert_null(qp_query(f, &f->c1, th));
	assert_int_equal(f->c1.count[PV_OBJ_QP], 0);
	assert_int_equal(xclose(f, &f->c1, x1), 0);
	/* The opener's handle is the QP's own now, in the opener's client. */
	assert_ptr_equal(eng_qp_by_handle(&f->c1b, oh, &op), qp);
	assert_null(op);
	assert_ptr_equal(qp->o.conn, &f->c1b);
	assert_int_equal(f->c1b.count[PV_OBJ_QP], 1);
	assert_ptr_equal(eng_idtab_get(&f->dev1.qps, qpn), qp);
	assert_int_equal(qp_to_init(f, &f->c1b, oh), 0);
	assert_int_equal(xclose(f, &f->c1b, xb), -EBUSY);
	/* The last handle's destroy frees it. */
	assert_int_equal(qp_destroy(f, &f->c1b, oh), 0);
	assert_null(eng_idtab_get(&f->dev1.qps, qpn));
	assert_int_equal(f->c1b.count[PV_OBJ_QP], 0);
	assert_int_equal(xclose(f, &f->c1b, xb), 0);
}

/* The creator's connection ends: the first opener gets the QP, the
 * second keeps its opener's handle; then the same again within one
 * client (the owner's destroy passes it to the next handle). */
static void test_eng_qp_open__creator_gone(void **state)
{
	struct fx *f = *state;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t xc = xopen(f, &f->c1c, f->fa);
	uint32_t th, hb, hc, hc2, qpn = tgt_create(f, &f->c1, x1, &th);
	struct eng_qp *qp = eng_idtab_get(&f->dev1.qps, qpn);
	struct eng_qp_open *op;

	/* The creator opening its own QP too: that handle goes first. */
	assert_int_equal(qp_open(f, &f->c1, x1, qpn, &hb), 0);
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &hb), 0);
	assert_int_equal(qp_open(f, &f->c1c, xc, qpn, &hc), 0);
	assert_int_equal(qp_open(f, &f->c1c, xc, qpn, &hc2), 0);
	assert_int_equal(qp_to_init(f, &f->c1, th), 0);
	eng_objs_free_all(&f->e, &f->c1);
	assert_true(eng_list_empty(&f->c1.objs));
	assert_ptr_equal(qp->o.conn, &f->c1b);
	assert_ptr_equal(eng_qp_by_handle(&f->c1b, hb, &op), qp);
	assert_null(op);
	assert_int_equal(qp->state, IBV_QPS_INIT);
	assert_ptr_equal(eng_qp_by_handle(&f->c1c, hc, &op), qp);
	assert_non_null(op);
	eng_objs_free_all(&f->e, &f->c1b);
	assert_ptr_equal(qp->o.conn, &f->c1c);
	assert_ptr_equal(eng_qp_by_handle(&f->c1c, hc, &op), qp);
	assert_null(op);
	assert_int_equal(f->c1c.count[PV_OBJ_QP], 2);
	assert_int_equal(qp_destroy(f, &f->c1c, hc), 0);
	assert_int_equal(eng_stats[ENG_STAT_xrc_qp_handed_over], 3);
	assert_ptr_equal(eng_qp_by_handle(&f->c1c, hc2, &op), qp);
	assert_null(op);
	assert_int_equal(f->c1c.count[PV_OBJ_QP], 1);
	assert_int_equal(qp_destroy(f, &f->c1c, hc2), 0);
	assert_null(eng_idtab_get(&f->dev1.qps, qpn));
	assert_int_equal(xclose(f, &f->c1c, xc), 0);
}

/* An open is a QP against the opener's limit. */
static void test_eng_qp_open__limit(void **state)
{
	struct fx *f = *state;
	uint64_t lim = eng_lim.max_qp;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t th, h, h2, qpn = tgt_create(f, &f->c1, x1, &th);

	eng_lim.max_qp = 1;
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &h), 0);
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &h2), -ENOMEM);
	assert_int_equal(eng_stats[ENG_STAT_limit_hits], 1);
	assert_int_equal(qp_destroy(f, &f->c1b, h), 0);
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &h2), 0);
	eng_lim.max_qp = lim;
}

static void ev_read(int fd, uint32_t type, uint32_t handle)
{
	struct pv_ipc_event ev;

	assert_int_equal(recv(fd, &ev, sizeof(ev), MSG_DONTWAIT), sizeof(ev));
	assert_int_equal(ev.event_type, type);
	assert_int_equal(ev.obj_kind, PV_OBJ_QP);
	assert_int_equal(ev.handle, handle);
}

/* The QP's async events reach every holder, each with its own handle. */
static void test_eng_qp_open__events(void **state)
{
	struct fx *f = *state;
	uint32_t x1 = xopen(f, &f->c1, f->fa), xb = xopen(f, &f->c1b, f->fa);
	uint32_t th, oh, qpn = tgt_create(f, &f->c1, x1, &th);
	int sa[2], sb[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sa), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sb), 0);
	f->c1.ev_fd = sa[0];
	f->c1b.ev_fd = sb[0];
	assert_int_equal(qp_open(f, &f->c1b, xb, qpn, &oh), 0);
	eng_qp_event(eng_idtab_get(&f->dev1.qps, qpn), IBV_EVENT_QP_ACCESS_ERR);
	ev_read(sa[1], IBV_EVENT_QP_ACCESS_ERR, th);
	ev_read(sb[1], IBV_EVENT_QP_ACCESS_ERR, oh);
	f->c1.ev_fd = f->c1b.ev_fd = -1;
	close(sa[0]);
	close(sa[1]);
	close(sb[0]);
	close(sb[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_eng_qp_open__by_number,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_qp_open__refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_qp_open__creator_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_qp_open__creator_gone,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_qp_open__limit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eng_qp_open__events, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
