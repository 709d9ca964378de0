/* SPDX-License-Identifier: MIT */
/*
 * net, send: a queue of packets per socket (at most net_tx_queue), sent
 * with sendmmsg in batches of net_tx_batch when a batch fills and at the
 * end of every loop turn (eng_net_flush).  A full socket buffer (EAGAIN)
 * keeps the queue and arms EPOLLOUT: the engine never blocks and never
 * spins on it.  Other send errors (no route, EMSGSIZE past the path MTU,
 * the pod's own firewall: EPERM) drop that packet and count it; the
 * transport retransmits.
 *
 * UDP GSO (UDP_SEGMENT) is not used yet.  It would fit: the kernel cuts
 * the UDP payload into gso_size pieces, each becoming its own datagram,
 * so a buffer of back-to-back RoCE packets (each with its own BTH and
 * ICRC) of one size leaves as those packets.  But the kernel numbers the
 * IPv4 IDs of one send 0, 1, 2, ... and the ICRC covers the ID, so
 * segment k's ICRC must be computed with ID k; a kernel rxe peer checks
 * that.  Measured (bench/README.md, "Cross-node: where the time goes"):
 * the per-packet kernel path is what limits cross-node bandwidth today.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_net_int.h"
#include "providers/soft/engine/eng_stats.h"

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
 * traffic class (GRH TClass, the AV's) rides in the IP header. */
static size_t put_cmsgs(int family, const struct eng_net_qent *q,
			uint8_t *buf, size_t cap)
{
	struct msghdr m = { .msg_control = buf, .msg_controllen = cap };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int tos = q->tos, ttl = q->ttl;
	size_t used = 0;

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
	return used;
}

static uint32_t build(struct eng_net_buf *b, struct eng_net_sock *s)
{
	uint32_t n = s->q.count < b->tx_n ? s->q.count : b->tx_n;

	for (uint32_t i = 0; i < n; i++) {
		struct eng_net_qent *q = &s->q.ent[(s->q.head + i) % s->q.cap];
		struct msghdr *h = &b->tx_mm[i].msg_hdr;

		memset(h, 0, sizeof(*h));
		h->msg_name = &q->dst;
		h->msg_namelen = s->family == AF_INET ?
				 sizeof(struct sockaddr_in) : sizeof(q->dst);
		h->msg_iov = q->iov;
		h->msg_iovlen = q->niov;
		h->msg_control = b->tx_ctl[i];
		h->msg_controllen = put_cmsgs(s->family, q, b->tx_ctl[i],
					      sizeof(b->tx_ctl[i]));
	}
	return n;
}

static void sent(struct eng_net_sock *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		eng_stat_add(net_tx_bytes,
			     s->q.ent[(s->q.head + i) % s->q.cap].bytes);
	eng_stat_add(net_tx_pkts, n);
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
			sent(s, (uint32_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			eng_stat_inc(net_tx_eagain);
			if (eng_net_set_events(e, s, true) == 0)
				goto off_list;
		}
		/* The first packet failed for itself (or EPOLLOUT could not
		 * be armed): drop it, go on with the next. */
		eng_stat_inc(net_tx_errors);
		qent_pop(&s->q, 1);
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
