/* SPDX-License-Identifier: MIT */
/*
 * net, send: a queue of packets per socket (at most net_tx_queue), sent
 * with sendmmsg in batches of net_tx_batch when a batch fills and at the
 * end of every loop turn (eng_net_flush).  A full socket buffer (EAGAIN)
 * keeps the queue and arms EPOLLOUT: the engine never blocks and never
 * spins on it.  Other send errors (no route, EMSGSIZE past the path MTU,
 * the pod's own firewall: EPERM) drop that message's packets and count
 * them; the transport retransmits.
 *
 * UDP GSO (UDP_SEGMENT, Linux >= 4.18): a run of queued packets to one
 * destination with one TOS/TTL, all of the first one's size but a
 * shorter last, goes as one message whose cmsg says that size; the
 * kernel cuts the payload there, so each packet (its own BTH .. ICRC)
 * leaves as its own datagram, and the routing, bridge, netfilter and
 * veth work is paid once per message instead of once per packet (the
 * cost measured in bench/README.md, "Cross-node: where the time goes").
 * Where the path keeps GSO (veth, bridge, routing between namespaces)
 * nothing is cut before the receiving socket, which with UDP_GRO takes
 * the whole message (eng_net_rx.c).  The IPv4 ID is the one header field
 * that differs per segment and that the ICRC covers: an unconnected DF
 * socket's datagram has ID 0 (ip_select_ident_segs) and inet_gso_segment
 * numbers the segments on from it, 0, 1, 2, ...; so segment k's ICRC is
 * adjusted for ID k here (eng_wire_icrc_id_delta, no second pass over the
 * payload), and a packet sent alone is set back to ID 0.  A receiver that
 * sees the real header (kernel rxe, a NIC) checks exactly that; ours
 * recovers the ID from the ICRC.  At most ENG_NET_GSO_SEGS packets, 64
 * KiB, per message (UDP_GRO_CNT_MAX: the receiver's GRO splits no more).
 * A socket that refuses UDP_SEGMENT (EINVAL/EIO: a kernel without it, a
 * socket without UDP checksums, an xfrm route; a device without UDP
 * segmentation is no reason, the kernel cuts in software for it) sends
 * one by one from then on, counted in net_tx_gso_fallbacks; net_tx_gso 0
 * turns it off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <netinet/udp.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_iphdr.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* Packets per GSO message: the receiver's UDP_GRO_CNT_MAX (64), below
 * the sender's UDP_MAX_SEGMENTS (64, 128 since Linux 6.10). */
#define ENG_NET_GSO_SEGS	64

int eng_net_set_events(struct eng *e, struct eng_net_sock *s, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0),
				  .data.ptr = &s->poll };

	if (s->want_out == out)
		return 0;
	if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, s->poll.fd, &ev) < 0)
		return -errno;
	s->want_out = out;
	return 0;
}

static void qent_pop(struct eng_net_txq *q, uint32_t n)
{
	q->head = (q->head + n) % q->cap;
	q->count -= n;
}

void eng_net_txq_drop(struct eng *e, struct eng_net_sock *s)
{
	eng_stat_add(net_tx_dropped, s->q.count);
	s->q.count = 0;
	s->q.head = 0;
	if (s->dirty) {
		eng_list_del(&s->dirty_link);
		s->dirty = false;
	}
}

void eng_net_txq_free(struct eng_net_sock *s)
{
	free(s->q.ent);
	s->q.ent = NULL;
	s->q.cap = 0;
}

void eng_net_tx_purge(struct eng *e, struct eng_dev *d)
{
	if (!d->net)
		return;
	if (d->net->s4.poll.fd >= 0)
		(void)eng_net_set_events(e, &d->net->s4, false);
	if (d->net->s6.poll.fd >= 0)
		(void)eng_net_set_events(e, &d->net->s6, false);
	eng_net_txq_drop(e, &d->net->s4);
	eng_net_txq_drop(e, &d->net->s6);
}

/* IP_TOS / IP_TTL (IPV6_TCLASS / IPV6_HOPLIMIT) per packet: RoCE's
 * traffic class (GRH TClass, the AV's) rides in the IP header; UDP_SEGMENT
 * with the segment size when gso is not 0. */
static size_t put_cmsgs(int family, const struct eng_net_qent *q,
			uint16_t gso, uint8_t *buf, size_t cap)
{
	struct msghdr m = { .msg_control = buf, .msg_controllen = cap };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int tos = q->tos, ttl = q->ttl;
	size_t used = 0;

	/* Room for all three (what tx_ctl is sized for). */
	_Static_assert(3 * CMSG_SPACE(sizeof(int)) <=
		       sizeof(((struct eng_net_buf *)0)->tx_ctl[0]),
		       "tx_ctl holds TOS, TTL and UDP_SEGMENT");
	memset(buf, 0, cap);
	c->cmsg_level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	c->cmsg_type = family == AF_INET ? IP_TOS : IPV6_TCLASS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &tos, sizeof(int));
	used += CMSG_SPACE(sizeof(int));
	if (ttl) {
		m.msg_controllen = used + CMSG_SPACE(sizeof(int));
		c = CMSG_NXTHDR(&m, c);
		c->cmsg_level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = family == AF_INET ? IP_TTL : IPV6_HOPLIMIT;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &ttl, sizeof(int));
		used += CMSG_SPACE(sizeof(int));
	}
	if (gso) {
		m.msg_controllen = used + CMSG_SPACE(sizeof(gso));
		c = CMSG_NXTHDR(&m, c);
		c->cmsg_level = IPPROTO_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(gso));
		memcpy(CMSG_DATA(c), &gso, sizeof(gso));
		used += CMSG_SPACE(sizeof(gso));
	}
	return used;
}

static struct eng_net_qent *qent_at(const struct eng_net_sock *s,
				    uint32_t i)
{
	return &s->q.ent[(s->q.head + i) % s->q.cap];
}

/* Seals q's ICRC for IPv4 ID id instead of the one it is sealed for. */
static void qent_set_id(struct eng_net_qent *q, uint16_t id)
{
	uint8_t *c = q->trl + q->trl_len - 4;
	uint32_t d;

	if (q->ip_id == id || !q->icrc || q->trl_len < 4)
		return;
	d = eng_wire_icrc_id_delta(q->ip_id, q->bytes) ^
	    eng_wire_icrc_id_delta(id, q->bytes);
	c[0] ^= (uint8_t)d;
	c[1] ^= (uint8_t)(d >> 8);
	c[2] ^= (uint8_t)(d >> 16);
	c[3] ^= (uint8_t)(d >> 24);
	q->ip_id = id;
}

/* How many packets from queue position from go in one message: a run of
 * GSO-able packets to one place, the first one's size, the last maybe
 * shorter, within 64 KiB of UDP payload and iov_left iovecs. */
static uint32_t run_len(const struct eng_net_sock *s, uint32_t from,
			uint32_t iov_left)
{
	const struct eng_net_qent *a = qent_at(s, from);
	uint32_t max = s->family == AF_INET ? 65535 - 20 - 8 : 65535 - 8;
	uint32_t n = 1, total = a->bytes, iovs = a->niov;

	if (!eng_lim.net_tx_gso || s->gso_off || !a->icrc)
		return 1;
	while (from + n < s->q.count && n < ENG_NET_GSO_SEGS) {
		const struct eng_net_qent *q = qent_at(s, from + n);

		if (!q->icrc || q->bytes > a->bytes || q->tos != a->tos ||
		    q->ttl != a->ttl || total + q->bytes > max ||
		    iovs + q->niov > iov_left ||
		    memcmp(&q->dst, &a->dst, sizeof(q->dst)) != 0)
			break;
		total += q->bytes;
		iovs += q->niov;
		n++;
		if (q->bytes < a->bytes)
			break;		/* a shorter one ends the run */
	}
	return n;
}

/* Message i of the batch: packets from queue position from on. */
static uint32_t build_one(struct eng_net_buf *b, struct eng_net_sock *s,
			  uint32_t i, uint32_t from, uint32_t *iov_used)
{
	struct eng_net_qent *a = qent_at(s, from);
	struct msghdr *h = &b->tx_mm[i].msg_hdr;
	uint32_t n = run_len(s, from, ENG_NET_TX_IOV - *iov_used);

	memset(h, 0, sizeof(*h));
	h->msg_name = &a->dst;
	h->msg_namelen = s->family == AF_INET ?
			 sizeof(struct sockaddr_in) : sizeof(a->dst);
	h->msg_iov = b->tx_iov + *iov_used;
	for (uint32_t k = 0; k < n; k++) {
		struct eng_net_qent *q = qent_at(s, from + k);

		/* Segment k of the message leaves with IPv4 ID k. */
		qent_set_id(q, s->family == AF_INET ? (uint16_t)k : 0);
		memcpy(b->tx_iov + *iov_used, q->iov,
		       q->niov * sizeof(q->iov[0]));
		*iov_used += q->niov;
		h->msg_iovlen += q->niov;
	}
	h->msg_control = b->tx_ctl[i];
	h->msg_controllen = put_cmsgs(s->family, a,
				      n > 1 ? (uint16_t)a->bytes : 0,
				      b->tx_ctl[i], sizeof(b->tx_ctl[i]));
	b->tx_npk[i] = n;
	return n;
}

static uint32_t build(struct eng_net_buf *b, struct eng_net_sock *s)
{
	uint32_t i = 0, from = 0, iov_used = 0;

	while (i < b->tx_n && from < s->q.count &&
	       iov_used + qent_at(s, from)->niov <= ENG_NET_TX_IOV)
		from += build_one(b, s, i++, from, &iov_used);
	return i;
}

static void sent(struct eng_net_buf *b, struct eng_net_sock *s,
		 uint32_t nmsg)
{
	for (uint32_t m = 0; m < nmsg; m++) {
		uint32_t n = b->tx_npk[m];

		for (uint32_t i = 0; i < n; i++)
			eng_stat_add(net_tx_bytes, qent_at(s, i)->bytes);
		eng_stat_add(net_tx_pkts, n);
		if (n > 1) {
			eng_stat_inc(net_tx_gso_sends);
			eng_stat_add(net_tx_gso_segs, n);
		}
		qent_pop(&s->q, n);
	}
}

/* The first message failed for itself, not for a full buffer. */
static void send_failed(struct eng *e, struct eng_net_buf *b,
			struct eng_net_sock *s, int err)
{
	uint32_t n = b->tx_npk[0];

	if (n > 1 && (err == EINVAL || err == EIO)) {
		/* UDP_SEGMENT refused: the same packets go one by one
		 * (build sets them back to ID 0). */
		if (!s->gso_off)
			eng_warn("device %s (%u): UDP GSO refused (%s); "
				 "sending one datagram per packet",
				 s->dev->name, s->dev->id, strerror(err));
		s->gso_off = true;
		eng_stat_inc(net_tx_gso_fallbacks);
		return;
	}
	eng_stat_add(net_tx_errors, n);
	qent_pop(&s->q, n);
}

/* Sends until the queue is empty or the socket buffer is full. */
void eng_net_sock_flush(struct eng *e, struct eng_net_sock *s)
{
	struct eng_net_buf *b = e->net_buf;

	while (s->q.count && s->poll.fd >= 0) {
		uint32_t n = build(b, s);
		int r = sendmmsg(s->poll.fd, b->tx_mm, n, MSG_DONTWAIT);

		if (r > 0) {
			eng_stat_inc(net_tx_batches);
			sent(b, s, (uint32_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			eng_stat_inc(net_tx_eagain);
			if (eng_net_set_events(e, s, true) == 0)
				goto off_list;
		}
		/* The first message failed for itself (or EPOLLOUT could
		 * not be armed): drop it, go on with the next. */
		send_failed(e, b, s, r < 0 ? errno : EIO);
	}
	if (s->poll.fd >= 0)
		(void)eng_net_set_events(e, s, false);
off_list:
	if (s->dirty) {
		eng_list_del(&s->dirty_link);
		s->dirty = false;
	}
}

void eng_net_flush(struct eng *e)
{
	struct eng_list *pos, *tmp;

	if (!e->net_dirty.next)
		return;
	eng_list_for_each_safe(pos, tmp, &e->net_dirty)
		eng_net_sock_flush(e, eng_container_of(pos, struct eng_net_sock,
						       dirty_link));
}

static int qent_fill(struct eng_net_qent *q, const struct eng_net_sock *s,
		     const struct eng_net_tx *t)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)&q->dst;
	uint16_t port = t->dst.port ? t->dst.port : ENG_NET_ROCE_PORT;
	uint32_t k = 0;

	memset(&q->dst, 0, sizeof(q->dst));
	if (s->family == AF_INET) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		memcpy(&a4->sin_addr, t->dst.gid + 12, 4);
	} else {
		q->dst.sin6_family = AF_INET6;
		q->dst.sin6_port = htons(port);
		memcpy(&q->dst.sin6_addr, t->dst.gid, 16);
		q->dst.sin6_scope_id = s->ifindex;
	}
	q->tos = t->tos;
	q->ttl = t->ttl;
	memcpy(q->hdr, t->hdr, t->hdr_len);
	q->iov[k++] = (struct iovec){ q->hdr, t->hdr_len };
	q->bytes = t->hdr_len + t->trl_len;
	for (uint32_t i = 0; i < t->npayload; i++) {
		q->iov[k++] = t->payload[i];
		q->bytes += (uint32_t)t->payload[i].iov_len;
	}
	if (t->trl_len) {
		memcpy(q->trl, t->trl, t->trl_len);
		q->iov[k++] = (struct iovec){ q->trl, t->trl_len };
	}
	q->niov = (uint8_t)k;
	q->trl_len = (uint8_t)t->trl_len;
	q->icrc = t->icrc && t->trl_len >= 4;
	q->ip_id = 0;
	return 0;
}

int eng_net_send(struct eng *e, struct eng_dev *d, const struct eng_net_tx *t)
{
	struct eng_net_sock *s;
	struct eng_net_txq *q;

	if (t->hdr_len > ENG_NET_HDR_MAX || t->trl_len > ENG_NET_TRL_MAX ||
	    t->npayload > ENG_NET_IOV_MAX || (t->hdr_len && !t->hdr) ||
	    (t->trl_len && !t->trl) || (t->npayload && !t->payload))
		return -EINVAL;
	s = !d->net ? NULL : t->ipv6 ? &d->net->s6 : &d->net->s4;
	if (!s || s->poll.fd < 0) {
		eng_stat_inc(net_tx_no_socket);
		return -ENOTCONN;
	}
	q = &s->q;
	if (!q->ent) {
		q->ent = calloc(eng_lim.net_tx_queue, sizeof(*q->ent));
		if (!q->ent)
			return -ENOMEM;
		q->cap = (uint32_t)eng_lim.net_tx_queue;
	}
	if (q->count == q->cap) {
		eng_stat_inc(net_tx_queue_full);
		return -ENOBUFS;
	}
	qent_fill(&q->ent[(q->head + q->count) % q->cap], s, t);
	q->count++;
	/* Waiting for EPOLLOUT: its ready callback sends, not the turn. */
	if (!s->dirty && !s->want_out) {
		if (!e->net_dirty.next)
			eng_list_init(&e->net_dirty);
		eng_list_add_tail(&e->net_dirty, &s->dirty_link);
		s->dirty = true;
	}
	/* A full batch goes now, unless EPOLLOUT is awaited. */
	if (!s->want_out && q->count >= e->net_buf->tx_n)
		eng_net_sock_flush(e, s);
	return 0;
}
