/* SPDX-License-Identifier: MIT */
/*
 * net, receive: a device socket's EPOLLIN drained with recvmmsg in
 * batches of net_rx_batch, at most net_rx_budget packets per socket per
 * loop turn (the rest stays in the socket buffer; epoll is level
 * triggered, so the next turn takes it after the rings had theirs), and
 * for at most net_rx_turn_us, checked after each batch: a garbage flood
 * from another node (wire_noisy.sh) costs the engine 3.7-5.3 us of CPU a
 * 1 KiB datagram, the kernel's receive path included (measured on the
 * 2-core development machine), so 256 of them could hold the rings of
 * every pod of the engine over 1 ms a turn.  A flood fills the socket buffer and the kernel drops
 * the excess, which SO_RXQ_OVFL reports and net_rx_overflows counts.
 */
#include <errno.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* The shortest RoCEv2 packet: BTH (12) + ICRC (4). */
#define ENG_NET_MIN_PKT		(12 + 4)

__attribute__((weak)) void eng_net_rx(struct eng *e, struct eng_dev *d,
				      const struct eng_net_pkt *p)
{
	eng_stat_inc(net_rx_unclaimed);
}

uint32_t eng_net_gro_split(uint32_t len, uint32_t seg, uint32_t *off,
			   uint32_t *plen, uint32_t max)
{
	uint32_t n = 0;

	if (seg == 0 || seg >= len) {
		if (max == 0)
			return 0;
		off[0] = 0;
		plen[0] = len;
		return 1;
	}
	for (uint32_t o = 0; o < len && n < max; o += seg, n++) {
		off[n] = o;
		plen[n] = len - o < seg ? len - o : seg;
	}
	return n;
}

static void gid_of_v4(uint8_t *gid, const void *in4)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, in4, 4);
}

/* The control messages asked for in sock_options; the GRO segment size
 * (0: none) returned.  Unknown ones are ignored. */
static uint32_t parse_cmsgs(struct eng_net_sock *s, struct msghdr *m,
			    struct eng_net_pkt *p)
{
	uint32_t seg = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		const void *v = CMSG_DATA(c);
		size_t n = c->cmsg_len - CMSG_LEN(0);
		int iv = 0;

		if (n >= sizeof(int))
			memcpy(&iv, v, sizeof(iv));
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
		    n >= sizeof(struct in_pktinfo)) {
			struct in_pktinfo pi;

			memcpy(&pi, v, sizeof(pi));
			gid_of_v4(p->dst, &pi.ipi_addr);
			p->ifindex = (uint32_t)pi.ipi_ifindex;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO &&
			   n >= sizeof(struct in6_pktinfo)) {
			struct in6_pktinfo pi;

			memcpy(&pi, v, sizeof(pi));
			memcpy(p->dst, &pi.ipi6_addr, 16);
			p->ifindex = pi.ipi6_ifindex;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TOS && n >= 1) {
			p->tos = *(const uint8_t *)v;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TTL && n >= sizeof(int)) {
			p->ttl = (uint8_t)iv;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS && n >= sizeof(int)) {
			p->tos = (uint8_t)iv;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_HOPLIMIT && n >= sizeof(int)) {
			p->ttl = (uint8_t)iv;
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SO_RXQ_OVFL && n >= 4) {
			uint32_t ov;

			memcpy(&ov, v, 4);
			/* A running count of the socket's drops. */
			eng_stat_add(net_rx_overflows, ov - s->rxq_ovfl);
			s->rxq_ovfl = ov;
		} else if (c->cmsg_level == IPPROTO_UDP &&
			   c->cmsg_type == UDP_GRO && n >= sizeof(int)) {
			seg = iv > 0 ? (uint32_t)iv : 0;
		}
	}
	return seg;
}

static void src_of(const struct sockaddr_in6 *name, socklen_t len,
		   struct eng_net_pkt *p)
{
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)name;

	if (name->sin6_family == AF_INET && len >= sizeof(*a4)) {
		gid_of_v4(p->src.gid, &a4->sin_addr);
		p->src.port = ntohs(a4->sin_port);
	} else if (name->sin6_family == AF_INET6 && len >= sizeof(*name)) {
		memcpy(p->src.gid, &name->sin6_addr, 16);
		p->src.port = ntohs(name->sin6_port);
	}
}

/* One datagram (maybe a GRO train): its packets to eng_net_rx. */
static uint32_t deliver(struct eng *e, struct eng_net_sock *s,
			struct mmsghdr *mm, uint8_t *data)
{
	uint32_t off[64], plen[64], n, seg, max_len;
	struct eng_net_pkt p;

	memset(&p, 0, sizeof(p));
	p.ipv6 = s->family == AF_INET6;
	src_of(mm->msg_hdr.msg_name, mm->msg_hdr.msg_namelen, &p);
	seg = parse_cmsgs(s, &mm->msg_hdr, &p);
	if (mm->msg_hdr.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		eng_stat_inc(net_rx_oversized);
		return 1;
	}
	if (seg)
		eng_stat_inc(net_rx_gro_trains);
	/* The largest packet the port can be sent: path MTU + headers
	 * (eng_net_path_mtu, from the leaf eng_port.c). */
	max_len = eng_port_mtu_bytes(eng_port_ib_mtu(s->dev->netdev_mtu) ?: 1) +
		  ENG_ROCE_OVERHEAD;
	/* The kernel coalesces at most 64 segments (UDP_GRO_CNT_MAX); a
	 * train claiming more is cut there and its rest counted. */
	n = eng_net_gro_split(mm->msg_len, seg, off, plen, 64);
	if (n && off[n - 1] + plen[n - 1] < mm->msg_len)
		eng_stat_inc(net_rx_oversized);
	for (uint32_t i = 0; i < n; i++) {
		p.data = data + off[i];
		p.len = plen[i];
		eng_stat_inc(net_rx_pkts);
		eng_stat_add(net_rx_bytes, p.len);
		if (p.len < ENG_NET_MIN_PKT)
			eng_stat_inc(net_rx_runts);
		else if (p.len > max_len)
			eng_stat_inc(net_rx_oversized);
		else
			eng_net_rx(e, s->dev, &p);
	}
	return n;
}

static void rx_prepare(struct eng_net_buf *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct msghdr *h = &b->rx_mm[i].msg_hdr;

		b->rx_iov[i].iov_base = b->rx_data + (size_t)i * ENG_NET_RX_SLOT;
		b->rx_iov[i].iov_len = ENG_NET_RX_SLOT;
		h->msg_name = &b->rx_name[i];
		h->msg_namelen = sizeof(b->rx_name[i]);
		h->msg_iov = &b->rx_iov[i];
		h->msg_iovlen = 1;
		h->msg_control = b->rx_ctl[i];
		h->msg_controllen = sizeof(b->rx_ctl[i]);
		h->msg_flags = 0;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sock_drain(struct eng *e, struct eng_net_sock *s)
{
	struct eng_net_buf *b = e->net_buf;
	uint64_t budget = eng_lim.net_rx_budget;
	uint64_t t0 = eng_lim.net_rx_turn_us ? mono_ns() : 0;

	while (budget > 0) {
		uint32_t want = b->rx_n < budget ? b->rx_n : (uint32_t)budget;
		int got;

		rx_prepare(b, want);
		got = recvmmsg(s->poll.fd, b->rx_mm, want, MSG_DONTWAIT, NULL);
		if (got <= 0) {
			if (got < 0 && errno != EAGAIN && errno != EINTR)
				eng_stat_inc(net_rx_errors);
			return;
		}
		eng_stat_inc(net_rx_batches);
		for (int i = 0; i < got; i++) {
			uint32_t n = deliver(e, s, &b->rx_mm[i],
					     b->rx_iov[i].iov_base);

			budget = n < budget ? budget - n : 0;
			if (!s->dev->net)
				return;	/* the hook deleted the device */
		}
		if ((uint32_t)got < want)
			return;
		if (t0 && budget &&
		    mono_ns() - t0 >= eng_lim.net_rx_turn_us * 1000) {
			eng_stat_inc(net_rx_time_hits);
			return;
		}
	}
	eng_stat_inc(net_rx_budget_hits);
}

void eng_net_sock_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_net_sock *s = eng_container_of(p, struct eng_net_sock, poll);

	if (ev & EPOLLOUT)
		eng_net_sock_flush(e, s);
	if ((ev & (EPOLLIN | EPOLLERR)) && s->poll.fd >= 0 && e->net_buf)
		sock_drain(e, s);
}
