/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine's dispatcher and objects: a client connection
 * over a socketpair with a made-up identity, a device built from a
 * made-up link (no namespaces, no root).  Malformed input, access rules,
 * object life cycles, limits and async events.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_stats.h"

static const struct netns_id pod_ns = { .dev = 4, .ino = 4026530001u };
static const struct netns_id other_ns = { .dev = 4, .ino = 4026530002u };

struct fx {
	struct eng e;
	struct eng_dev *dev;
	int cli;		/* client end */
	struct eng_conn *conn;
	char buf[PV_IPC_MAX_MSG];
	int fds[PV_IPC_MAX_FDS];
	int nfds;
};

static void fake_link(struct netns_link *l, uint32_t mtu, bool up)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = 2;
	strcpy(l->name, "eth0");
	l->mtu = mtu;
	l->up = l->running = up;
	memcpy(l->mac, "\x02\x11\x22\x33\x44\x55", 6);
	l->naddrs = 1;
	l->addrs[0].family = 2;	/* AF_INET */
	memcpy(l->addrs[0].addr, "\x0a\x00\x00\x01", 4);
	l->addrs[0].prefixlen = 24;
}

/* Connects a client with the given identity, on the admin socket or
 * the pod socket. */
static void connect_on(struct fx *f, uid_t uid, const struct netns_id *ns,
		       bool admin_socket)
{
	struct eng_ident id = { .pid = getpid(), .uid = uid,
				.ns_known = true, .ns = *ns,
				.admin_socket = admin_socket };
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	f->conn = eng_conn_add(&f->e, sv[0], &id);
	assert_non_null(f->conn);
	f->cli = sv[1];
}

static void connect_as(struct fx *f, uid_t uid, const struct netns_id *ns)
{
	connect_on(f, uid, ns, false);
}

static void connect_admin(struct fx *f, uid_t uid)
{
	connect_on(f, uid, &f->e.self_ns, true);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct netns_link l;

	eng_log_level = ENG_LOG_ERR;
	assert_int_equal(eng_init(&f->e), 0);
	fake_link(&l, 1500, true);
	assert_int_equal(eng_dev_register(&f->e, -1, &pod_ns, "/fake/ns",
					  "rdma0", 0, &l, &f->dev), 0);
	connect_as(f, 1000, &pod_ns);
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

/* Sends raw bytes, lets the engine serve them, returns the reply's
 * payload length or -EAGAIN if no reply came. */
static int raw_call(struct fx *f, const void *msg, size_t len)
{
	f->nfds = 0;
	assert_int_equal(send(f->cli, msg, len, 0), (ssize_t)len);
	eng_conn_serve(&f->e, f->conn, 1);
	fcntl(f->cli, F_SETFL, O_NONBLOCK);
	int ret = pv_ipc_recv(f->cli, f->buf, sizeof(f->buf), f->fds, &f->nfds);

	fcntl(f->cli, F_SETFL, 0);
	return ret;
}

static struct pv_msg_hdr *hdr_of(struct fx *f)
{
	return (struct pv_msg_hdr *)f->buf;
}

static void *payload_of(struct fx *f)
{
	return f->buf + sizeof(struct pv_msg_hdr);
}

/* A well-formed request; returns the reply status. */
static int call(struct fx *f, uint16_t op, const void *req, uint32_t len)
{
	char msg[PV_IPC_MAX_MSG];
	struct pv_msg_hdr h = { .magic = PV_IPC_MAGIC,
				.version = PV_IPC_VERSION, .op = op,
				.len = len, .seq = 77 };

	memcpy(msg, &h, sizeof(h));
	if (len)
		memcpy(msg + sizeof(h), req, len);
	assert_true(raw_call(f, msg, sizeof(h) + len) >= 0);
	assert_int_equal(hdr_of(f)->seq, 77);
	assert_int_equal(hdr_of(f)->op, op);
	return hdr_of(f)->status;
}

/* MR_REG of mr with its backing: fd (a memfd) or none (fd < 0). */
static int mr_reg(struct fx *f, const struct pv_ipc_mr_reg *mr, int fd)
{
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing backing;
	} req = { .reg = *mr, .backing = { .has_fd = fd >= 0 } };

	f->nfds = 0;
	assert_int_equal(pv_ipc_send(f->cli, PV_OP_MR_REG, 78, 0, &req,
				     sizeof(req), &fd, fd >= 0 ? 1 : 0), 0);
	eng_conn_serve(&f->e, f->conn, 1);
	assert_true(pv_ipc_recv(f->cli, f->buf, sizeof(f->buf), f->fds,
				&f->nfds) >= 0);
	assert_int_equal(hdr_of(f)->seq, 78);
	return hdr_of(f)->status;
}

/* A memfd of len bytes, every page written (populated) or none. */
static int memfd_of(size_t len, bool populate, unsigned int flags)
{
	int fd = memfd_create("test-mr", MFD_CLOEXEC | flags);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	for (size_t off = 0; populate && off < len; off += 4096)
		assert_int_equal(pwrite(fd, "", 1, (off_t)off), 1);
	return fd;
}

static uint32_t create(struct fx *f, uint16_t op, const void *req,
		       uint32_t len)
{
	assert_int_equal(call(f, op, req, len), 0);
	return *(uint32_t *)payload_of(f);
}

static void open_ctx(struct fx *f)
{
	struct pv_ipc_dev_ref ref = { .dev_id = f->dev->id };

	assert_int_equal(call(f, PV_OP_CTX_OPEN, &ref, sizeof(ref)), 0);
	assert_int_equal(f->nfds, 1);
	close(f->fds[0]);
}

static void test_eng_server__bad_magic_counted_and_conn_survives(void **state)
{
	struct fx *f = *state;
	struct pv_msg_hdr h = { .magic = 0xdeadbeef, .version = 1, .op = 1 };
	struct pv_ipc_hello hello = { .abi_version = PV_IPC_VERSION };
	uint64_t before = eng_stats[ENG_STAT_msgs_malformed];

	assert_int_equal(raw_call(f, &h, sizeof(h)), -EAGAIN);
	assert_int_equal(raw_call(f, "xyz", 3), -EAGAIN);
	assert_int_equal(eng_stats[ENG_STAT_msgs_malformed], before + 2);
	assert_int_equal(call(f, PV_OP_HELLO, &hello, sizeof(hello)), 0);
	assert_int_equal(((struct pv_ipc_hello *)payload_of(f))->client_id,
			 f->conn->id);
}

static void test_eng_server__len_mismatch_gets_eproto(void **state)
{
	struct fx *f = *state;
	char msg[64] = { 0 };
	struct pv_msg_hdr h = { .magic = PV_IPC_MAGIC, .version = 1,
				.op = PV_OP_HELLO, .len = 32, .seq = 9 };

	memcpy(msg, &h, sizeof(h));
	/* Header claims 32 payload bytes, 8 arrive. */
	assert_true(raw_call(f, msg, sizeof(h) + 8) >= 0);
	assert_int_equal(hdr_of(f)->status, -EPROTO);
	assert_int_equal(hdr_of(f)->seq, 9);
}

static void test_eng_server__wrong_size_for_op_gets_einval(void **state)
{
	struct fx *f = *state;
	char junk[40] = { 0 };
	uint64_t before = eng_stats[ENG_STAT_msgs_malformed];

	assert_int_equal(call(f, PV_OP_HELLO, junk, 31), -EINVAL);
	assert_int_equal(call(f, PV_OP_PD_ALLOC, junk, 4), -EINVAL);
	assert_int_equal(call(f, PV_OP_DEV_LIST, junk, 1), -EINVAL);
	assert_int_equal(eng_stats[ENG_STAT_msgs_malformed], before + 3);
}

static void test_eng_server__unknown_op_gets_eopnotsupp(void **state)
{
	struct fx *f = *state;
	uint64_t before = eng_stats[ENG_STAT_msgs_unknown_op];

	assert_int_equal(call(f, 120, NULL, 0), -EOPNOTSUPP);
	assert_int_equal(call(f, 255, NULL, 0), -EOPNOTSUPP);
	assert_int_equal(eng_stats[ENG_STAT_msgs_unknown_op], before + 2);
}

static void test_eng_server__hello_wrong_abi_refused(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_hello hello = { .abi_version = 99 };

	assert_int_equal(call(f, PV_OP_HELLO, &hello, sizeof(hello)),
			 -EPROTONOSUPPORT);
}

/* A request carrying fds; returns the reply status. */
static int call_fds(struct fx *f, uint16_t op, const void *req, uint32_t len,
		    const int *fds, int nfds)
{
	int ret;

	f->nfds = 0;
	assert_int_equal(pv_ipc_send(f->cli, op, 78, 0, req, len, fds, nfds),
			 0);
	eng_conn_serve(&f->e, f->conn, 1);
	fcntl(f->cli, F_SETFL, O_NONBLOCK);
	ret = pv_ipc_recv(f->cli, f->buf, sizeof(f->buf), f->fds, &f->nfds);
	fcntl(f->cli, F_SETFL, 0);
	assert_true(ret >= 0);
	return hdr_of(f)->status;
}

/* Finding 3: an fd on an op that takes none is refused and counted; the
 * engine keeps no copy (the pipe's write end sees no reader). */
static void test_eng_server__fd_refused_on_op_taking_none(void **state)
{
	struct fx *f = *state;
	uint64_t before = eng_stats[ENG_STAT_msgs_fds_refused];
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	assert_int_equal(call_fds(f, PV_OP_DEV_LIST, NULL, 0, &p[0], 1),
			 -EBADF);
	assert_int_equal(eng_stats[ENG_STAT_msgs_fds_refused], before + 1);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(write(p[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
}

/* Finding 3: HELLO's fd must be a network namespace. */
static void test_eng_server__hello_fd_must_be_netns(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION,
				  .flags = PV_HELLO_NETNS };
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(call_fds(f, PV_OP_HELLO, &h, sizeof(h), &p[0], 1),
			 -EBADF);
	close(p[0]);
	close(p[1]);
}

/* Finding 4: a connection sees no device until HELLO proves its
 * namespace with an fd of its own; then it sees that namespace's. */
static void test_eng_server__hello_netns_fd_decides_visibility(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION,
				  .flags = PV_HELLO_NETNS };
	struct eng_ident id = { .pid = getpid(), .uid = 1000 };
	struct pv_ipc_dev_list *l;
	struct netns_link link;
	struct eng_dev *d;
	int sv[2], ns;

	fake_link(&link, 1500, true);
	assert_true(f->e.self_ns_known);
	assert_int_equal(eng_dev_register(&f->e, -1, &f->e.self_ns, "",
					  "mine", 0, &link, &d), 0);
	close(f->cli);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	f->conn = eng_conn_add(&f->e, sv[0], &id);
	assert_non_null(f->conn);
	f->cli = sv[1];
	assert_int_equal(call(f, PV_OP_DEV_LIST, NULL, 0), 0);
	l = payload_of(f);
	assert_int_equal(l->count, 0);
	ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(ns >= 0);
	assert_int_equal(call_fds(f, PV_OP_HELLO, &h, sizeof(h), &ns, 1), 0);
	close(ns);
	assert_true(((struct pv_ipc_hello *)payload_of(f))->flags &
		    PV_HELLO_NETNS);
	assert_int_equal(call(f, PV_OP_DEV_LIST, NULL, 0), 0);
	l = payload_of(f);
	assert_int_equal(l->count, 1);
	assert_string_equal(l->dev[0].name, "mine");
}

/* Finding 6: connections per network namespace are capped at accept. */
static void test_eng_server__max_clients_per_ns_enforced(void **state)
{
	struct fx *f = *state;
	struct eng_ident id = { .pid = 1, .uid = 0, .ns_cookie = 7 };
	uint64_t old = eng_lim.max_clients_per_ns;
	uint64_t before = eng_stats[ENG_STAT_clients_rejected_ns];
	int sv[2], sv2[2];

	eng_lim.max_clients_per_ns = 1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_non_null(eng_conn_add(&f->e, sv[0], &id));
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv2), 0);
	assert_null(eng_conn_add(&f->e, sv2[0], &id));	/* same pod */
	assert_int_equal(eng_stats[ENG_STAT_clients_rejected_ns], before + 1);
	id.admin_socket = true;		/* admin has its own cap */
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv2), 0);
	assert_non_null(eng_conn_add(&f->e, sv2[0], &id));
	eng_lim.max_clients_per_ns = old;
	close(sv[1]);
	close(sv2[1]);
}

static void test_eng_server__admin_denied_to_non_root(void **state)
{
	struct fx *f = *state;
	uint64_t before = eng_stats[ENG_STAT_requests_denied];

	assert_int_equal(call(f, PV_OP_ADM_STATS, NULL, 0), -EPERM);
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, NULL, 0), -EPERM);
	assert_int_equal(eng_stats[ENG_STAT_requests_denied], before + 2);
}

static void test_eng_server__admin_denied_to_root_elsewhere(void **state)
{
	struct fx *f = *state;

	close(f->cli);
	connect_as(f, 0, &pod_ns);	/* root, but in a pod's namespace */
	assert_int_equal(call(f, PV_OP_ADM_STATS, NULL, 0), -EPERM);
}

/* Root in the engine's own namespace, on the pod socket: the namespace
 * and uid no longer grant admin (finding 4: both could come from a
 * reused pid); only the admin socket does. */
static void test_eng_server__admin_denied_to_root_here_on_pod_socket(
	void **state)
{
	struct fx *f = *state;
	uint64_t before = eng_stats[ENG_STAT_admin_denied];

	close(f->cli);
	connect_as(f, 0, &f->e.self_ns);
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, NULL, 0), -EPERM);
	assert_int_equal(eng_stats[ENG_STAT_admin_denied], before + 1);
}

static void test_eng_server__admin_denied_to_non_root_on_admin_socket(
	void **state)
{
	struct fx *f = *state;

	close(f->cli);
	connect_admin(f, 1000);
	assert_int_equal(call(f, PV_OP_ADM_STATS, NULL, 0), -EPERM);
}

static void test_eng_server__admin_allowed_to_root_here(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_adm_dev_list *l;

	close(f->cli);
	connect_admin(f, 0);
	assert_int_equal(call(f, PV_OP_ADM_DEV_LIST, NULL, 0), 0);
	l = payload_of(f);
	assert_int_equal(l->count, 1);
	assert_int_equal(l->total, 1);
	assert_string_equal(l->dev[0].info.name, "rdma0");
	assert_int_equal(l->dev[0].gid_count, 1);
	assert_int_equal(l->dev[0].info.netdev_mtu, 1500);
	assert_int_equal(call(f, PV_OP_ADM_STATS, NULL, 0), 0);
	assert_true(((struct pv_ipc_stats *)payload_of(f))->count > 10);
}

static void test_eng_device__other_namespace_sees_nothing(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_ref ref = { .dev_id = f->dev->id, .port = 1 };

	close(f->cli);
	connect_as(f, 1000, &other_ns);
	assert_int_equal(call(f, PV_OP_DEV_LIST, NULL, 0), 0);
	assert_int_equal(((struct pv_ipc_dev_list *)payload_of(f))->count, 0);
	assert_int_equal(call(f, PV_OP_DEV_QUERY, &ref, sizeof(ref)), -ENODEV);
	assert_int_equal(call(f, PV_OP_PORT_QUERY, &ref, sizeof(ref)), -ENODEV);
	assert_int_equal(call(f, PV_OP_GID_QUERY, &ref, sizeof(ref)), -ENODEV);
	assert_int_equal(call(f, PV_OP_CTX_OPEN, &ref, sizeof(ref)), -ENODEV);
	ref.dev_id = 4242;	/* same answer as for a real one */
	assert_int_equal(call(f, PV_OP_DEV_QUERY, &ref, sizeof(ref)), -ENODEV);
}

static void test_eng_device__own_namespace_queries(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_ref ref = { .dev_id = f->dev->id, .port = 1 };
	struct pv_ipc_port_attr *pa;
	struct pv_ipc_gid_table *gt;

	assert_int_equal(call(f, PV_OP_DEV_LIST, NULL, 0), 0);
	assert_int_equal(((struct pv_ipc_dev_list *)payload_of(f))->count, 1);
	assert_int_equal(call(f, PV_OP_DEV_QUERY, &ref, sizeof(ref)), 0);
	assert_int_equal(((struct pv_ipc_dev_attr *)payload_of(f))->vendor_id,
			 PV_VENDOR_ID);
	assert_int_equal(call(f, PV_OP_PORT_QUERY, &ref, sizeof(ref)), 0);
	pa = payload_of(f);
	assert_int_equal(pa->state, PV_PORT_ACTIVE);
	assert_int_equal(pa->active_mtu, 3);
	assert_int_equal(pa->link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(call(f, PV_OP_GID_QUERY, &ref, sizeof(ref)), 0);
	gt = payload_of(f);
	assert_int_equal(gt->count, 1);
	assert_memory_equal(gt->gid[0].gid,
			    "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x01", 16);
	assert_int_equal(gt->gid[0].gid_type, PV_GID_TYPE_ROCE_V2);
	ref.port = 2;
	assert_int_equal(call(f, PV_OP_PORT_QUERY, &ref, sizeof(ref)), -EINVAL);
	ref.port = 1;
	assert_int_equal(call(f, PV_OP_PKEY_QUERY, &ref, sizeof(ref)), 0);
	assert_int_equal(((struct pv_ipc_pkey *)payload_of(f))->pkey, 0xffff);
}

static void test_eng_device__names_unique_per_namespace(void **state)
{
	struct fx *f = *state;
	struct eng_dev *d;
	struct netns_link l;

	fake_link(&l, 1500, true);
	strcpy(l.name, "eth1");
	assert_int_equal(eng_dev_register(&f->e, -1, &pod_ns, "", "rdma0", 0,
					  &l, &d), -EEXIST);
	strcpy(l.name, "eth0");
	assert_int_equal(eng_dev_register(&f->e, -1, &pod_ns, "", "x", 0,
					  &l, &d), -EEXIST);
	/* The same name in another pod is fine (CNI "rdma0" everywhere). */
	assert_int_equal(eng_dev_register(&f->e, -1, &other_ns, "", "rdma0",
					  0, &l, &d), 0);
	strcpy(l.name, "eth1");
	assert_int_equal(eng_dev_register(&f->e, -1, &other_ns, "", "", 0,
					  &l, &d), 0);
	assert_string_equal(d->name, "pv0");
}

static void test_eng_objects__context_and_objects(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_mr_reg mr = { .access = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE,
				    .addr = 0x10000, .length = 4096 };
	struct pv_ipc_cq_create cq = { .cqe = 16 };
	struct pv_ipc_mr_reg_resp *mresp;
	uint32_t pd, cqh, lkey1;
	int fd;

	assert_int_equal(call(f, PV_OP_PD_ALLOC, NULL, 0), -EINVAL); /* no ctx */
	open_ctx(f);
	pd = create(f, PV_OP_PD_ALLOC, NULL, 0);
	assert_true(pd != 0);
	mr.pd_handle = pd;
	fd = memfd_of(4096, true, MFD_ALLOW_SEALING);
	assert_int_equal(mr_reg(f, &mr, fd), 0);
	mresp = payload_of(f);
	assert_true(mresp->lkey != 0 && mresp->rkey != 0 &&
		    mresp->lkey != mresp->rkey);
	lkey1 = mresp->lkey;
	assert_int_equal(mr_reg(f, &mr, fd), 0);
	assert_true(mresp->lkey != lkey1);
	/* Remote write without local write is invalid (ibv_reg_mr(3)). */
	mr.access = IBV_ACCESS_REMOTE_WRITE;
	assert_int_equal(mr_reg(f, &mr, fd), -EINVAL);
	mr.access = 0;
	mr.length = 0;
	assert_int_equal(mr_reg(f, &mr, fd), -EINVAL);
	close(fd);
	cqh = create(f, PV_OP_CQ_CREATE, &cq, sizeof(cq));
	assert_true(cqh != 0 && cqh != pd);
	assert_int_equal(((struct pv_ipc_cq_resp *)payload_of(f))->cqe, 16);
	cq.cqe = (uint32_t)eng_lim.max_cqe + 1;
	assert_int_equal(call(f, PV_OP_CQ_CREATE, &cq, sizeof(cq)), -EINVAL);
	/* A CQ handle is not a PD. */
	struct pv_ipc_handle h = { .handle = cqh };

	assert_int_equal(call(f, PV_OP_PD_DEALLOC, &h, sizeof(h)), -EINVAL);
	h.handle = pd;
	assert_int_equal(call(f, PV_OP_PD_DEALLOC, &h, sizeof(h)), -EBUSY);
	assert_int_equal(eng_stats[ENG_STAT_objects_live], 4);
}

/* Issue 8, findings 2 and 6: memory reached by pid (no memfd), a file
 * the engine cannot seal, and a memfd with holes (the engine's touch
 * would be charged to the engine) are all refused, and counted. */
static void test_eng_objects__mr_needs_populated_sealed_memfd(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_mr_reg mr = { .access = IBV_ACCESS_LOCAL_WRITE,
				    .addr = 0x10000, .length = 8192 };
	uint64_t no_memfd = eng_stats[ENG_STAT_dp_mr_refused_no_memfd];
	uint64_t holes = eng_stats[ENG_STAT_dp_mr_refused_unpopulated];
	char buf[5000];
	int fd;

	open_ctx(f);
	mr.pd_handle = create(f, PV_OP_PD_ALLOC, NULL, 0);
	assert_int_equal(mr_reg(f, &mr, -1), -EOPNOTSUPP);
	assert_int_equal(call(f, PV_OP_MR_REG, &mr, sizeof(mr)), -EOPNOTSUPP);
	assert_int_equal(eng_stats[ENG_STAT_dp_mr_refused_no_memfd],
			 no_memfd + 2);
	fd = memfd_of(8192, true, 0);			/* unsealable */
	assert_int_equal(mr_reg(f, &mr, fd), -EOPNOTSUPP);
	close(fd);
	assert_int_equal(eng_stats[ENG_STAT_dp_mr_refused_no_memfd],
			 no_memfd + 3);
	fd = memfd_of(8192, false, MFD_ALLOW_SEALING);	/* untouched */
	assert_int_equal(mr_reg(f, &mr, fd), -EFAULT);
	assert_int_equal(pwrite(fd, "x", 1, 0), 1);	/* one page of two */
	assert_int_equal(mr_reg(f, &mr, fd), -EFAULT);
	assert_int_equal(eng_stats[ENG_STAT_dp_mr_refused_unpopulated],
			 holes + 2);
	assert_int_equal(pwrite(fd, "y", 1, 4096), 1);
	assert_int_equal(mr_reg(f, &mr, fd), 0);
	close(fd);
	/* A size that is no page multiple ends in an implicit hole past
	 * the MR's last byte: not one of its pages. */
	fd = memfd_create("test-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), 5000);
	mr.length = 5000;
	assert_int_equal(mr_reg(f, &mr, fd), 0);
	close(fd);
}

/* MR_REREG with its optional backing and fd (fd < 0: neither). */
static int mr_rereg(struct fx *f, const struct pv_ipc_mr_rereg *rr, int fd,
		    bool backing)
{
	struct {
		struct pv_ipc_mr_rereg rr;
		struct pv_ipc_mr_backing backing;
	} req = { .rr = *rr, .backing = { .has_fd = fd >= 0 } };

	f->nfds = 0;
	assert_int_equal(pv_ipc_send(f->cli, PV_OP_MR_REREG, 79, 0, &req,
				     backing ? sizeof(req) : sizeof(req.rr),
				     &fd, fd >= 0 ? 1 : 0), 0);
	eng_conn_serve(&f->e, f->conn, 1);
	assert_true(pv_ipc_recv(f->cli, f->buf, sizeof(f->buf), f->fds,
				&f->nfds) >= 0);
	assert_int_equal(hdr_of(f)->seq, 79);
	return hdr_of(f)->status;
}

/* ibv_rereg_mr and memory windows as a hostile client drives them: every
 * bad field refused with the MR as it was, keys changed on success, a
 * new range checked as MR_REG checks it; windows of a known type only. */
static void test_eng_objects__rereg_and_mw_refuse_bad_input(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_mr_reg mr = { .access = IBV_ACCESS_LOCAL_WRITE,
				    .addr = 0x10000, .length = 8192 };
	struct pv_ipc_mr_rereg rr = { .flags = IBV_REREG_MR_CHANGE_ACCESS,
				      .access = IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_REMOTE_READ };
	struct pv_ipc_mw_alloc mw = { .type = IBV_MW_TYPE_2 };
	struct pv_ipc_mr_reg_resp old, now;
	struct pv_ipc_mw_resp w;
	int fd = memfd_of(8192, true, MFD_ALLOW_SEALING);

	open_ctx(f);
	mr.pd_handle = create(f, PV_OP_PD_ALLOC, NULL, 0);
	assert_int_equal(mr_reg(f, &mr, fd), 0);
	old = *(struct pv_ipc_mr_reg_resp *)payload_of(f);
	rr.mr_handle = old.handle;
	rr.flags = 0;
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	rr.flags = 1u << 3;
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	rr.flags = IBV_REREG_MR_CHANGE_PD;
	rr.pd_handle = 0xdead;
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	rr.flags = IBV_REREG_MR_CHANGE_ACCESS;
	rr.access = IBV_ACCESS_REMOTE_WRITE;	/* without LOCAL_WRITE */
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	rr.access = IBV_ACCESS_LOCAL_WRITE | (1u << 15);
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	rr.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	assert_int_equal(mr_rereg(f, &rr, fd, true), -EINVAL);	/* fd, no range */
	rr.flags = IBV_REREG_MR_CHANGE_TRANSLATION;
	rr.addr = 0x40000;
	rr.length = 8192;
	rr.iova = 0x40000;
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EOPNOTSUPP);
	rr.iova = UINT64_MAX - 100;			/* wraps */
	assert_int_equal(mr_rereg(f, &rr, fd, true), -EINVAL);
	rr.iova = 0x40000;
	rr.length = 16384;				/* past the memfd */
	assert_int_equal(mr_rereg(f, &rr, fd, true), -EINVAL);
	rr.mr_handle = 0xbeef;
	rr.flags = IBV_REREG_MR_CHANGE_ACCESS;
	assert_int_equal(mr_rereg(f, &rr, -1, false), -EINVAL);
	/* Still the MR it was; then a good rereg gives both keys anew. */
	rr.mr_handle = old.handle;
	assert_int_equal(mr_rereg(f, &rr, -1, false), 0);
	now = *(struct pv_ipc_mr_reg_resp *)payload_of(f);
	assert_int_equal(now.handle, old.handle);
	assert_int_not_equal(now.lkey, old.lkey);
	assert_int_not_equal(now.rkey, old.rkey);
	rr.flags = IBV_REREG_MR_CHANGE_TRANSLATION;
	rr.length = 4096;
	assert_int_equal(mr_rereg(f, &rr, fd, true), 0);
	close(fd);

	mw.pd_handle = 0xdead;
	assert_int_equal(call(f, PV_OP_MW_ALLOC, &mw, sizeof(mw)), -EINVAL);
	mw.pd_handle = mr.pd_handle;
	mw.type = 3;
	assert_int_equal(call(f, PV_OP_MW_ALLOC, &mw, sizeof(mw)), -EINVAL);
	mw.type = IBV_MW_TYPE_1;
	assert_int_equal(call(f, PV_OP_MW_ALLOC, &mw, sizeof(mw)), 0);
	w = *(struct pv_ipc_mw_resp *)payload_of(f);
	assert_int_not_equal(w.rkey, 0);
	assert_int_not_equal(w.rkey >> 8, now.rkey >> 8);
	assert_int_not_equal(w.rkey >> 8, now.lkey >> 8);
}

static uint32_t make_qp(struct fx *f, uint32_t *ret_pd, uint32_t *ret_cq,
			uint32_t *ret_qpn)
{
	struct pv_ipc_cq_create cq = { .cqe = 8 };
	struct pv_ipc_qp_create qc = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 5, .max_recv_wr = 5, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct pv_ipc_qp_create_resp *r;

	*ret_pd = qc.pd_handle = create(f, PV_OP_PD_ALLOC, NULL, 0);
	*ret_cq = qc.send_cq_handle = qc.recv_cq_handle =
		create(f, PV_OP_CQ_CREATE, &cq, sizeof(cq));
	assert_int_equal(call(f, PV_OP_QP_CREATE, &qc, sizeof(qc)), 0);
	r = payload_of(f);
	assert_true(r->qp_num >= 2);
	assert_true(r->cap.max_send_wr >= 5);
	*ret_qpn = r->qp_num;
	return r->handle;
}

static void test_eng_qp__create_modify_query_destroy(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_qp_modify m = { 0 };
	struct pv_ipc_qp_query_resp *q;
	struct pv_ipc_handle h;
	uint32_t pd, cq, qpn, qp;

	open_ctx(f);
	qp = make_qp(f, &pd, &cq, &qpn);
	m.qp_handle = qp;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS;
	m.attr.qp_state = 1;	/* INIT */
	m.attr.port_num = 1;
	assert_int_equal(call(f, PV_OP_QP_MODIFY, &m, sizeof(m)), 0);
	/* INIT -> RTS skips RTR: illegal. */
	m.attr_mask = IBV_QP_STATE;
	m.attr.qp_state = 3;
	assert_int_equal(call(f, PV_OP_QP_MODIFY, &m, sizeof(m)), -EINVAL);
	assert_int_equal(call(f, PV_OP_QP_QUERY, &m, sizeof(m)), 0);
	q = payload_of(f);
	assert_int_equal(q->attr.qp_state, 1);
	assert_int_equal(q->attr.port_num, 1);
	assert_int_equal(q->init.qp_type, IBV_QPT_RC);
	assert_ptr_equal(eng_idtab_get(&f->dev->qps, qpn) != NULL, 1);
	/* In use: CQ and PD can't go. */
	h.handle = cq;
	assert_int_equal(call(f, PV_OP_CQ_DESTROY, &h, sizeof(h)), -EBUSY);
	h.handle = qp;
	assert_int_equal(call(f, PV_OP_QP_DESTROY, &h, sizeof(h)), 0);
	assert_null(eng_idtab_get(&f->dev->qps, qpn));
	h.handle = cq;
	assert_int_equal(call(f, PV_OP_CQ_DESTROY, &h, sizeof(h)), 0);
	h.handle = pd;
	assert_int_equal(call(f, PV_OP_PD_DEALLOC, &h, sizeof(h)), 0);
	assert_int_equal(eng_stats[ENG_STAT_objects_live], 0);
}

static void test_eng_qp__foreign_handles_rejected(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_qp_create qc = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 1 } };
	uint32_t pd, cq, qpn;

	open_ctx(f);
	make_qp(f, &pd, &cq, &qpn);
	/* Another client with its own context can't use these handles. */
	connect_as(f, 1000, &pod_ns);
	open_ctx(f);
	qc.pd_handle = pd;
	qc.send_cq_handle = qc.recv_cq_handle = cq;
	assert_int_equal(call(f, PV_OP_QP_CREATE, &qc, sizeof(qc)), -EINVAL);
}

static void test_eng_objects__limit_hit_is_enomem(void **state)
{
	struct fx *f = *state;
	uint64_t old = eng_lim.max_pd, hits = eng_stats[ENG_STAT_limit_hits];

	eng_lim.max_pd = 2;
	open_ctx(f);
	create(f, PV_OP_PD_ALLOC, NULL, 0);
	create(f, PV_OP_PD_ALLOC, NULL, 0);
	assert_int_equal(call(f, PV_OP_PD_ALLOC, NULL, 0), -ENOMEM);
	assert_int_equal(eng_stats[ENG_STAT_limit_hits], hits + 1);
	eng_lim.max_pd = old;
}

static void test_eng_server__max_clients_enforced(void **state)
{
	struct fx *f = *state;
	struct eng_ident id = { .pid = 1, .uid = 0 };
	uint64_t old = eng_lim.max_clients;
	int sv[2];

	eng_lim.max_clients = f->e.nconns;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_null(eng_conn_add(&f->e, sv[0], &id));	/* sv[0] closed */
	assert_int_equal(recv(sv[1], &id, 1, 0), 0);	/* peer sees EOF */
	close(sv[1]);
	eng_lim.max_clients = old;
}

static void test_eng_objects__close_frees_everything(void **state)
{
	struct fx *f = *state;
	uint32_t pd, cq, qpn;
	char b;

	open_ctx(f);
	make_qp(f, &pd, &cq, &qpn);
	assert_int_equal(create(f, PV_OP_CHANNEL_CREATE, NULL, 0) != 0, 1);
	close(f->fds[0]);
	assert_int_equal(f->dev->clients, 1);
	close(f->cli);
	/* The engine notices the hangup on its next read. */
	assert_int_equal(eng_conn_serve(&f->e, f->conn, 1), -ECONNRESET);
	assert_int_equal(eng_stats[ENG_STAT_objects_live], 0);
	assert_int_equal(f->dev->clients, 0);
	assert_null(eng_idtab_get(&f->dev->qps, qpn));
	(void)b;
	connect_as(f, 1000, &pod_ns);	/* for teardown */
}

static void test_eng_events__port_gid_and_fatal_events(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_ref ref = { .dev_id = f->dev->id };
	struct pv_ipc_event ev;
	struct netns_link l;
	uint32_t pd;
	int evfd;

	assert_int_equal(call(f, PV_OP_CTX_OPEN, &ref, sizeof(ref)), 0);
	evfd = f->fds[0];
	pd = create(f, PV_OP_PD_ALLOC, NULL, 0);
	fake_link(&l, 1500, false);	/* link goes down */
	eng_dev_apply_link(&f->e, f->dev, &l);
	assert_int_equal(recv(evfd, &ev, sizeof(ev), 0), sizeof(ev));
	assert_int_equal(ev.event_type, IBV_EVENT_PORT_ERR);
	assert_int_equal(ev.obj_kind, PV_OBJ_PORT);
	assert_int_equal(ev.handle, 1);
	memcpy(l.addrs[0].addr, "\x0a\x00\x00\x02", 4);
	l.up = l.running = true;
	eng_dev_apply_link(&f->e, f->dev, &l);
	assert_int_equal(recv(evfd, &ev, sizeof(ev), 0), sizeof(ev));
	assert_int_equal(ev.event_type, IBV_EVENT_GID_CHANGE);
	assert_int_equal(recv(evfd, &ev, sizeof(ev), 0), sizeof(ev));
	assert_int_equal(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	eng_dev_apply_link(&f->e, f->dev, NULL);	/* interface gone */
	assert_int_equal(f->dev->port_state, PV_PORT_DOWN);
	assert_int_equal(f->dev->gid_count, 0);
	/* Deleting the device: DEVICE_FATAL, then creates fail, destroys
	 * still work. */
	eng_dev_remove(&f->e, f->dev);
	f->dev = NULL;
	while (recv(evfd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev) &&
	       ev.event_type != IBV_EVENT_DEVICE_FATAL)
		;
	assert_int_equal(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	assert_int_equal(call(f, PV_OP_PD_ALLOC, NULL, 0), -ENODEV);
	struct pv_ipc_handle h = { .handle = pd };

	assert_int_equal(call(f, PV_OP_PD_DEALLOC, &h, sizeof(h)), 0);
	close(evfd);
}

static void test_eng_admin__dev_del_by_name_ambiguous(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_adm_dev_del del = { 0 };
	struct eng_dev *d2;
	struct netns_link l;

	fake_link(&l, 1500, true);
	assert_int_equal(eng_dev_register(&f->e, -1, &other_ns, "", "rdma0",
					  0, &l, &d2), 0);
	close(f->cli);
	connect_admin(f, 0);
	strcpy(del.name, "rdma0");
	assert_int_equal(call(f, PV_OP_ADM_DEV_DEL, &del, sizeof(del)),
			 -ENOTUNIQ);
	del.dev_id = d2->id;
	assert_int_equal(call(f, PV_OP_ADM_DEV_DEL, &del, sizeof(del)), 0);
	assert_int_equal(call(f, PV_OP_ADM_DEV_DEL, &del, sizeof(del)),
			 -ENODEV);
	del.dev_id = 0;
	assert_int_equal(call(f, PV_OP_ADM_DEV_DEL, &del, sizeof(del)), 0);
	assert_int_equal(eng_stats[ENG_STAT_devices_live], 0);
}

static void test_eng_admin__obj_list_pages(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_dev_ref ref = { 0 };
	struct pv_ipc_adm_obj_list *l;
	struct eng_conn *user;

	open_ctx(f);
	for (int i = 0; i < 5; i++)
		create(f, PV_OP_PD_ALLOC, NULL, 0);
	user = f->conn;
	connect_admin(f, 0);
	assert_int_equal(call(f, PV_OP_ADM_OBJ_LIST, &ref, sizeof(ref)), 0);
	l = payload_of(f);
	assert_int_equal(l->count, 5);
	assert_int_equal(l->total, 5);
	assert_int_equal(l->obj[0].kind, PV_OBJ_PD);
	assert_int_equal(l->obj[0].client_id, user->id);
	ref.index = 3;
	assert_int_equal(call(f, PV_OP_ADM_OBJ_LIST, &ref, sizeof(ref)), 0);
	assert_int_equal(l->count, 2);
	ref.index = 0;
	ref.dev_id = 999;
	assert_int_equal(call(f, PV_OP_ADM_OBJ_LIST, &ref, sizeof(ref)), 0);
	assert_int_equal(l->count, 0);
}

/* A GID belongs to one device: a later device whose interface has the
 * same address leaves it out (dense table, counted once), and picks it up
 * when the owner lets it go (address dropped, device deleted). */
static void test_eng_device__gid_owned_by_one_device(void **state)
{
	struct fx *f = *state;
	uint64_t conflicts = eng_stats[ENG_STAT_gid_conflicts];
	struct pv_ipc_dev_info info;
	struct netns_link l;
	struct eng_dev *d2;

	fake_link(&l, 1500, true);
	l.naddrs = 2;
	l.addrs[1] = l.addrs[0];
	memcpy(l.addrs[1].addr, "\x0a\x00\x00\x02", 4);
	/* 10.0.0.1 (the first device's) first: 10.0.0.2 moves up to 0 */
	assert_int_equal(eng_dev_register(&f->e, -1, &other_ns, "", "rdma0",
					  0, &l, &d2), 0);
	assert_int_equal(d2->gid_count, 1);
	assert_memory_equal(d2->gid[0].gid + 12, "\x0a\x00\x00\x02", 4);
	assert_int_equal(d2->conflict_count, 1);
	assert_int_equal(eng_stats[ENG_STAT_gid_conflicts], conflicts + 1);
	eng_dev_info(d2, &info);
	assert_int_equal(info.gid_conflicts, 1);
	/* the owner is untouched; a re-read does not count it again */
	assert_int_equal(f->dev->gid_count, 1);
	eng_dev_apply_link(&f->e, d2, &l);
	assert_int_equal(eng_stats[ENG_STAT_gid_conflicts], conflicts + 1);

	/* the owner drops 10.0.0.1: d2 takes it, in its interface's order */
	memcpy(l.addrs[0].addr, "\x0a\x00\x00\x09", 4);
	l.naddrs = 1;
	eng_dev_apply_link(&f->e, f->dev, &l);
	assert_int_equal(d2->gid_count, 2);
	assert_memory_equal(d2->gid[0].gid + 12, "\x0a\x00\x00\x01", 4);
	assert_int_equal(d2->conflict_count, 0);

	/* it comes back to the first device: d2 keeps it now */
	memcpy(l.addrs[0].addr, "\x0a\x00\x00\x01", 4);
	eng_dev_apply_link(&f->e, f->dev, &l);
	assert_int_equal(f->dev->gid_count, 0);
	assert_int_equal(f->dev->conflict_count, 1);
	assert_int_equal(eng_stats[ENG_STAT_gid_conflicts], conflicts + 2);

	/* d2 deleted: the first device gets it back */
	eng_dev_remove(&f->e, d2);
	assert_int_equal(f->dev->gid_count, 1);
	assert_int_equal(f->dev->conflict_count, 0);
}

int main(void)
{
#define T(n) cmocka_unit_test_setup_teardown(n, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_eng_server__bad_magic_counted_and_conn_survives),
		T(test_eng_server__len_mismatch_gets_eproto),
		T(test_eng_server__wrong_size_for_op_gets_einval),
		T(test_eng_server__unknown_op_gets_eopnotsupp),
		T(test_eng_server__hello_wrong_abi_refused),
		T(test_eng_server__admin_denied_to_non_root),
		T(test_eng_server__admin_denied_to_root_elsewhere),
		T(test_eng_server__fd_refused_on_op_taking_none),
		T(test_eng_server__hello_fd_must_be_netns),
		T(test_eng_server__hello_netns_fd_decides_visibility),
		T(test_eng_server__max_clients_per_ns_enforced),
		T(test_eng_server__admin_denied_to_root_here_on_pod_socket),
		T(test_eng_server__admin_denied_to_non_root_on_admin_socket),
		T(test_eng_server__admin_allowed_to_root_here),
		T(test_eng_device__other_namespace_sees_nothing),
		T(test_eng_device__own_namespace_queries),
		T(test_eng_device__names_unique_per_namespace),
		T(test_eng_device__gid_owned_by_one_device),
		T(test_eng_objects__context_and_objects),
		T(test_eng_objects__mr_needs_populated_sealed_memfd),
		T(test_eng_objects__rereg_and_mw_refuse_bad_input),
		T(test_eng_qp__create_modify_query_destroy),
		T(test_eng_qp__foreign_handles_rejected),
		T(test_eng_objects__limit_hit_is_enomem),
		T(test_eng_server__max_clients_enforced),
		T(test_eng_objects__close_frees_everything),
		T(test_eng_events__port_gid_and_fatal_events),
		T(test_eng_admin__dev_del_by_name_ambiguous),
		T(test_eng_admin__obj_list_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
