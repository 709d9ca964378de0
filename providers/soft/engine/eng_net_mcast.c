/* SPDX-License-Identifier: MIT */
/*
 * Multicast groups on the wire (RoCEv2, IBA Annex A17.4.5: a multicast
 * GID is an IP multicast address; a UD datagram to it goes to that IP
 * address, DQPN 0xFFFFFF).  While a device has QPs attached to a group,
 * it holds one UDP socket made in its pod's namespace, bound to the
 * group's address and port 4791 and joined to the group on the pod's
 * interface (IP_ADD_MEMBERSHIP / IPV6_JOIN_GROUP: the pod's kernel
 * answers IGMP / MLD for it, so switches and the pod network learn the
 * member).  Bound to the group address rather than the wildcard, it
 * shares no port with the device's unicast socket and takes only that
 * group's datagrams; what it receives goes to eng_net_rx like any
 * packet, its destination the group (eng_recv.c classifies it).
 * Sends leave through the device's unicast socket (eng_net.c sets the
 * multicast interface and turns loopback off: the engine has already
 * delivered to its own members, eng_mcast.c).
 *
 * Failure to join is not the attach's failure: the QP still gets the
 * group's datagrams from this node (as before the wire existed); it is
 * counted (net_mcast_join_errors) and logged once per device and group.
 * Bounds: ENG_NET_MCAST_PER_DEV groups per device on the wire (each a
 * socket); attachments are bounded by eng_mcast.h.  A join costs the
 * engine's loop a socket made in the pod's namespace and the pod network
 * an IGMP/MLD report, so a pod attaching and detaching in a loop must not
 * make one per request: a device's joins come from a token bucket
 * (mcast_join_burst, then mcast_join_rate a second, eng_limits.h).  Over
 * it the join is refused with -EAGAIN, which fails the attach (the
 * application can retry; a silent local-only member would miss the other
 * nodes' datagrams), counted (net_mcast_join_throttled) and logged at
 * most once a second per device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netns/netns.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_stats.h"

#define WARN_EVERY_NS	1000000000ull

static bool gid_v4(const uint8_t *g)
{
	static const uint8_t pre[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g, pre, 12) == 0;
}

static struct eng_net_msock **find(struct eng_net_dev *n, const uint8_t *gid)
{
	for (uint32_t i = 0; i < n->nmc; i++)
		if (memcmp(n->mc[i]->group, gid, 16) == 0)
			return &n->mc[i];
	return NULL;
}

/* Bound to the group, joined on the pod's interface. */
static int group_bind_join(int fd, const struct eng_net_sock *uni,
			   const uint8_t *gid)
{
	if (gid_v4(gid)) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(ENG_NET_ROCE_PORT) };
		struct ip_mreqn mr = { .imr_ifindex = (int)uni->ifindex };

		memcpy(&a.sin_addr, gid + 12, 4);
		memcpy(&mr.imr_multiaddr, gid + 12, 4);
		memcpy(&mr.imr_address, uni->addr + 12, 4);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -errno;
		return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
				  sizeof(mr)) < 0 ? -errno : 0;
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
					  .sin6_port = htons(ENG_NET_ROCE_PORT),
					  .sin6_scope_id = uni->ifindex };
		struct ipv6_mreq mr = { .ipv6mr_interface = uni->ifindex };

		memcpy(&a.sin6_addr, gid, 16);
		memcpy(&mr.ipv6mr_multiaddr, gid, 16);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -errno;
		return setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr,
				  sizeof(mr)) < 0 ? -errno : 0;
	}
}

static void join_failed(struct eng_dev *d, const uint8_t *gid, int err,
			const char *what)
{
	struct netns_gid g;
	char txt[40];

	eng_stat_inc(net_mcast_join_errors);
	memcpy(g.raw, gid, 16);
	netns_gid_format(&g, txt);
	eng_warn("device %s (%u): group %s not joined on the wire (%s: %s); "
		 "its members get this node's datagrams only", d->name, d->id,
		 txt, what, strerror(-err));
}

/* Takes one of the device's joins, or refuses (-EAGAIN). */
static int join_admit(struct eng_dev *d, struct eng_net_dev *n,
		      const uint8_t *gid)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (eng_tbucket_take(&n->joins, now, (uint32_t)eng_lim.mcast_join_burst,
			     (uint32_t)eng_lim.mcast_join_rate))
		return 0;
	eng_stat_inc(net_mcast_join_throttled);
	if (!n->joins_warned || now - n->joins_warn_ns >= WARN_EVERY_NS) {
		struct netns_gid g;
		char txt[40];

		memcpy(g.raw, gid, 16);
		netns_gid_format(&g, txt);
		eng_warn("device %s (%u): join of group %s refused: more than "
			 "%llu joins, then %llu a second (mcast_join_burst, "
			 "mcast_join_rate)", d->name, d->id, txt,
			 (unsigned long long)eng_lim.mcast_join_burst,
			 (unsigned long long)eng_lim.mcast_join_rate);
		n->joins_warned = true;
		n->joins_warn_ns = now;
	}
	return -EAGAIN;
}

static int msock_open(struct eng *e, struct eng_dev *d,
		      struct eng_net_msock *m, const struct eng_net_sock *uni)
{
	const char *what = "socket";
	int fd, ret;

	fd = netns_socket(d->ns_fd, uni->family, SOCK_DGRAM | SOCK_NONBLOCK,
			  IPPROTO_UDP);
	if (fd < 0) {
		join_failed(d, m->group, fd, what);
		return fd;
	}
	what = "options";
	ret = eng_net_sock_rx_options(&m->s, fd);
	if (ret == 0 && uni->family == AF_INET6)
		ret = eng_net_set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (ret == 0) {
		what = "bind and join";
		ret = group_bind_join(fd, uni, m->group);
	}
	m->s.poll.fd = fd;
	m->s.poll.ready = eng_net_sock_ready;
	if (ret == 0) {
		what = "epoll";
		ret = eng_poll_add(e, &m->s.poll);
	}
	if (ret < 0) {
		close(fd);
		m->s.poll.fd = -1;
		join_failed(d, m->group, ret, what);
		return ret;
	}
	eng_stat_inc(net_mcast_joins);
	return 0;
}

int eng_net_mcast_join(struct eng *e, struct eng_dev *d, const uint8_t gid[16])
{
	struct eng_net_dev *n = d->net;
	const struct eng_net_sock *uni;
	struct eng_net_msock **at, *m;

	if (!n)
		return -ENOTCONN;	/* no interface: same node only */
	at = find(n, gid);
	if (at)
		return 0;		/* joined already */
	uni = gid_v4(gid) ? &n->s4 : &n->s6;
	if (uni->poll.fd < 0)
		return -ENOTCONN;
	if (n->nmc >= ENG_NET_MCAST_PER_DEV) {
		join_failed(d, gid, -ENOSPC, "device's wire groups full");
		return -ENOSPC;
	}
	if (join_admit(d, n, gid) < 0)
		return -EAGAIN;
	m = calloc(1, sizeof(*m));
	if (!m) {
		join_failed(d, gid, -ENOMEM, "memory");
		return -ENOMEM;
	}
	memcpy(m->group, gid, 16);
	m->s.poll.fd = -1;
	m->s.dev = d;
	m->s.family = uni->family;
	m->s.ifindex = uni->ifindex;
	memcpy(m->s.addr, gid, 16);
	if (msock_open(e, d, m, uni) < 0) {
		free(m);
		return -EIO;
	}
	n->mc[n->nmc++] = m;
	return 0;
}

/* Closing the socket leaves the group (the kernel drops the membership
 * with its last holder).  Freed after the loop's batch: a packet of this
 * batch may still be on its way from this socket. */
static void msock_close(struct eng *e, struct eng_net_msock *m)
{
	if (m->s.poll.fd >= 0) {
		eng_poll_del(e, &m->s.poll);
		close(m->s.poll.fd);
		m->s.poll.fd = -1;
		eng_stat_inc(net_mcast_leaves);
	}
	eng_defer_free(e, m);
}

void eng_net_mcast_leave(struct eng *e, struct eng_dev *d,
			 const uint8_t gid[16])
{
	struct eng_net_dev *n = d ? d->net : NULL;
	struct eng_net_msock **at = n ? find(n, gid) : NULL;

	if (!at)
		return;
	msock_close(e, *at);
	*at = n->mc[--n->nmc];
	n->mc[n->nmc] = NULL;
}

void eng_net_mcast_fini(struct eng *e, struct eng_net_dev *n)
{
	while (n->nmc > 0) {
		msock_close(e, n->mc[--n->nmc]);
		n->mc[n->nmc] = NULL;
	}
}
