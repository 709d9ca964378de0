/* SPDX-License-Identifier: MIT */
/*
 * net: a soft device's UDP 4791 sockets, made inside its pod's network
 * namespace and bound to its GID addresses (eng_net.h).
 *
 * The socket is made by netns_socket(), which switches a short-lived
 * thread into the namespace: a socket stays in the namespace it was made
 * in, so everything after socket() (options, bind, I/O) runs on the loop
 * thread in the engine's own namespace.  Switching the loop thread itself
 * with setns() and back would save the thread (0.2-0.7 ms per socket,
 * on a loaded 2-core machine: tests/integration/net_sock.sh prints
 * it from the log), but a failed switch
 * back would leave the engine in a hostile pod's namespace; device adds
 * and address changes are rare, so the thread's cost is paid.
 */
#include <errno.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "netns/netns.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

static bool gid_is_v4(const uint8_t *g)
{
	return memcmp(g, v4_prefix, 12) == 0;
}

static bool gid_is_link_local(const uint8_t *g)
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

struct eng_net_buf *eng_net_buf_get(struct eng *e)
{
	struct eng_net_buf *b = e->net_buf;

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->rx_n = (uint32_t)eng_lim.net_rx_batch;
	b->tx_n = (uint32_t)eng_lim.net_tx_batch;
	b->rx_mm = calloc(b->rx_n, sizeof(*b->rx_mm));
	b->rx_iov = calloc(b->rx_n, sizeof(*b->rx_iov));
	b->rx_name = calloc(b->rx_n, sizeof(*b->rx_name));
	b->rx_ctl = calloc(b->rx_n, sizeof(*b->rx_ctl));
	b->rx_data = malloc((size_t)b->rx_n * ENG_NET_RX_SLOT);
	b->tx_mm = calloc(b->tx_n, sizeof(*b->tx_mm));
	b->tx_ctl = calloc(b->tx_n, sizeof(*b->tx_ctl));
	b->tx_npk = calloc(b->tx_n, sizeof(*b->tx_npk));
	b->tx_iov = calloc(ENG_NET_TX_IOV, sizeof(*b->tx_iov));
	if (!b->rx_mm || !b->rx_iov || !b->rx_name || !b->rx_ctl ||
	    !b->rx_data || !b->tx_mm || !b->tx_ctl || !b->tx_npk ||
	    !b->tx_iov) {
		e->net_buf = b;
		eng_net_fini(e);
		return NULL;
	}
	e->net_buf = b;
	return b;
}

void eng_net_fini(struct eng *e)
{
	struct eng_net_buf *b = e->net_buf;

	if (!b)
		return;
	free(b->rx_mm);
	free(b->rx_iov);
	free(b->rx_name);
	free(b->rx_ctl);
	free(b->rx_data);
	free(b->tx_mm);
	free(b->tx_ctl);
	free(b->tx_npk);
	free(b->tx_iov);
	free(b);
	e->net_buf = NULL;
}

/* The address a family's socket binds: IPv4, the first IPv4 GID (the
 * primary address, GID 0); IPv6, the first global IPv6 GID, else the
 * first link-local one.  Only GIDs the device owns (d->gid). */
static bool want_addr(const struct eng_dev *d, int family, uint8_t *out)
{
	const uint8_t *ll = NULL;

	for (uint32_t i = 0; i < d->gid_count; i++) {
		const uint8_t *g = d->gid[i].gid;

		if (family == AF_INET && gid_is_v4(g)) {
			memcpy(out, g, 16);
			return true;
		}
		if (family != AF_INET6 || gid_is_v4(g))
			continue;
		if (!gid_is_link_local(g)) {
			memcpy(out, g, 16);
			return true;
		}
		if (!ll)
			ll = g;
	}
	if (ll)
		memcpy(out, ll, 16);
	return ll != NULL;
}

static void sock_close(struct eng *e, struct eng_net_sock *s)
{
	if (s->poll.fd < 0)
		return;
	eng_net_txq_drop(e, s);
	eng_poll_del(e, &s->poll);
	close(s->poll.fd);
	s->poll.fd = -1;
	s->want_out = false;
	eng_stat_dec(net_sockets_live);
}

/* Receive's options, and for send: DF (rxe sets it: RoCE is never
 * fragmented); datagrams to a group leave on the pod's interface and do
 * not loop back to this namespace's sockets (the engine delivered to its
 * own members already, eng_mcast.c). */
static int sock_options(struct eng_net_sock *s, int fd)
{
	int ret;

	if (s->family == AF_INET) {
		struct ip_mreqn mif = { .imr_ifindex = (int)s->ifindex };

		ret = eng_net_set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IP, IP_MULTICAST_LOOP, 0);
		if (ret == 0 && s->ifindex &&
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mif,
			       sizeof(mif)) < 0)
			ret = -errno;
	} else {
		ret = eng_net_set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
				     IPV6_PMTUDISC_DO);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0);
		if (ret == 0 && s->ifindex)
			ret = eng_net_set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF,
				      (int)s->ifindex);
	}
	ret = ret ?: eng_net_sock_rx_options(s, fd);
	if (ret < 0)
		return ret;
	/* Capped by the host's wmem_max. */
	(void)eng_net_set_int(fd, SOL_SOCKET, SO_SNDBUF, 4 << 20);
	return 0;
}

/* No SO_REUSEADDR, no SO_REUSEPORT: the kernel then refuses any other
 * socket the same port on this address (or the wildcard), so a pod's
 * socket can never share the engine's port and its traffic. */
static int sock_bind(struct eng_net_sock *s, int fd, const uint8_t *gid)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(ENG_NET_ROCE_PORT) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(ENG_NET_ROCE_PORT) };
	int ret;

	if (s->family == AF_INET) {
		memcpy(&a4.sin_addr, gid + 12, 4);
		ret = bind(fd, (struct sockaddr *)&a4, sizeof(a4));
	} else {
		memcpy(&a6.sin6_addr, gid, 16);
		if (gid_is_link_local(gid))
			a6.sin6_scope_id = s->ifindex;
		ret = bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	}
	return ret < 0 ? -errno : 0;
}

/* Logged once per (address, error), counted every time. */
static void note_fail(struct eng_dev *d, struct eng_net_sock *s,
		      const uint8_t *gid, int err, const char *what)
{
	struct netns_gid g;
	char txt[40];

	eng_stat_inc(net_bind_errors);
	if (s->fail_err == err && memcmp(s->fail_addr, gid, 16) == 0)
		return;
	s->fail_err = err;
	memcpy(s->fail_addr, gid, 16);
	memcpy(g.raw, gid, 16);
	netns_gid_format(&g, txt);
	eng_warn("device %s (%u): no UDP %d socket on %s (%s: %s); it "
		 "serves same-node traffic only", d->name, d->id,
		 ENG_NET_ROCE_PORT, txt, what, strerror(-err));
}

static void sock_open(struct eng *e, struct eng_dev *d,
		      struct eng_net_sock *s, const uint8_t *gid)
{
	const char *what = "socket";
	struct timespec t0, t1;
	int fd, ret;

	if (!eng_net_buf_get(e)) {
		note_fail(d, s, gid, -ENOMEM, "buffers");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = netns_socket(d->ns_fd, s->family, SOCK_DGRAM | SOCK_NONBLOCK,
			  IPPROTO_UDP);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (fd < 0) {
		note_fail(d, s, gid, fd, what);
		return;
	}
	ret = sock_options(s, fd);
	if (ret == 0) {
		what = "bind";
		ret = sock_bind(s, fd, gid);
	}
	s->poll.fd = fd;
	s->poll.ready = eng_net_sock_ready;
	if (ret == 0) {
		what = "epoll";
		ret = eng_poll_add(e, &s->poll);
	}
	if (ret < 0) {
		close(fd);
		s->poll.fd = -1;
		note_fail(d, s, gid, ret, what);
		return;
	}
	memcpy(s->addr, gid, 16);
	s->fail_err = 0;
	s->rxq_ovfl = 0;
	s->gso_off = false;
	eng_stat_inc(net_sockets_opened);
	eng_stat_inc(net_sockets_live);
	eng_info("device %s (%u): UDP %d bound on %s%s (socket made in "
		 "its namespace in %ld us)", d->name, d->id, ENG_NET_ROCE_PORT,
		 s->family == AF_INET ? "IPv4" : "IPv6", s->gro ? ", GRO" : "",
		 (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000));
}

static void sock_sync(struct eng *e, struct eng_dev *d,
		      struct eng_net_sock *s, bool present)
{
	uint8_t gid[16];
	bool want = present && want_addr(d, s->family, gid);

	if (s->poll.fd >= 0 && want && memcmp(s->addr, gid, 16) == 0)
		return;
	sock_close(e, s);
	if (want)
		sock_open(e, d, s, gid);
	else
		s->fail_err = 0;
}

static void sock_init(struct eng_net_sock *s, struct eng_dev *d, int family)
{
	s->poll.fd = -1;
	s->dev = d;
	s->family = family;
}

void eng_net_dev_sync(struct eng *e, struct eng_dev *d,
		      const struct netns_link *link)
{
	struct eng_net_dev *n = d->net;

	if (d->ns_fd < 0)
		return;			/* a unit test's device */
	if (!n) {
		if (!link)
			return;
		n = calloc(1, sizeof(*n));
		if (!n) {
			eng_stat_inc(net_bind_errors);
			return;
		}
		sock_init(&n->s4, d, AF_INET);
		sock_init(&n->s6, d, AF_INET6);
		d->net = n;
	}
	if (link) {
		n->s4.ifindex = (uint32_t)link->ifindex;
		n->s6.ifindex = (uint32_t)link->ifindex;
	}
	sock_sync(e, d, &n->s4, link != NULL);
	sock_sync(e, d, &n->s6, link != NULL);
}

void eng_net_dev_fini(struct eng *e, struct eng_dev *d)
{
	struct eng_net_dev *n = d->net;

	if (!n)
		return;
	eng_net_mcast_fini(e, n);
	sock_close(e, &n->s4);
	sock_close(e, &n->s6);
	eng_net_txq_free(&n->s4);
	eng_net_txq_free(&n->s6);
	d->net = NULL;
	/* A later event of this epoll batch may still name a socket. */
	eng_defer_free(e, n);
}

uint8_t eng_net_wire_state(const struct eng_dev *d)
{
	const struct eng_net_dev *n = d->net;
	uint8_t st = 0;

	if (!n)
		return 0;
	if (n->s4.poll.fd >= 0)
		st |= PV_WIRE_V4_BOUND;
	else if (n->s4.fail_err)
		st |= PV_WIRE_V4_FAILED;
	if (n->s6.poll.fd >= 0)
		st |= PV_WIRE_V6_BOUND;
	else if (n->s6.fail_err)
		st |= PV_WIRE_V6_FAILED;
	return st;
}

uint32_t eng_net_path_mtu(const struct eng_dev *d)
{
	uint32_t m = eng_port_ib_mtu(d->netdev_mtu);

	return eng_port_mtu_bytes(m ? m : 1);
}

uint64_t eng_net_rcvbuf(const struct eng_dev *d)
{
	const struct eng_net_dev *n = d->net;
	uint64_t r = 0;

	if (!n)
		return 0;
	if (n->s4.poll.fd >= 0 && n->s4.rcvbuf)
		r = n->s4.rcvbuf;
	if (n->s6.poll.fd >= 0 && n->s6.rcvbuf && (!r || n->s6.rcvbuf < r))
		r = n->s6.rcvbuf;
	return r;
}

bool eng_net_bound_addr(const struct eng_dev *d, bool ipv6, uint8_t gid[16])
{
	const struct eng_net_dev *n = d->net;
	const struct eng_net_sock *s;

	if (!n)
		return false;
	s = ipv6 ? &n->s6 : &n->s4;
	if (s->poll.fd < 0)
		return false;
	memcpy(gid, s->addr, 16);
	return true;
}
