/* SPDX-License-Identifier: MIT */
/*
 * net (providers/soft/engine/eng_net*.c): the pure parts (GRO split, path
 * MTU), then a device's real UDP 4791 socket on 127.0.0.1 in a private
 * network namespace of this test (root: unshare; skipped without it),
 * driven by the kernel: receive (runts, oversized, the per-turn budget,
 * source/destination/TTL of each packet) and send (batched until the
 * flush, header + payload + trailer bytes, TOS and TTL per packet, the
 * queue bound), and its multicast joins' rate limit.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_iphdr.h"

static void gro_split(void **state)
{
	uint32_t off[8], len[8];

	/* Not coalesced: one packet. */
	assert_int_equal(eng_net_gro_split(1000, 0, off, len, 8), 1);
	assert_int_equal(off[0], 0);
	assert_int_equal(len[0], 1000);
	/* 3 full segments and a short last one. */
	assert_int_equal(eng_net_gro_split(3 * 1100 + 40, 1100, off, len, 8),
			 4);
	assert_int_equal(off[3], 3300);
	assert_int_equal(len[2], 1100);
	assert_int_equal(len[3], 40);
	/* Exactly divisible. */
	assert_int_equal(eng_net_gro_split(2200, 1100, off, len, 8), 2);
	assert_int_equal(len[1], 1100);
	/* Bounded by max. */
	assert_int_equal(eng_net_gro_split(100 * 10, 10, off, len, 8), 8);
	assert_int_equal(eng_net_gro_split(5, 10, off, len, 0), 0);
}

static void path_mtu(void **state)
{
	struct eng_dev d = { .netdev_mtu = 1500 };

	/* 1500 - 84 bytes of headers: 1024; jumbo 9000: 4096. */
	assert_int_equal(eng_net_path_mtu(&d), 1024);
	d.netdev_mtu = 9000;
	assert_int_equal(eng_net_path_mtu(&d), 4096);
	d.netdev_mtu = 4096 + 84;
	assert_int_equal(eng_net_path_mtu(&d), 4096);
	d.netdev_mtu = 4096 + 83;
	assert_int_equal(eng_net_path_mtu(&d), 2048);
	/* Below 256 + headers: still the IBA's smallest. */
	d.netdev_mtu = 200;
	assert_int_equal(eng_net_path_mtu(&d), 256);
}

struct fx {
	struct eng e;
	struct eng_dev *d;
	int peer;		/* a test socket on 127.0.0.2:4791 */
};

static int lo_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	ret = ret ? ret : ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret < 0 ? -errno : 0;
}

static int bind_peer(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(ENG_NET_ROCE_PORT) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;

	inet_pton(AF_INET, ip, &a.sin_addr);
	assert_true(fd >= 0);
	setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int setup(void **state)
{
	struct netns_link l = { .ifindex = 1, .mtu = 1500, .up = true,
				.running = true, .naddrs = 1 };
	struct netns_id ns;
	struct fx *f;
	int ns_fd;

	if (unshare(CLONE_NEWNET) < 0 || lo_up() < 0)
		return 0;	/* each case skips */
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	eng_lim.net_tx_queue = 4;
	eng_lim.net_tx_batch = 8;
	assert_int_equal(eng_init(&f->e), 0);
	strcpy(l.name, "lo");
	l.addrs[0].family = AF_INET;
	memcpy(l.addrs[0].addr, "\x7f\x00\x00\x01", 4);
	l.addrs[0].prefixlen = 8;
	ns_fd = netns_open(NULL);
	assert_true(ns_fd >= 0);
	assert_int_equal(netns_id_of_fd(ns_fd, &ns), 0);
	assert_int_equal(eng_dev_register(&f->e, ns_fd, &ns, "", "t0", 0, &l,
					  &f->d), 0);
	f->peer = bind_peer("127.0.0.2");
	assert_true(f->peer >= 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (!f)
		return 0;
	close(f->peer);
	eng_fini(&f->e);
	free(f);
	return 0;
}

static void send_to_dev(const void *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(ENG_NET_ROCE_PORT),
				 .sin_addr.s_addr = htonl(0x7f000001) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(sendto(fd, buf, len, 0, (struct sockaddr *)&a,
				sizeof(a)), (ssize_t)len);
	close(fd);
}

static void ready(struct fx *f)
{
	struct eng_net_sock *s = &f->d->net->s4;

	s->poll.ready(&f->e, &s->poll, EPOLLIN);
}

static void bound(void **state)
{
	struct fx *f = *state;

	if (!f)
		skip();
	assert_int_equal(eng_net_wire_state(f->d), PV_WIRE_V4_BOUND);
	/* No one else gets the port, even asking to share it. */
	assert_int_equal(bind_peer("127.0.0.1"), -EADDRINUSE);
	assert_int_equal(bind_peer("0.0.0.0"), -EADDRINUSE);
}

static void receive(void **state)
{
	struct fx *f = *state;
	uint8_t buf[9000] = { 0 };
	uint64_t pkts = eng_stats[ENG_STAT_net_rx_pkts];
	uint64_t runts = eng_stats[ENG_STAT_net_rx_runts];
	uint64_t big = eng_stats[ENG_STAT_net_rx_oversized];
	/* The hook: the weak default's counter, or the wire's classify
	 * (eng_recv.c) when it is linked. */
	uint64_t unc = eng_stats[ENG_STAT_net_rx_unclaimed] +
		       eng_stats[ENG_STAT_wire_rx_pkts];

	if (!f)
		skip();
	send_to_dev(buf, 8);			/* shorter than BTH + ICRC */
	send_to_dev(buf, 100);			/* a packet */
	send_to_dev(buf, 1024 + 84 + 1);	/* past MTU 1500's largest */
	send_to_dev(buf, 0);			/* empty */
	ready(f);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_pkts] - pkts, 4);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_runts] - runts, 2);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_oversized] - big, 1);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_unclaimed] +
			 eng_stats[ENG_STAT_wire_rx_pkts] - unc, 1);
}

static void budget(void **state)
{
	struct fx *f = *state;
	uint8_t buf[64] = { 0 };
	uint64_t pkts = eng_stats[ENG_STAT_net_rx_pkts];
	uint64_t hits = eng_stats[ENG_STAT_net_rx_budget_hits];
	uint64_t saved = eng_lim.net_rx_budget;

	if (!f)
		skip();
	eng_lim.net_rx_budget = 4;
	for (int i = 0; i < 10; i++)
		send_to_dev(buf, sizeof(buf));
	ready(f);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_pkts] - pkts, 4);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_budget_hits] - hits, 1);
	ready(f);
	ready(f);
	assert_int_equal(eng_stats[ENG_STAT_net_rx_pkts] - pkts, 10);
	ready(f);	/* nothing left: EAGAIN, no count */
	assert_int_equal(eng_stats[ENG_STAT_net_rx_pkts] - pkts, 10);
	eng_lim.net_rx_budget = saved;
}

static struct eng_net_tx tx_of(const struct iovec *pl, uint8_t tos,
			       uint8_t ttl)
{
	struct eng_net_tx t = { .tos = tos, .ttl = ttl, .hdr = "HDR-BTH",
				.hdr_len = 7, .payload = pl, .npayload = 2,
				.trl = "ICRC", .trl_len = 4 };

	inet_pton(AF_INET, "127.0.0.2", t.dst.gid + 12);
	t.dst.gid[10] = t.dst.gid[11] = 0xff;
	return t;
}

/* One datagram at the peer: its bytes, TOS and TTL. */
static ssize_t peer_recv(struct fx *f, char *buf, size_t cap, int *tos,
			 int *ttl)
{
	uint8_t ctl[128];
	struct iovec iov = { buf, cap };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	ssize_t n = recvmsg(f->peer, &m, MSG_DONTWAIT);

	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); n >= 0 && c;
	     c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_type == IP_TOS)
			*tos = *(uint8_t *)CMSG_DATA(c);
		if (c->cmsg_type == IP_TTL)
			memcpy(ttl, CMSG_DATA(c), sizeof(int));
	}
	return n;
}

static void send_batched(void **state)
{
	struct fx *f = *state;
	char a[] = "payload-one/", b[] = "two";
	struct iovec pl[2] = { { a, 12 }, { b, 3 } };
	struct eng_net_tx t = tx_of(pl, 0x68, 7);
	uint64_t full = eng_stats[ENG_STAT_net_tx_queue_full];
	char got[256];
	int tos = -1, ttl = -1;

	if (!f)
		skip();
	for (int i = 0; i < 4; i++)
		assert_int_equal(eng_net_send(&f->e, f->d, &t), 0);
	/* The queue holds 4 (net_tx_queue): the 5th is dropped, counted. */
	assert_int_equal(eng_net_send(&f->e, f->d, &t), -ENOBUFS);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_queue_full] - full, 1);
	/* Nothing left before the turn's flush. */
	assert_int_equal(peer_recv(f, got, sizeof(got), &tos, &ttl), -1);
	/* The payload is referenced, not copied: what it holds at the
	 * flush is sent. */
	b[0] = 'T';
	eng_net_flush(&f->e);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(peer_recv(f, got, sizeof(got), &tos, &ttl),
				 7 + 15 + 4);
		assert_memory_equal(got, "HDR-BTHpayload-one/TwoICRC", 26);
		assert_int_equal(tos, 0x68);
		assert_int_equal(ttl, 7);
	}
	assert_int_equal(peer_recv(f, got, sizeof(got), &tos, &ttl), -1);
	/* No IPv6 socket; bad sizes. */
	t.ipv6 = true;
	assert_int_equal(eng_net_send(&f->e, f->d, &t), -ENOTCONN);
	t.ipv6 = false;
	t.hdr_len = ENG_NET_HDR_MAX + 1;
	assert_int_equal(eng_net_send(&f->e, f->d, &t), -EINVAL);
}

/* n packets of 7 + body + 4 bytes (the last's body last bytes) with a
 * 4-byte "ICRC" trailer, queued and flushed; each must arrive as its own
 * datagram (the peer has no UDP_GRO: the kernel cuts at its socket) with
 * its trailer adjusted for the IPv4 ID ids[i] of its place in its GSO
 * message. */
static void gso_round(struct fx *f, uint32_t n, uint32_t body,
		      uint32_t last, const uint16_t *ids)
{
	static char pay[9000];
	struct iovec pl[1] = { { pay, body } };
	struct eng_net_tx t = tx_of(pl, 0x68, 9);
	uint32_t icrc = 0x11223344;
	static char got[10000];
	int tos, ttl;

	t.npayload = 1;
	t.icrc = true;
	t.trl = &icrc;
	for (uint32_t i = 0; i < n; i++) {
		pl[0].iov_len = i == n - 1 ? last : body;
		assert_int_equal(eng_net_send(&f->e, f->d, &t), 0);
	}
	eng_net_flush(&f->e);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = 7 + (i == n - 1 ? last : body) + 4, want;

		tos = ttl = -1;
		assert_int_equal(peer_recv(f, got, sizeof(got), &tos, &ttl),
				 len);
		assert_int_equal(tos, 0x68);
		assert_int_equal(ttl, 9);
		want = icrc ^ eng_wire_icrc_id_delta(ids[i], len);
		assert_memory_equal(got + len - 4, &want, 4);
	}
	assert_int_equal(peer_recv(f, got, sizeof(got), &tos, &ttl), -1);
}

static void send_gso(void **state)
{
	/* The fixture's batch is 8 packets: a full batch is sent at once
	 * (eng_net_send), so no message holds more than 8. */
	static const uint16_t four[] = { 0, 1, 2, 3 };
	static const uint16_t twenty[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2,
					   3, 4, 5, 6, 7, 0, 1, 2, 3 };
	/* 8 of 9011 bytes: 7 fit 64 KiB of UDP payload, the 8th alone. */
	static const uint16_t jumbo[] = { 0, 1, 2, 3, 4, 5, 6, 0 };
	static const uint16_t zeros[5] = { 0 };
	struct fx *f = *state;
	uint64_t gs = eng_stats[ENG_STAT_net_tx_gso_sends];
	uint64_t segs = eng_stats[ENG_STAT_net_tx_gso_segs];
	uint64_t fb = eng_stats[ENG_STAT_net_tx_gso_fallbacks];
	uint64_t pkts = eng_stats[ENG_STAT_net_tx_pkts];
	uint64_t q = eng_lim.net_tx_queue;
	int one = 1;

	if (!f)
		skip();
	/* A larger queue than send_batched's 4: a new one (freed, made
	 * again on the next send). */
	eng_net_txq_free(&f->d->net->s4);
	eng_lim.net_tx_queue = 64;
	/* 3 of one size and a shorter tail: one message of 4. */
	gso_round(f, 4, 1000, 10, four);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_sends] - gs, 1);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_segs] - segs, 4);
	gso_round(f, 20, 1000, 1000, twenty);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_sends] - gs, 4);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_segs] - segs, 24);
	gso_round(f, 8, 9000, 9000, jumbo);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_sends] - gs, 5);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_segs] - segs, 31);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_pkts] - pkts, 32);
	/* A socket without UDP checksums cannot segment (EINVAL): counted
	 * once, then one datagram per packet, each with ID 0. */
	assert_int_equal(setsockopt(f->d->net->s4.poll.fd, SOL_SOCKET,
				    SO_NO_CHECK, &one, sizeof(one)), 0);
	gso_round(f, 5, 1000, 1000, zeros);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_fallbacks] - fb, 1);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_sends] - gs, 5);
	assert_true(f->d->net->s4.gso_off);
	/* Off by the limit: one datagram each. */
	one = 0;
	assert_int_equal(setsockopt(f->d->net->s4.poll.fd, SOL_SOCKET,
				    SO_NO_CHECK, &one, sizeof(one)), 0);
	f->d->net->s4.gso_off = false;
	eng_lim.net_tx_gso = 0;
	gso_round(f, 5, 1000, 1000, zeros);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_gso_sends] - gs, 5);
	eng_lim.net_tx_gso = 1;
	eng_net_txq_free(&f->d->net->s4);
	eng_lim.net_tx_queue = q;
}

/* A full socket buffer: lo's tbf qdisc holds the packets (and the
 * socket's send memory) until it is removed.  EAGAIN keeps the queue and
 * arms EPOLLOUT instead of spinning; EPOLLOUT sends the rest. */
static void send_eagain(void **state)
{
	struct fx *f = *state;
	struct eng_net_sock *s;
	static char big[1200];
	struct iovec pl[2] = { { big, 600 }, { big + 600, 600 } };
	struct eng_net_tx t = tx_of(pl, 0, 0);
	uint64_t again = eng_stats[ENG_STAT_net_tx_eagain];
	uint64_t pkts = eng_stats[ENG_STAT_net_tx_pkts];
	int small = 4096, sent = 0, tos, ttl;
	char got[2048];

	if (!f)
		skip();
	if (system("tc qdisc add dev lo root tbf rate 8kbit burst 1600 "
		   "latency 60s 2>/dev/null") != 0)
		skip();
	s = &f->d->net->s4;
	setsockopt(s->poll.fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	for (int round = 0; round < 8 && !s->want_out; round++) {
		for (int i = 0; i < 4; i++)
			assert_int_equal(eng_net_send(&f->e, f->d, &t), 0);
		eng_net_flush(&f->e);
	}
	assert_true(s->want_out);
	assert_true(eng_stats[ENG_STAT_net_tx_eagain] > again);
	assert_true(s->q.count > 0);
	/* Waiting for EPOLLOUT, a turn's flush makes no system call (it
	 * would meet EAGAIN again). */
	again = eng_stats[ENG_STAT_net_tx_eagain];
	eng_net_flush(&f->e);
	assert_int_equal(eng_stats[ENG_STAT_net_tx_eagain], again);
	assert_int_equal(system("tc qdisc del dev lo root"), 0);
	while (peer_recv(f, got, sizeof(got), &tos, &ttl) > 0)
		sent++;
	s->poll.ready(&f->e, &s->poll, EPOLLOUT);
	assert_false(s->want_out);
	assert_int_equal(s->q.count, 0);
	while (peer_recv(f, got, sizeof(got), &tos, &ttl) > 0)
		sent++;
	/* The tbf's backlog was dropped with it; what EPOLLOUT sent came. */
	assert_true(sent > 0);
	assert_true(eng_stats[ENG_STAT_net_tx_pkts] > pkts);
}

static void v4group(uint8_t g[16], uint8_t last)
{
	static const uint8_t base[16] = { [10] = 0xff, [11] = 0xff,
					  [12] = 239, [13] = 9, [14] = 9 };

	memcpy(g, base, 16);
	g[15] = last;
}

/* A device's wire joins: mcast_join_burst of them, then -EAGAIN (counted)
 * until mcast_join_rate gives one back; a group joined already costs
 * nothing, and a leave gives no join back. */
static void mcast_join_rate(void **state)
{
	uint64_t burst = eng_lim.mcast_join_burst, rate = eng_lim.mcast_join_rate;
	uint64_t joins = eng_stats[ENG_STAT_net_mcast_joins];
	uint64_t thr = eng_stats[ENG_STAT_net_mcast_join_throttled];
	struct fx *f = *state;
	uint8_t g[16];

	if (!f)
		skip();
	eng_lim.mcast_join_burst = 3;
	eng_lim.mcast_join_rate = 1;
	for (uint8_t i = 1; i <= 3; i++) {
		v4group(g, i);
		assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), 0);
	}
	assert_int_equal(eng_stats[ENG_STAT_net_mcast_joins], joins + 3);
	v4group(g, 4);
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), -EAGAIN);
	assert_int_equal(eng_stats[ENG_STAT_net_mcast_join_throttled], thr + 1);
	v4group(g, 2);
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), 0);
	eng_net_mcast_leave(&f->e, f->d, g);
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), -EAGAIN);
	assert_int_equal(eng_stats[ENG_STAT_net_mcast_join_throttled], thr + 2);
	assert_int_equal(eng_stats[ENG_STAT_net_mcast_joins], joins + 3);
	assert_int_equal(f->d->net->nmc, 2);
	/* A second later the bucket has one join again. */
	f->d->net->joins.refill_ns -= 1000000000ull;
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), 0);
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), 0); /* joined */
	v4group(g, 5);
	assert_int_equal(eng_net_mcast_join(&f->e, f->d, g), -EAGAIN);
	assert_int_equal(f->d->net->nmc, 3);
	eng_lim.mcast_join_burst = burst;
	eng_lim.mcast_join_rate = rate;
}

static void removed(void **state)
{
	struct fx *f = *state;
	int fd;

	if (!f)
		skip();
	eng_dev_remove(&f->e, f->d);
	fd = bind_peer("127.0.0.1");
	assert_true(fd >= 0);	/* the port is free again */
	close(fd);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(gro_split),
		cmocka_unit_test(path_mtu),
	};
	/* In order, on one device. */
	const struct CMUnitTest sock[] = {
		cmocka_unit_test(bound),
		cmocka_unit_test(receive),
		cmocka_unit_test(budget),
		cmocka_unit_test(send_batched),
		cmocka_unit_test(send_gso),
		cmocka_unit_test(send_eagain),
		cmocka_unit_test(mcast_join_rate),
		cmocka_unit_test(removed),
	};
	int r = cmocka_run_group_tests(pure, NULL, NULL);

	return r + cmocka_run_group_tests(sock, setup, teardown);
}
