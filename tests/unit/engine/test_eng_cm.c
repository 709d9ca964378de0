/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the engine's same-node CM service (eng_cm_*.c): two pods
 * (made-up namespaces and links, one device each), their connections over
 * socketpairs, the CM ops driven through the dispatcher and the events
 * read from the event sockets.  Bind rules, the REQ/REP/RTU/DREQ exchange
 * with its private data, rejects, backlog, teardown, and the ABI values
 * that mirror rdma/rdma_cma.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <rdma/rdma_cma.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-cm-abi.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_stats.h"

static const struct netns_id ns_a = { .dev = 4, .ino = 4026531001u };
static const struct netns_id ns_b = { .dev = 4, .ino = 4026531002u };

struct pod {
	struct eng_conn *conn;
	int cli, ev;
	uint32_t seq;
};

struct fx {
	struct eng e;
	struct pod a, b;
	char buf[PV_IPC_MAX_MSG];
};

static void fake_link(struct netns_link *l, const char *ip4)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = 2;
	strcpy(l->name, "eth0");
	l->mtu = 1500;
	l->up = l->running = true;
	memcpy(l->mac, "\x02\x11\x22\x33\x44\x55", 6);
	l->naddrs = 1;
	l->addrs[0].family = AF_INET;
	inet_pton(AF_INET, ip4, l->addrs[0].addr);
	l->addrs[0].prefixlen = 24;
}

static int call(struct fx *f, struct pod *p, uint16_t op, const void *req,
		uint32_t len, void *resp, uint32_t cap)
{
	struct pv_msg_hdr *h = (struct pv_msg_hdr *)f->buf;
	int fds[PV_IPC_MAX_FDS], nfds = 0, ret;

	assert_int_equal(pv_ipc_send(p->cli, op, ++p->seq, 0, req, len,
				     NULL, 0), 0);
	eng_conn_serve(&f->e, p->conn, 1);
	ret = pv_ipc_recv(p->cli, f->buf, sizeof(f->buf), fds, &nfds);
	assert_true(ret >= 0);
	if (op == PV_OP_CM_OPEN && h->status == 0) {
		assert_int_equal(nfds, 1);
		p->ev = fds[0];
		fcntl(p->ev, F_SETFL, O_NONBLOCK);
	} else {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
	}
	if (resp && h->status == 0)
		memcpy(resp, f->buf + sizeof(*h),
		       (uint32_t)ret < cap ? (uint32_t)ret : cap);
	return h->status;
}

static void pod_connect(struct fx *f, struct pod *p, const struct netns_id *ns)
{
	struct eng_ident id = { .pid = getpid(), .uid = 1000,
				.ns_known = true, .ns = *ns };
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	p->conn = eng_conn_add(&f->e, sv[0], &id);
	assert_non_null(p->conn);
	p->conn->unproven = false;
	p->cli = sv[1];
	p->ev = -1;
	assert_int_equal(call(f, p, PV_OP_CM_OPEN, NULL, 0, NULL, 0), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eng_dev *d;
	struct netns_link l;

	eng_log_level = ENG_LOG_ERR;
	assert_int_equal(eng_init(&f->e), 0);
	fake_link(&l, "10.0.0.1");
	assert_int_equal(eng_dev_register(&f->e, -1, &ns_a, "/fake/a",
					  "rdma0", 0, &l, &d), 0);
	fake_link(&l, "10.0.0.2");
	assert_int_equal(eng_dev_register(&f->e, -1, &ns_b, "/fake/b",
					  "rdma1", 0, &l, &d), 0);
	pod_connect(f, &f->a, &ns_a);
	pod_connect(f, &f->b, &ns_b);
	*state = f;
	return 0;
}

static void pod_close(struct pod *p)
{
	if (p->cli >= 0)
		close(p->cli);
	if (p->ev >= 0)
		close(p->ev);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pod_close(&f->a);
	pod_close(&f->b);
	eng_fini(&f->e);
	free(f);
	return 0;
}

static struct pv_cm_addr ip(const char *s, uint16_t port)
{
	struct pv_cm_addr a = { .family = AF_INET, .port_be = htons(port) };

	a.addr[10] = a.addr[11] = 0xff;
	inet_pton(AF_INET, s, &a.addr[12]);
	return a;
}

static int create_id(struct fx *f, struct pod *p, uint32_t ps,
		     uint32_t qpt, uint32_t *ret_id)
{
	struct pv_ipc_cm_id_create req = { .ps = ps, .qp_type = qpt };
	struct pv_ipc_cm_ref rep;
	int ret = call(f, p, PV_OP_CM_ID_CREATE, &req, sizeof(req), &rep,
		       sizeof(rep));

	*ret_id = rep.id;
	return ret;
}

static uint32_t new_id_of(struct fx *f, struct pod *p, uint32_t ps,
			  uint32_t qpt)
{
	uint32_t id;

	assert_int_equal(create_id(f, p, ps, qpt, &id), 0);
	return id;
}

static uint32_t new_id(struct fx *f, struct pod *p, uint32_t ps)
{
	return new_id_of(f, p, ps, ps == PV_CM_PS_UDP ? IBV_QPT_UD :
							IBV_QPT_RC);
}

static int bind_to(struct fx *f, struct pod *p, uint32_t id,
		   struct pv_cm_addr a, struct pv_ipc_cm_bound *out)
{
	struct pv_ipc_cm_addr req = { .id = id, .src = a };
	struct pv_ipc_cm_bound rep;

	return call(f, p, PV_OP_CM_BIND, &req, sizeof(req), out ? out : &rep,
		    sizeof(rep));
}

static int ref_op(struct fx *f, struct pod *p, uint16_t op, uint32_t id,
		  uint32_t arg, uint32_t arg2)
{
	struct pv_ipc_cm_ref req = { .id = id, .arg = arg, .arg2 = arg2 };

	return call(f, p, op, &req, sizeof(req), NULL, 0);
}

static int conn_op(struct fx *f, struct pod *p, uint16_t op, uint32_t id,
		   const char *pdata, uint8_t len)
{
	struct pv_ipc_cm_conn req = { .id = id };

	req.p.qp_num = 0x1234;
	req.p.psn = 0x77;
	req.p.responder_resources = 4;
	req.p.initiator_depth = 2;
	req.p.retry_count = 7;
	req.p.pdata_len = len;
	if (pdata)
		memcpy(req.pdata, pdata, len);
	return call(f, p, op, &req, sizeof(req), NULL, 0);
}

static bool next_event(struct pod *p, struct pv_cm_event *ev)
{
	return recv(p->ev, ev, sizeof(*ev), 0) == (ssize_t)sizeof(*ev);
}

static void expect_event(struct pod *p, uint32_t type, int32_t status,
			 struct pv_cm_event *ev)
{
	struct pv_cm_event tmp;

	ev = ev ? ev : &tmp;
	assert_true(next_event(p, ev));
	assert_int_equal(ev->event, type);
	assert_int_equal(ev->status, status);
}

/* An active id of pod a resolved towards b's 10.0.0.2:port. */
static uint32_t active_of(struct fx *f, uint16_t port, uint32_t ps,
			  uint32_t qpt)
{
	uint32_t id = new_id_of(f, &f->a, ps, qpt);
	struct pv_ipc_cm_addr req = { .id = id, .src = ip("10.0.0.1", 0),
				      .dst = ip("10.0.0.2", port) };
	struct pv_ipc_cm_bound rep;
	struct pv_cm_event ev;

	assert_int_equal(call(f, &f->a, PV_OP_CM_RESOLVE_ADDR, &req,
			      sizeof(req), &rep, sizeof(rep)), 0);
	assert_string_equal(rep.dev_name, "rdma0");
	assert_true(ntohs(rep.src.port_be) >= 32768);
	expect_event(&f->a, PV_CM_EV_ADDR_RESOLVED, 0, NULL);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_RESOLVE_ROUTE, id, 0, 0), 0);
	expect_event(&f->a, PV_CM_EV_ROUTE_RESOLVED, 0, &ev);
	assert_int_equal(ev.path_mtu, IBV_MTU_1024);
	return id;
}

static uint32_t active_to(struct fx *f, uint16_t port)
{
	return active_of(f, port, PV_CM_PS_TCP, IBV_QPT_RC);
}

static uint32_t listener_of(struct fx *f, uint16_t port, uint32_t backlog,
			    uint32_t ps, uint32_t qpt)
{
	uint32_t id = new_id_of(f, &f->b, ps, qpt);

	assert_int_equal(bind_to(f, &f->b, id, ip("10.0.0.2", port), NULL), 0);
	assert_int_equal(ref_op(f, &f->b, PV_OP_CM_LISTEN, id, backlog, 0), 0);
	return id;
}

static uint32_t listener(struct fx *f, uint16_t port, uint32_t backlog)
{
	return listener_of(f, port, backlog, PV_CM_PS_TCP, IBV_QPT_RC);
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(PV_CM_EV_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_int_equal(PV_CM_EV_ADDR_ERROR, RDMA_CM_EVENT_ADDR_ERROR);
	assert_int_equal(PV_CM_EV_ROUTE_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED);
	assert_int_equal(PV_CM_EV_ROUTE_ERROR, RDMA_CM_EVENT_ROUTE_ERROR);
	assert_int_equal(PV_CM_EV_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_int_equal(PV_CM_EV_CONNECT_RESPONSE,
			 RDMA_CM_EVENT_CONNECT_RESPONSE);
	assert_int_equal(PV_CM_EV_CONNECT_ERROR, RDMA_CM_EVENT_CONNECT_ERROR);
	assert_int_equal(PV_CM_EV_UNREACHABLE, RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(PV_CM_EV_REJECTED, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(PV_CM_EV_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(PV_CM_EV_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(PV_CM_EV_DEVICE_REMOVAL, RDMA_CM_EVENT_DEVICE_REMOVAL);
	assert_int_equal(PV_CM_EV_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(PV_CM_PS_TCP, RDMA_PS_TCP);
	assert_int_equal(PV_CM_PS_UDP, RDMA_PS_UDP);
}

static void test_bind_rules(void **state)
{
	struct fx *f = *state;
	uint32_t i1 = new_id(f, &f->a, PV_CM_PS_TCP);
	uint32_t i2 = new_id(f, &f->a, PV_CM_PS_TCP);
	uint32_t i3 = new_id(f, &f->a, PV_CM_PS_UDP);
	uint32_t ib = new_id(f, &f->b, PV_CM_PS_TCP);
	uint32_t r1, r2;
	struct pv_ipc_cm_bound out;

	/* Another pod's address is not ours to bind. */
	assert_int_equal(bind_to(f, &f->a, i1, ip("10.0.0.2", 5000), NULL),
			 -EADDRNOTAVAIL);
	assert_int_equal(bind_to(f, &f->a, i1, ip("10.0.0.1", 5000), &out), 0);
	assert_string_equal(out.dev_name, "rdma0");
	/* The wildcard overlaps it; the other port space does not. */
	assert_int_equal(bind_to(f, &f->a, i2, ip("0.0.0.0", 5000), NULL),
			 -EADDRINUSE);
	assert_int_equal(bind_to(f, &f->a, i3, ip("10.0.0.1", 5000), NULL), 0);
	/* Ports are per pod: b may use 5000 too. */
	assert_int_equal(bind_to(f, &f->b, ib, ip("0.0.0.0", 5000), NULL), 0);
	/* Rebinding a bound id is refused. */
	assert_int_equal(bind_to(f, &f->a, i1, ip("10.0.0.1", 5001), NULL),
			 -EINVAL);
	/* Reuseaddr on both, neither listening: shared. */
	r1 = new_id(f, &f->a, PV_CM_PS_TCP);
	r2 = new_id(f, &f->a, PV_CM_PS_TCP);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_OPTION, r1,
				PV_CM_OPT_REUSEADDR, 1), 0);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_OPTION, r2,
				PV_CM_OPT_REUSEADDR, 1), 0);
	assert_int_equal(bind_to(f, &f->a, r1, ip("10.0.0.1", 6000), NULL), 0);
	assert_int_equal(bind_to(f, &f->a, r2, ip("10.0.0.1", 6000), NULL), 0);
	/* Port 0: an ephemeral one. */
	i2 = new_id(f, &f->a, PV_CM_PS_TCP);
	assert_int_equal(bind_to(f, &f->a, i2, ip("10.0.0.1", 0), &out), 0);
	assert_true(ntohs(out.src.port_be) >= 32768 &&
		    ntohs(out.src.port_be) <= 60999);
}

static void test_connect_accept_disconnect(void **state)
{
	struct fx *f = *state;
	uint32_t l = listener(f, 7000, 4), a = active_to(f, 7000), p;
	struct pv_cm_event ev;
	uint8_t zeros[PV_CM_PDATA_MAX] = { 0 };

	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, "hi", 2), 0);
	expect_event(&f->b, PV_CM_EV_CONNECT_REQUEST, 0, &ev);
	assert_int_equal(ev.listen_id, l);
	assert_int_equal(ev.p.pdata_len, PV_CM_REQ_PDATA);
	assert_memory_equal(ev.pdata, "hi", 2);
	assert_memory_equal(ev.pdata + 2, zeros, PV_CM_REQ_PDATA - 2);
	assert_int_equal(ev.p.qp_num, 0x1234);
	assert_int_equal(ev.p.psn, 0x77);
	assert_string_equal(ev.dev_name, "rdma1");
	assert_memory_equal(ev.dgid + 12, "\x0a\x00\x00\x01", 4);
	p = ev.id;
	assert_int_equal(conn_op(f, &f->b, PV_OP_CM_ACCEPT, p, "ok", 2), 0);
	expect_event(&f->a, PV_CM_EV_CONNECT_RESPONSE, 0, &ev);
	assert_int_equal(ev.p.pdata_len, PV_CM_REP_PDATA);
	assert_memory_equal(ev.pdata, "ok", 2);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_ESTABLISH, a, 0, 0), 0);
	expect_event(&f->b, PV_CM_EV_ESTABLISHED, 0, NULL);
	assert_int_equal(ref_op(f, &f->b, PV_OP_CM_DISCONNECT, p, 0, 0), 0);
	expect_event(&f->b, PV_CM_EV_DISCONNECTED, 0, NULL);
	expect_event(&f->a, PV_CM_EV_DISCONNECTED, 0, NULL);
	/* Once is enough. */
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_DISCONNECT, a, 0, 0),
			 -EINVAL);
}

static void test_rejects(void **state)
{
	struct fx *f = *state;
	uint32_t a = active_to(f, 7100), p;
	struct pv_cm_event ev;

	/* Nobody listens: the IB CM's invalid service ID, as the kernel. */
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_REJECTED, PV_CM_REJ_INVALID_SERVICE_ID,
		     NULL);
	listener(f, 7101, 1);
	a = active_to(f, 7101);
	/* Over the REQ's 56 bytes. */
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 57),
			 -EINVAL);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 56), 0);
	expect_event(&f->b, PV_CM_EV_CONNECT_REQUEST, 0, &ev);
	p = ev.id;
	/* The backlog (1) is full: the next one is refused. */
	uint64_t full = eng_stats[ENG_STAT_cm_backlog_full];
	uint32_t a2 = active_to(f, 7101);

	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a2, NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_REJECTED, PV_CM_REJ_CONSUMER_DEFINED, NULL);
	assert_int_equal(eng_stats[ENG_STAT_cm_backlog_full], full + 1);
	/* A consumer reject carries its private data (148 bytes). */
	assert_int_equal(conn_op(f, &f->b, PV_OP_CM_REJECT, p, NULL, 149),
			 -EINVAL);
	assert_int_equal(conn_op(f, &f->b, PV_OP_CM_REJECT, p, "no", 2), 0);
	expect_event(&f->a, PV_CM_EV_REJECTED, PV_CM_REJ_CONSUMER_DEFINED, &ev);
	assert_int_equal(ev.p.pdata_len, PV_CM_REJ_PDATA);
	assert_memory_equal(ev.pdata, "no", 2);
}

/* RDMA_PS_IB ids (rdma_xserver/rdma_xclient -c x): the QP type is the
 * library's, among RC and the two ends of XRC; an XRC initiator meets
 * only an XRC target listener (else REJ "invalid transport", counted),
 * and a target never connects. */
static void test_xrc_ids(void **state)
{
	struct fx *f = *state;
	uint64_t mism = eng_stats[ENG_STAT_cm_transport_mismatch];
	struct pv_cm_event ev;
	uint32_t id, a;

	assert_int_equal(PV_CM_PS_IB, RDMA_PS_IB);
	assert_int_equal(create_id(f, &f->a, PV_CM_PS_IB, IBV_QPT_UD, &id),
			 -EPROTONOSUPPORT);
	assert_int_equal(create_id(f, &f->a, PV_CM_PS_TCP, IBV_QPT_XRC_SEND,
				   &id), -EPROTONOSUPPORT);
	assert_int_equal(create_id(f, &f->a, PV_CM_PS_UDP, IBV_QPT_RC, &id),
			 -EPROTONOSUPPORT);
	assert_int_equal(create_id(f, &f->a, RDMA_PS_IPOIB, IBV_QPT_UD, &id),
			 -EPROTONOSUPPORT);
	listener_of(f, 7200, 4, PV_CM_PS_IB, IBV_QPT_XRC_RECV);
	/* RC to an XRC target. */
	a = active_of(f, 7200, PV_CM_PS_IB, IBV_QPT_RC);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_REJECTED, PV_CM_REJ_INVALID_TRANSPORT,
		     NULL);
	assert_int_equal(eng_stats[ENG_STAT_cm_transport_mismatch], mism + 1);
	/* The same port of TCP's space is another service. */
	a = active_of(f, 7200, PV_CM_PS_TCP, IBV_QPT_RC);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_REJECTED, PV_CM_REJ_INVALID_SERVICE_ID,
		     NULL);
	/* An XRC target does not connect. */
	a = active_of(f, 7200, PV_CM_PS_IB, IBV_QPT_XRC_RECV);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0),
			 -EINVAL);
	/* An initiator does, with its QPN in the request. */
	a = active_of(f, 7200, PV_CM_PS_IB, IBV_QPT_XRC_SEND);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->b, PV_CM_EV_CONNECT_REQUEST, 0, &ev);
	assert_int_equal(ev.p.qp_num, 0x1234);
	assert_int_equal(eng_stats[ENG_STAT_cm_transport_mismatch], mism + 1);
}

static void test_ids_are_per_connection(void **state)
{
	struct fx *f = *state;
	uint32_t id = new_id(f, &f->a, PV_CM_PS_TCP);
	uint64_t bad = eng_stats[ENG_STAT_cm_bad_requests];

	assert_int_equal(ref_op(f, &f->b, PV_OP_CM_LISTEN, id, 1, 0), -EINVAL);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_ID_DESTROY, id + 1, 0, 0),
			 -EINVAL);
	assert_true(eng_stats[ENG_STAT_cm_bad_requests] >= bad + 2);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_ID_DESTROY, id, 0, 0), 0);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_ID_DESTROY, id, 0, 0),
			 -EINVAL);
}

/* A connection that goes mid-handshake, or connected, tells the peer
 * and leaves no id behind. */
static void test_close_tells_peer(void **state)
{
	struct fx *f = *state;
	uint64_t live = eng_stats[ENG_STAT_cm_ids_live];
	uint32_t a;
	struct pv_cm_event ev;

	listener(f, 7200, 8);
	a = active_to(f, 7200);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->b, PV_CM_EV_CONNECT_REQUEST, 0, &ev);
	a = active_to(f, 7200);
	assert_int_equal(conn_op(f, &f->a, PV_OP_CM_CONNECT, a, NULL, 0), 0);
	expect_event(&f->b, PV_CM_EV_CONNECT_REQUEST, 0, &ev);
	assert_int_equal(conn_op(f, &f->b, PV_OP_CM_ACCEPT, ev.id, NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_CONNECT_RESPONSE, 0, NULL);
	assert_int_equal(ref_op(f, &f->a, PV_OP_CM_ESTABLISH, a, 0, 0), 0);
	expect_event(&f->b, PV_CM_EV_ESTABLISHED, 0, NULL);
	eng_conn_close(&f->e, f->a.conn);
	pod_close(&f->a);
	f->a.cli = f->a.ev = -1;
	expect_event(&f->b, PV_CM_EV_REJECTED, PV_CM_REJ_TIMEOUT, NULL);
	expect_event(&f->b, PV_CM_EV_DISCONNECTED, 0, NULL);
	/* b's listener and its two ids remain; a's four are gone. */
	assert_int_equal(eng_stats[ENG_STAT_cm_ids_live], live + 3);
	eng_conn_close(&f->e, f->b.conn);
	pod_close(&f->b);
	f->b.cli = f->b.ev = -1;
	assert_int_equal(eng_stats[ENG_STAT_cm_ids_live], live);
}

/* Ids are bounded per connection and per pod (all its connections). */
static void test_id_limits(void **state)
{
	struct fx *f = *state;
	struct pv_ipc_cm_id_create req = { .ps = PV_CM_PS_TCP, .qp_type = 2 };
	struct pv_ipc_cm_ref rep;
	enum { CONNS = ENG_CM_IDS_PER_POD / ENG_CM_IDS_PER_CONN };
	struct pod extra[CONNS];
	uint64_t hits = eng_stats[ENG_STAT_limit_hits];

	for (int i = 0; i < ENG_CM_IDS_PER_CONN; i++)
		assert_int_equal(call(f, &f->a, PV_OP_CM_ID_CREATE, &req,
				      sizeof(req), &rep, sizeof(rep)), 0);
	assert_int_equal(call(f, &f->a, PV_OP_CM_ID_CREATE, &req, sizeof(req),
			      &rep, sizeof(rep)), -ENOSPC);
	/* The pod's other connections: together no more than its share. */
	for (int c = 0; c < CONNS; c++) {
		pod_connect(f, &extra[c], &ns_a);
		for (int i = 0; i < ENG_CM_IDS_PER_CONN; i++) {
			int ret = call(f, &extra[c], PV_OP_CM_ID_CREATE, &req,
				       sizeof(req), &rep, sizeof(rep));

			if (c < CONNS - 1)
				assert_int_equal(ret, 0);
			else
				assert_int_equal(ret, -ENOSPC);
		}
	}
	/* Another pod still gets ids. */
	assert_int_equal(call(f, &f->b, PV_OP_CM_ID_CREATE, &req, sizeof(req),
			      &rep, sizeof(rep)), 0);
	assert_true(eng_stats[ENG_STAT_limit_hits] > hits + 1);
	for (int c = 0; c < CONNS; c++)
		pod_close(&extra[c]);
}

/* More events than the socket holds wait in the engine, in order, and
 * leave as the client reads (EPOLLOUT); none is dropped. */
static void test_event_queue(void **state)
{
	struct fx *f = *state;
	uint64_t dropped = eng_stats[ENG_STAT_cm_events_dropped];
	enum { N = 600 };
	uint32_t ids[N], got = 0;
	struct pv_cm_event ev;

	for (int i = 0; i < N; i++) {
		struct pv_ipc_cm_addr req = { .src = ip("10.0.0.1", 0),
					      .dst = ip("10.0.0.2", 9) };
		struct pv_ipc_cm_bound rep;

		ids[i] = req.id = new_id(f, &f->a, PV_CM_PS_TCP);
		assert_int_equal(call(f, &f->a, PV_OP_CM_RESOLVE_ADDR, &req,
				      sizeof(req), &rep, sizeof(rep)), 0);
	}
	assert_true(f->a.conn->cm->evq_len > 0);	/* the socket filled */
	while (got < N) {
		uint32_t before = got;

		while (got < N && next_event(&f->a, &ev)) {
			assert_int_equal(ev.event, PV_CM_EV_ADDR_RESOLVED);
			assert_int_equal(ev.id, ids[got]);
			got++;
		}
		eng_cm_ev_ready(&f->e, &f->a.conn->cm->evp, EPOLLOUT);
		assert_true(got > before || f->a.conn->cm->evq_len);
		if (got == before && !f->a.conn->cm->evq_len)
			break;
	}
	assert_int_equal(got, N);
	assert_int_equal(f->a.conn->cm->evq_len, 0);
	assert_int_equal(eng_stats[ENG_STAT_cm_events_dropped], dropped);
}

/* Multicast: a UDP id resolved towards a group joins it; the event gives
 * the group's RoCEv2 GID (the IPv4-mapped group address), QPN 0xFFFFFF
 * and RDMA_UDP_QKEY.  Refused: a unicast group, a TCP id, an id with no
 * device yet. */
static void test_join_multicast(void **state)
{
	struct fx *f = *state;
	uint32_t id = new_id(f, &f->a, PV_CM_PS_UDP);
	uint32_t tcp = new_id(f, &f->a, PV_CM_PS_TCP);
	uint32_t idle = new_id(f, &f->a, PV_CM_PS_UDP);
	struct pv_ipc_cm_addr req = { .id = id, .src = ip("10.0.0.1", 0),
				      .dst = ip("239.1.2.3", 0) };
	struct pv_ipc_cm_bound rep;
	struct pv_cm_event ev;

	/* The group resolves on the source's own device. */
	assert_int_equal(call(f, &f->a, PV_OP_CM_RESOLVE_ADDR, &req,
			      sizeof(req), &rep, sizeof(rep)), 0);
	expect_event(&f->a, PV_CM_EV_ADDR_RESOLVED, 0, NULL);
	assert_int_equal(call(f, &f->a, PV_OP_CM_JOIN, &req, sizeof(req),
			      NULL, 0), 0);
	expect_event(&f->a, PV_CM_EV_MULTICAST_JOIN, 0, &ev);
	assert_int_equal(ev.id, id);
	assert_memory_equal(ev.dgid, req.dst.addr, 16);
	assert_memory_equal(ev.dgid, "\0\0\0\0\0\0\0\0\0\0\xff\xff"
			    "\xef\x01\x02\x03", 16);
	assert_int_equal(ev.p.qp_num, 0xffffff);
	assert_int_equal(ev.p.qkey, RDMA_UDP_QKEY);
	assert_int_equal(PV_CM_EV_MULTICAST_JOIN, RDMA_CM_EVENT_MULTICAST_JOIN);
	req.dst = ip("10.0.0.2", 0);
	assert_int_equal(call(f, &f->a, PV_OP_CM_JOIN, &req, sizeof(req),
			      NULL, 0), -EINVAL);
	req.dst = ip("239.1.2.3", 0);
	req.id = tcp;
	assert_int_equal(call(f, &f->a, PV_OP_CM_JOIN, &req, sizeof(req),
			      NULL, 0), -EINVAL);
	req.id = idle;
	assert_int_equal(call(f, &f->a, PV_OP_CM_JOIN, &req, sizeof(req),
			      NULL, 0), -ENODEV);
	/* Another connection's id is not found on this one. */
	req.id = id;
	assert_int_equal(call(f, &f->b, PV_OP_CM_JOIN, &req, sizeof(req),
			      NULL, 0), -EINVAL);
	assert_false(next_event(&f->a, &ev));
}

/* Group GIDs: IPv6 multicast, and RoCEv2's IPv4-mapped 224.0.0.0/4. */
static void test_mcast_gid(void **state)
{
	uint8_t g[16] = { 0xff, 0x0e };
	uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 224 };

	(void)state;
	assert_true(eng_mcast_gid_is_group(g));
	assert_true(eng_mcast_gid_is_group(v4));
	v4[12] = 239;
	assert_true(eng_mcast_gid_is_group(v4));
	v4[12] = 240;
	assert_false(eng_mcast_gid_is_group(v4));
	v4[12] = 10;
	assert_false(eng_mcast_gid_is_group(v4));
	v4[12] = 224;
	v4[9] = 1;			/* not IPv4-mapped */
	assert_false(eng_mcast_gid_is_group(v4));
	g[0] = 0xfe;			/* link-local unicast */
	assert_false(eng_mcast_gid_is_group(g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_mcast_gid),
		cmocka_unit_test_setup_teardown(test_join_multicast, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_accept_disconnect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xrc_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids_are_per_connection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_tells_peer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_event_queue, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_id_limits, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
