/* SPDX-License-Identifier: MIT */
/*
 * The library against a tiny fake engine (a test fixture only, serving one
 * connection at a time on a unix socket in a thread): device list, open,
 * device/port/GID/P_Key queries, async event mapping, error conventions.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "libverbs/lv_core.h"

static char dir[64], sock_path[128];
static int listen_fd = -1;
static int ev_peer = -1;	/* engine side of the open context's async fd */
static pthread_t thread;
/* Answers PD and SRQ ops as an engine of before XRC did: a 16-byte
 * pv_ipc_srq_resp (test_soft_fake__older_engine_srq). */
static bool old_srq_engine;

static int reply(int fd, const struct pv_msg_hdr *h, int status,
		 const void *p, uint32_t len, const int *fds, int nfds)
{
	return pv_ipc_send(fd, h->op, h->seq, status, p, len, fds, nfds);
}

static void reply_dev_list(int fd, const struct pv_msg_hdr *h)
{
	struct {
		struct pv_ipc_dev_list l;
		struct pv_ipc_dev_info d[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.l.count = 2;
	r.d[0].dev_id = 3;
	r.d[0].node_guid = htobe64(0x0011223344556677ull); /* wire: network order */
	strcpy(r.d[0].name, "fake0");
	r.d[1].dev_id = 4;
	strcpy(r.d[1].name, "fake1");
	reply(fd, h, 0, &r, sizeof(r), NULL, 0);
}

static void reply_ctx_open(int fd, const struct pv_msg_hdr *h)
{
	struct pv_ipc_handle ph = { .handle = 1 };
	int sp[2];

	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp);
	if (ev_peer >= 0)
		close(ev_peer);
	ev_peer = sp[0];
	reply(fd, h, 0, &ph, sizeof(ph), &sp[1], 1);
	close(sp[1]);
}

static void reply_queries(int fd, const struct pv_msg_hdr *h, const void *req)
{
	const struct pv_ipc_dev_ref *ref = req;

	if (h->op == PV_OP_DEV_QUERY) {
		struct pv_ipc_dev_attr a = {
			.node_guid = htobe64(0x0011223344556677ull),
			.vendor_id = PV_VENDOR_ID,
			.vendor_part_id = PV_VENDOR_PART_ID,
			.max_qp = 64, .phys_port_cnt = 1,
		};
		strcpy(a.fw_ver, "fake 1");
		reply(fd, h, 0, &a, sizeof(a), NULL, 0);
	} else if (h->op == PV_OP_PORT_QUERY) {
		struct pv_ipc_port_attr p = {
			.state = PV_PORT_ACTIVE, .max_mtu = IBV_MTU_4096,
			.active_mtu = IBV_MTU_1024, .gid_tbl_len = 4,
			.pkey_tbl_len = 1, .phys_state = 5,
			.link_layer = IBV_LINK_LAYER_ETHERNET,
		};
		reply(fd, h, ref->port == 1 ? 0 : -EINVAL, &p, sizeof(p),
		      NULL, 0);
	} else if (h->op == PV_OP_GID_QUERY) {
		struct pv_ipc_gid_table t = { .count = 1 };

		t.gid[0].gid[10] = t.gid[0].gid[11] = 0xff;
		inet_pton(AF_INET, "10.9.8.7", &t.gid[0].gid[12]);
		t.gid[0].gid_type = PV_GID_TYPE_ROCE_V2;
		/* Trimmed to the valid entries, which a client must accept. */
		reply(fd, h, 0, &t, 8 + sizeof(t.gid[0]), NULL, 0);
	} else {
		struct pv_ipc_pkey k = { .pkey = 0xffff };

		reply(fd, h, ref->index == 0 ? 0 : -EINVAL, &k, sizeof(k),
		      NULL, 0);
	}
}

static void serve_one(int fd, char *buf)
{
	for (;;) {
		struct pv_msg_hdr *h = (struct pv_msg_hdr *)buf;
		int n = pv_ipc_recv(fd, buf, PV_IPC_MAX_MSG, NULL, NULL);
		void *req = buf + sizeof(*h);

		if (n < 0)
			return;
		switch (h->op) {
		case PV_OP_HELLO: {
			struct pv_ipc_hello hello = {
				.abi_version = PV_IPC_VERSION, .client_id = 9,
			};
			reply(fd, h, 0, &hello, sizeof(hello), NULL, 0);
			break;
		}
		case PV_OP_DEV_LIST:
			reply_dev_list(fd, h);
			break;
		case PV_OP_CTX_OPEN:
			reply_ctx_open(fd, h);
			break;
		case PV_OP_DEV_QUERY:
		case PV_OP_PORT_QUERY:
		case PV_OP_GID_QUERY:
		case PV_OP_PKEY_QUERY:
			reply_queries(fd, h, req);
			break;
		case PV_OP_CQ_CREATE: {
			const struct pv_ipc_cq_create *c = req;
			struct pv_ipc_cq_resp r = { .handle = 7, .cqe = c->cqe };

			reply(fd, h, 0, &r, sizeof(r), NULL, 0);
			break;
		}
		case PV_OP_CQ_DESTROY:
			reply(fd, h, 0, NULL, 0, NULL, 0);
			break;
		case PV_OP_PD_ALLOC: {
			struct pv_ipc_handle r = { .handle = 5 };

			if (!old_srq_engine)
				goto unsupported;
			reply(fd, h, 0, &r, sizeof(r), NULL, 0);
			break;
		}
		case PV_OP_SRQ_CREATE:
		case PV_OP_SRQ_QUERY: {
			uint32_t v1[4] = { 11, 64, 1, 3 };  /* handle, wr, sge, limit */

			if (!old_srq_engine)
				goto unsupported;
			reply(fd, h, 0, v1, sizeof(v1), NULL, 0);
			break;
		}
		case PV_OP_PD_DEALLOC:
		case PV_OP_SRQ_DESTROY:
			reply(fd, h, old_srq_engine ? 0 : -EOPNOTSUPP, NULL, 0,
			      NULL, 0);
			break;
		unsupported:
		default:
			reply(fd, h, -EOPNOTSUPP, NULL, 0, NULL, 0);
		}
	}
}

static void *engine_main(void *arg)
{
	char *buf = malloc(PV_IPC_MAX_MSG);

	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			break;
		serve_one(fd, buf);
		close(fd);
	}
	free(buf);
	return NULL;
}

static int setup(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	strcpy(dir, "/tmp/pv-fake-engine.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sock_path, sizeof(sock_path), "%s/engine.sock", dir);
	strcpy(sun.sun_path, sock_path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(listen_fd, 8) < 0)
		return -1;
	setenv(PV_IPC_SOCKET_ENV, sock_path, 1);
	return pthread_create(&thread, NULL, engine_main, NULL);
}

static int teardown(void **state)
{
	shutdown(listen_fd, SHUT_RDWR);
	pthread_join(thread, NULL);
	close(listen_fd);
	unlink(sock_path);
	rmdir(dir);
	return 0;
}

static struct ibv_context *open_fake0(void)
{
	struct ibv_device **list;
	struct ibv_context *c;
	int n = -1;

	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_int_equal(n, 2);
	c = ibv_open_device(list[0]);
	ibv_free_device_list(list);	/* the context keeps its device */
	assert_non_null(c);
	return c;
}

static void test_soft_fake__unreachable_engine_gives_empty_list(void **state)
{
	struct ibv_device **list;
	int n = -1;

	setenv(PV_IPC_SOCKET_ENV, "/nonexistent/podverbs.sock", 1);
	list = ibv_get_device_list(&n);
	setenv(PV_IPC_SOCKET_ENV, sock_path, 1);
	assert_non_null(list);
	assert_int_equal(n, 0);
	assert_null(list[0]);
	ibv_free_device_list(list);
}

static void test_soft_fake__device_list(void **state)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_int_equal(n, 2);
	assert_null(list[2]);
	assert_string_equal(ibv_get_device_name(list[0]), "fake0");
	assert_string_equal(list[1]->name, "fake1");
	assert_int_equal(list[0]->node_type, IBV_NODE_CA);
	assert_int_equal(list[0]->transport_type, IBV_TRANSPORT_IB);
	/* No per-pod tree here: a class no kernel registers (lv_dev_ident.h). */
	assert_string_equal(list[0]->ibdev_path, "/sys/class/podverbs/fake0");
	assert_string_equal(list[0]->dev_name, "podverbs");
	assert_string_equal(list[0]->dev_path,
			    "/sys/class/infiniband_verbs/podverbs");
	assert_true(ibv_get_device_guid(list[0]) ==
		    htobe64(0x0011223344556677ull));
	/* Engine ids 3 and 4, in the provider range above the kernel's. */
	assert_int_equal(ibv_get_device_index(list[0]), 0x40000003);
	assert_int_equal(ibv_get_device_index(list[1]), 0x40000004);
	ibv_free_device_list(list);
}

/*
 * A sysfs tree (SYSFS_PATH) where the kernel has uverbs3 and a device
 * named fake0 (its class entry a link, as the kernel's are), and a
 * per-pod tree's folder for fake1: fake0 (engine id 3) names neither
 * kernel folder, fake1 is read from the pod's tree.
 */
static void test_soft_fake__paths_beside_kernel_sysfs(void **state)
{
	static const char *const dirs[] = {
		"sys", "sys/class", "sys/class/infiniband_verbs",
		"sys/class/infiniband_verbs/uverbs3", "sys/class/infiniband",
		"sys/devices", "sys/devices/fake0", "sys/class/infiniband/fake1",
	};
	char root[128], p[256], want[256];
	struct ibv_device **list;
	int n = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	snprintf(p, sizeof(p), "%s/sys/class/infiniband/fake0", dir);
	assert_int_equal(symlink("../../devices/fake0", p), 0);
	snprintf(root, sizeof(root), "%s/sys", dir);
	setenv("SYSFS_PATH", root, 1);
	list = ibv_get_device_list(&n);
	unsetenv("SYSFS_PATH");
	assert_non_null(list);
	assert_int_equal(n, 2);
	snprintf(want, sizeof(want), "%s/class/infiniband_verbs/podverbs", root);
	assert_string_equal(list[0]->dev_path, want);
	assert_string_equal(list[1]->dev_path, want);
	snprintf(want, sizeof(want), "%s/class/podverbs/fake0", root);
	assert_string_equal(list[0]->ibdev_path, want);
	snprintf(want, sizeof(want), "%s/class/infiniband/fake1", root);
	assert_string_equal(list[1]->ibdev_path, want);
	ibv_free_device_list(list);
	unlink(p);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		assert_int_equal(rmdir(p), 0);
	}
}

static void test_soft_fake__open_and_query(void **state)
{
	struct ibv_context *c = open_fake0();
	struct ibv_device_attr_ex dx;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	assert_true(c->async_fd >= 0 && c->cmd_fd >= 0);
	assert_int_equal(ibv_query_device(c, &da), 0);
	assert_int_equal(da.vendor_id, PV_VENDOR_ID);
	assert_int_equal(da.phys_port_cnt, 1);
	assert_string_equal(da.fw_ver, "fake 1");
	assert_true(da.node_guid == htobe64(0x0011223344556677ull));
	/* The inline helpers go through the verbs_context slots. */
	assert_int_equal(ibv_query_device_ex(c, NULL, &dx), 0);
	assert_int_equal(dx.orig_attr.max_qp, 64);
	assert_int_equal(ibv_query_port(c, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.active_mtu, IBV_MTU_1024);
	assert_int_equal(pa.gid_tbl_len, 4);
	/* The exported compat symbol, as old binaries call it. */
	memset(&pa, 0, sizeof(pa));
	assert_int_equal((ibv_query_port)(c, 1,
					  (struct _compat_ibv_port_attr *)&pa),
			 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(ibv_query_port(c, 2, &pa), EINVAL);
	assert_int_equal(ibv_close_device(c), 0);
}

static void test_soft_fake__gids_and_pkeys(void **state)
{
	struct ibv_context *c = open_fake0();
	struct ibv_gid_entry e, tab[4];
	char s[INET6_ADDRSTRLEN];
	union ibv_gid gid;
	__be16 pkey;
	int type = -1;

	assert_int_equal(ibv_query_gid(c, 1, 0, &gid), 0);
	inet_ntop(AF_INET6, gid.raw, s, sizeof(s));
	assert_string_equal(s, "::ffff:10.9.8.7");
	assert_int_equal(ibv_query_gid_type(c, 1, 0, &type), 0);
	assert_int_equal(type, 1);	/* sysfs RoCE v2 */
	/* Inside the table but empty: zero GID, no type. */
	assert_int_equal(ibv_query_gid(c, 1, 2, &gid), 0);
	assert_true(gid.global.subnet_prefix == 0 &&
		    gid.global.interface_id == 0);
	assert_int_equal(ibv_query_gid_type(c, 1, 2, &type), -1);
	assert_int_equal(ibv_query_gid(c, 1, 4, &gid), -1);
	assert_int_equal(ibv_query_gid_ex(c, 1, 0, &e, 0), 0);
	assert_int_equal(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(e.port_num, 1);
	assert_int_equal(ibv_query_gid_ex(c, 1, 1, &e, 0), ENODATA);
	assert_int_equal(ibv_query_gid_ex(c, 1, 0, &e, 1), EINVAL);
	assert_int_equal(ibv_query_gid_table(c, tab, 4, 0), 1);
	assert_int_equal(tab[0].gid_index, 0);
	assert_int_equal(ibv_query_pkey(c, 1, 0, &pkey), 0);
	assert_true(pkey == htobe16(0xffff));
	assert_int_equal(ibv_query_pkey(c, 1, 1, &pkey), -1);
	assert_int_equal(ibv_get_pkey_index(c, 1, htobe16(0xffff)), 0);
	assert_int_equal(ibv_get_pkey_index(c, 1, htobe16(0x8001)), -1);
	assert_int_equal(ibv_close_device(c), 0);
}

static void push_event(uint32_t type, uint32_t kind, uint32_t handle)
{
	struct pv_ipc_event ev = { .event_type = type, .obj_kind = kind,
				   .handle = handle };

	assert_int_equal(send(ev_peer, &ev, sizeof(ev), 0), sizeof(ev));
}

static void test_soft_fake__async_events_map_and_ack(void **state)
{
	struct ibv_context *c = open_fake0();
	struct ibv_async_event ev;
	struct ibv_cq *cq;

	cq = ibv_create_cq(c, 16, NULL, NULL, 0);
	assert_non_null(cq);
	assert_int_equal(cq->cqe, 16);
	push_event(IBV_EVENT_CQ_ERR, PV_OBJ_CQ, 7);
	/* An event for an object we don't know is skipped. */
	push_event(IBV_EVENT_QP_FATAL, PV_OBJ_QP, 99);
	push_event(IBV_EVENT_PORT_ERR, PV_OBJ_PORT, 1);
	assert_int_equal(ibv_get_async_event(c, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, cq);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_get_async_event(c, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_PORT_ERR);
	assert_int_equal(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);
	/* Acked: destroy must not wait. */
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_close_device(c), 0);
}

static void test_soft_fake__unsupported_verbs_fail_cleanly(void **state)
{
	struct ibv_context *c = open_fake0();
	struct ibv_wc wc;
	struct ibv_cq *cq;

	errno = 0;
	assert_null(ibv_alloc_pd(c));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_null(ibv_create_comp_channel(c));
	assert_int_equal(errno, EOPNOTSUPP);
	cq = ibv_create_cq(c, 4, NULL, NULL, 0);
	assert_non_null(cq);
	assert_true(ibv_poll_cq(cq, 1, &wc) < 0);
	assert_int_equal(ibv_req_notify_cq(cq, 0), EOPNOTSUPP);
	assert_int_equal(ibv_resize_cq(cq, 8), EOPNOTSUPP);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_null(ibv_create_cq(c, 0, NULL, NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ibv_close_device(c), 0);
}

/* A library newer than its engine (same IPC version, the engine from
 * before XRC): its 16-byte SRQ replies are taken (EPROTO before). */
static void test_soft_fake__older_engine_srq(void **state)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_context *c = open_fake0();
	struct ibv_srq_attr q;
	struct ibv_srq *srq;
	struct ibv_pd *pd;

	old_srq_engine = true;
	pd = ibv_alloc_pd(c);
	assert_non_null(pd);
	srq = ibv_create_srq(pd, &a);
	assert_non_null(srq);
	assert_int_equal(a.attr.max_wr, 64);
	assert_int_equal(a.attr.srq_limit, 3);
	assert_int_equal(ibv_query_srq(srq, &q), 0);
	assert_int_equal(q.max_wr, 64);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	old_srq_engine = false;
	assert_int_equal(ibv_close_device(c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_fake__unreachable_engine_gives_empty_list),
		cmocka_unit_test(test_soft_fake__device_list),
		cmocka_unit_test(test_soft_fake__paths_beside_kernel_sysfs),
		cmocka_unit_test(test_soft_fake__open_and_query),
		cmocka_unit_test(test_soft_fake__gids_and_pkeys),
		cmocka_unit_test(test_soft_fake__async_events_map_and_ack),
		cmocka_unit_test(test_soft_fake__unsupported_verbs_fail_cleanly),
		cmocka_unit_test(test_soft_fake__older_engine_srq),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
