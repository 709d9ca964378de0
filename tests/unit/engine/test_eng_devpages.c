/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the paged device listings (DEV_LIST, ADM_DEV_LIST with a
 * pv_ipc_list_req): a node's worth of devices (max_devices by default,
 * more than one reply holds) listed completely page by page, and the
 * request's fields taken as hostile (cursor past the end, huge counts,
 * odd sizes).  Made-up links and identities: no namespaces, no root.
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

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_stats.h"

/* What one DEV_LIST reply holds: the default max_devices is past it. */
#define DEV_FIT ((PV_IPC_MAX_PAYLOAD - sizeof(struct pv_ipc_dev_list)) / \
		 sizeof(struct pv_ipc_dev_info))

struct fx {
	struct eng e;
	int cli;
	struct eng_conn *conn;
	char buf[PV_IPC_MAX_MSG];
	uint32_t ndev;
};

/* Device i: interface e<i> with its own address 10.<i/250>.<i%250>.1, so
 * no two devices contend for a GID. */
static void fake_link(struct netns_link *l, uint32_t i)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = (int)i + 2;
	snprintf(l->name, sizeof(l->name), "e%u", i);
	l->mtu = 1500;
	l->up = l->running = true;
	memcpy(l->mac, "\x02\x11\x22\x00\x00\x00", 6);
	l->mac[4] = (uint8_t)(i >> 8);
	l->mac[5] = (uint8_t)i;
	l->naddrs = 1;
	l->addrs[0].family = 2;	/* AF_INET */
	l->addrs[0].addr[0] = 10;
	l->addrs[0].addr[1] = (uint8_t)(i / 250);
	l->addrs[0].addr[2] = (uint8_t)(i % 250);
	l->addrs[0].addr[3] = 1;
	l->addrs[0].prefixlen = 24;
}

static void connect_on(struct fx *f, uid_t uid, bool admin_socket)
{
	struct eng_ident id = { .pid = getpid(), .uid = uid,
				.ns_known = true, .ns = f->e.self_ns,
				.admin_socket = admin_socket };
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	f->conn = eng_conn_add(&f->e, sv[0], &id);
	assert_non_null(f->conn);
	f->cli = sv[1];
}

/* Every device in the engine's own namespace: its listings see all. */
static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct netns_link l;
	struct eng_dev *d;

	assert_non_null(f);
	eng_log_level = ENG_LOG_ERR;
	assert_int_equal(eng_init(&f->e), 0);
	f->ndev = (uint32_t)eng_lim.max_devices;
	for (uint32_t i = 0; i < f->ndev; i++) {
		fake_link(&l, i);
		assert_int_equal(eng_dev_register(&f->e, -1, &f->e.self_ns,
						  "", "", 0, &l, &d), 0);
	}
	connect_on(f, 1000, false);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	close(f->cli);
	eng_fini(&f->e);
	free(f);
	return 0;
}

static int call(struct fx *f, uint16_t op, const void *req, uint32_t len)
{
	struct pv_msg_hdr *h = (struct pv_msg_hdr *)f->buf;

	assert_int_equal(pv_ipc_send(f->cli, op, 5, 0, req, len, NULL, 0), 0);
	eng_conn_serve(&f->e, f->conn, 1);
	assert_true(pv_ipc_recv(f->cli, f->buf, sizeof(f->buf), NULL,
				NULL) >= 0);
	assert_int_equal(h->seq, 5);
	return h->status;
}

static void *payload_of(struct fx *f)
{
	return f->buf + sizeof(struct pv_msg_hdr);
}

/* The defaults serve a node: 250 pods, and 1024 devices in all. */
static void test_eng_devpages__defaults_take_a_node(void **state)
{
	struct fx *f = *state;
	struct netns_link l;
	struct eng_dev *d;

	assert_true(eng_lim.max_devices >= 1024);
	assert_true(f->ndev > DEV_FIT);
	assert_int_equal(eng_stats[ENG_STAT_devices_live], f->ndev);
	fake_link(&l, f->ndev);
	assert_int_equal(eng_dev_register(&f->e, -1, &f->e.self_ns, "", "",
					  0, &l, &d), -ENOMEM);
}

/* ibv_get_device_list in the engine's namespace: all devices, in pages
 * of what fits, each next one from the last id + 1. */
static void test_eng_devpages__dev_list_pages_to_the_end(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_list *l = payload_of(f);
	struct pv_ipc_list_req req = { 0 };
	uint32_t seen = 0, pages = 0, last = 0;

	assert_int_equal(call(f, PV_OP_DEV_LIST, NULL, 0), 0);
	for (;;) {
		pages++;
		for (uint32_t i = 0; i < l->count; i++) {
			assert_true(l->dev[i].dev_id > last);
			last = l->dev[i].dev_id;
		}
		seen += l->count;
		if (!(l->flags & PV_LIST_MORE))
			break;
		assert_int_equal(l->count, DEV_FIT);
		req.cursor = last + 1;
		assert_int_equal(call(f, PV_OP_DEV_LIST, &req, sizeof(req)),
				 0);
	}
	assert_int_equal(seen, f->ndev);
	assert_int_equal(pages, (f->ndev + DEV_FIT - 1) / DEV_FIT);
}

static void test_eng_devpages__adm_list_pages_with_total(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_adm_dev_list *l = payload_of(f);
	struct pv_ipc_list_req req = { 0 };
	uint32_t seen = 0, last = 0;

	close(f->cli);
	connect_on(f, 0, true);
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, NULL, 0), 0);
	/* From the start, total is every device, as before paging. */
	assert_int_equal(l->total, f->ndev);
	while (1) {
		for (uint32_t i = 0; i < l->count; i++) {
			assert_true(l->dev[i].info.dev_id > last);
			assert_int_equal(l->dev[i].gid_count, 1);
			last = l->dev[i].info.dev_id;
		}
		seen += l->count;
		assert_int_equal(l->total, f->ndev - seen + l->count);
		if (l->total == l->count)
			break;
		req.cursor = last + 1;
		assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, &req,
				      sizeof(req)), 0);
	}
	assert_int_equal(seen, f->ndev);
}

static void test_eng_devpages__hostile_requests(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_list *l = payload_of(f);
	struct pv_ipc_list_req req = { .cursor = UINT32_MAX };
	uint64_t bad = eng_stats[ENG_STAT_msgs_malformed];
	char junk[2 * sizeof(req)] = { 0 };

	/* Past the end: an empty last page. */
	assert_int_equal(call(f, PV_OP_DEV_LIST, &req, sizeof(req)), 0);
	assert_int_equal(l->count, 0);
	assert_int_equal(l->flags, 0);
	req.cursor = 0xffff;	/* the top id itself, none there */
	assert_int_equal(call(f, PV_OP_DEV_LIST, &req, sizeof(req)), 0);
	assert_int_equal(l->count, 0);
	/* A huge count is what fits; a small one is kept, with "more". */
	req.cursor = 0;
	req.max = UINT32_MAX;
	req.reserved[0] = 0xdeadbeef;	/* ignored, as reserved fields are */
	assert_int_equal(call(f, PV_OP_DEV_LIST, &req, sizeof(req)), 0);
	assert_int_equal(l->count, DEV_FIT);
	req.max = 1;
	assert_int_equal(call(f, PV_OP_DEV_LIST, &req, sizeof(req)), 0);
	assert_int_equal(l->count, 1);
	assert_int_equal(l->flags, PV_LIST_MORE);
	/* Neither empty nor a whole request: refused and counted. */
	assert_int_equal(call(f, PV_OP_DEV_LIST, junk, 5), -EINVAL);
	assert_int_equal(call(f, PV_OP_DEV_LIST, junk, sizeof(req) + 1),
			 -EINVAL);
	close(f->cli);
	connect_on(f, 0, true);
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, junk, 8), -EINVAL);
	assert_int_equal(eng_stats[ENG_STAT_msgs_malformed], bad + 3);
	req.cursor = UINT32_MAX;
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, &req, sizeof(req)), 0);
	assert_int_equal(((struct pv_ipc_adm_dev_list *)l)->count, 0);
	assert_int_equal(((struct pv_ipc_adm_dev_list *)l)->total, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_eng_devpages__defaults_take_a_node, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_devpages__dev_list_pages_to_the_end, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_devpages__adm_list_pages_with_total, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_eng_devpages__hostile_requests, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
