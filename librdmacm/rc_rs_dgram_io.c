/* SPDX-License-Identifier: MIT */
/*
 * Datagram rsockets' I/O: sending (over UD once the peer's QPN and an
 * address handle are known, over the UDP socket before), receiving (UD
 * completions and UDP datagrams, both into one bounded queue in arrival
 * order), the UDP side of rdma-core's protocol (answer a DATA with a
 * CTRL naming our QPN; learn the peer's QPN from either), and the waits
 * and poll hooks.  Everything a peer sends is checked
 * (rc_rs_dgram_proto.c) before it is queued; what fails is dropped and
 * counted in ds->st.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <netinet/in.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"
#include "librdmacm/rc_rs_dgram.h"

#define RC_DS_UDP_BURST	32	/* UDP datagrams handled per pass */
#define RC_DS_WC_BURST	16
#define RC_DS_SLICE_MS	1000
#define RC_DS_RECV_FLAG	(1ull << 63)

static void rx_push(struct rc_ds *ds, const struct rc_ds_rmsg *m)
{
	ds->rx[(ds->rx_head + ds->rx_n) % ds->rx_cap] = *m;
	ds->rx_n++;
}

static void on_recv(struct rc_rs *rs, int qi, const struct ibv_wc *wc)
{
	struct rc_ds *ds = rs->ds;
	uint32_t off = (uint32_t)wc->wr_id;
	struct rc_ds_rmsg m = { .slot = off, .qp = (uint8_t)qi };
	enum rc_ds_bad bad;
	socklen_t sl;
	size_t hlen, len;

	if (wc->status != IBV_WC_SUCCESS) {
		ds->st.ud_err++;
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			rc_ds_post_recv(rs, qi, off);
		return;
	}
	/* The length is the device's, but bound it by what we posted. */
	len = wc->byte_len < RC_DS_GRH_LEN ? 0 : wc->byte_len - RC_DS_GRH_LEN;
	if (len > RC_DS_MSG_MAX)
		len = RC_DS_MSG_MAX;
	bad = rc_ds_hdr_decode(ds->qps[qi].rbuf + off, len, &m.src, &sl, &hlen);
	if (bad == RC_DS_OK && ds->rx_n == ds->rx_cap)
		ds->st.full++;
	else if (bad != RC_DS_OK)
		ds->st.ud_bad[bad]++;
	if (bad != RC_DS_OK || ds->rx_n == ds->rx_cap) {
		rc_ds_post_recv(rs, qi, off);
		return;
	}
	m.off = off + (uint32_t)hlen;
	m.len = (uint32_t)(len - hlen);
	rx_push(ds, &m);
}

/* A send completed: its slot is free again (a failure is counted; the
 * datagram is lost, as UDP's may be). */
static void on_send(struct rc_ds *ds, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS && ds->st.send_err++ == 0 &&
	    rc_debug())
		fprintf(stderr, "librdmacm (podverbs): datagram rsocket: a "
			"send failed: %s\n", ibv_wc_status_str(wc->status));
	if (ds->sqe_avail < ds->sq_size && wc->wr_id < ds->sq_size)
		ds->sfree[ds->sqe_avail++] = (uint32_t)wc->wr_id;
}

static void poll_cqs(struct rc_rs *rs)
{
	struct rc_ds *ds = rs->ds;
	struct ibv_wc wc[RC_DS_WC_BURST];

	for (int qi = 0; qi < ds->nqps; qi++) {
		int n;

		while ((n = ibv_poll_cq(ds->qps[qi].cq, RC_DS_WC_BURST, wc)) > 0)
			for (int i = 0; i < n; i++) {
				if (wc[i].wr_id & RC_DS_RECV_FLAG)
					on_recv(rs, qi, &wc[i]);
				else
					on_send(ds, &wc[i]);
			}
	}
}

ssize_t rc_ds_send_udp(struct rc_rs *rs, struct rc_ds_dest *d, uint8_t op,
		       const struct iovec *iov, int cnt, int flags)
{
	struct rc_ds_qp *q = &rs->ds->qps[d->qp];
	uint8_t hdr[RC_DS_UDP_V6_LEN];
	struct iovec v[9];
	struct rc_ds_udp h = { .op = op, .qpn = q->id->qp->qp_num };
	struct msghdr msg = { 0 };
	ssize_t n;

	if (cnt > 8)
		return -EMSGSIZE;
	if (q->src.ss_family == AF_INET6) {
		h.version = 6;
		memcpy(h.addr, &((struct sockaddr_in6 *)&q->src)->sin6_addr, 16);
	} else {
		h.version = 4;
		memcpy(h.addr, &((struct sockaddr_in *)&q->src)->sin_addr, 4);
	}
	v[0].iov_base = hdr;
	v[0].iov_len = rc_ds_udp_encode(&h, hdr);
	if (cnt)
		memcpy(&v[1], iov, (size_t)cnt * sizeof(*iov));
	msg.msg_name = &d->addr;
	msg.msg_namelen = d->addr.ss_family == AF_INET6 ?
		sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	msg.msg_iov = v;
	msg.msg_iovlen = (size_t)cnt + 1;
	n = sendmsg(rs->ds->udp, &msg, flags & MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return n < (ssize_t)v[0].iov_len ? 0 : n - (ssize_t)v[0].iov_len;
}

/* One UDP datagram from a peer: rdma-core's udp_svc_process_rs. */
static void on_udp(struct rc_rs *rs, const uint8_t *buf, size_t n,
		   const struct sockaddr_storage *from, socklen_t fromlen)
{
	struct rc_ds *ds = rs->ds;
	struct rc_ds_rmsg m = { .qp = RC_DS_QP_UDP };
	struct rc_ds_dest *d;
	struct rc_ds_udp h;
	enum rc_ds_bad bad;
	size_t hlen, len;

	bad = rc_ds_udp_decode(buf, n, from->ss_family, &h, &hlen);
	if (bad != RC_DS_OK) {
		ds->st.udp_bad[bad]++;
		return;
	}
	if (rc_ds_get_dest(rs, (const struct sockaddr *)from, fromlen, &d) < 0)
		return;
	/* A DATA is answered with our QPN, so the peer can go over UD. */
	if (h.op == RC_DS_OP_DATA)
		rc_ds_send_udp(rs, d, RC_DS_OP_CTRL, NULL, 0, MSG_DONTWAIT);
	if (!d->ah || d->qpn != h.qpn)
		rc_ds_make_ah(rs, d, h.qpn);
	if (h.op != RC_DS_OP_DATA)
		return;
	if (!ds->uq_nfree || ds->rx_n == ds->rx_cap) {
		ds->st.full++;
		return;
	}
	len = n - hlen;
	if (len > rc_ds_max_payload(from->ss_family))
		len = rc_ds_max_payload(from->ss_family);
	m.slot = ds->uq_free[--ds->uq_nfree];
	m.off = m.slot * RC_DS_MSG_MAX;
	m.len = (uint32_t)len;
	memcpy(&m.src, from, sizeof(m.src));
	memcpy(ds->udpq + m.off, buf + hlen, len);
	rx_push(ds, &m);
}

static void poll_udp(struct rc_rs *rs)
{
	uint8_t buf[RC_DS_UDP_V6_LEN + RC_DS_MSG_MAX];

	for (int i = 0; i < RC_DS_UDP_BURST; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(rs->ds->udp, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);

		if (n < 0)
			return;
		if (from.ss_family != AF_INET && from.ss_family != AF_INET6)
			continue;
		on_udp(rs, buf, (size_t)n, &from, fl);
	}
}

void rc_ds_progress(struct rc_rs *rs)
{
	poll_udp(rs);
	poll_cqs(rs);
}

bool rc_ds_arm(struct rc_rs *rs)
{
	bool was = true;

	for (int i = 0; i < rs->ds->nqps; i++) {
		struct rc_ds_qp *q = &rs->ds->qps[i];

		if (q->armed)
			continue;
		ibv_req_notify_cq(q->cq, 0);
		q->armed = true;
		was = false;	/* look once more before sleeping */
	}
	return was;
}

void rc_ds_after_wait(struct rc_rs *rs)
{
	for (int i = 0; i < rs->ds->nqps; i++) {
		struct rc_ds_qp *q = &rs->ds->qps[i];
		struct ibv_cq *cq;
		void *ctx;

		if (q->armed && ibv_get_cq_event(q->cc, &cq, &ctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			q->armed = false;
		}
	}
}

/* Waits (rs->lock released while asleep) until test, or -EAGAIN. */
static int ds_wait(struct rc_rs *rs, bool nonblock, int ms,
		   bool (*test)(struct rc_rs *))
{
	for (;;) {
		struct epoll_event ev[4];

		rc_ds_progress(rs);
		if (test(rs))
			return 0;
		if (nonblock || ms == 0)
			return -EAGAIN;
		if (!rc_ds_arm(rs))
			continue;
		pthread_mutex_unlock(&rs->lock);
		epoll_wait(rs->ds->epfd, ev, 4,
			   ms > 0 && ms < RC_DS_SLICE_MS ? ms : RC_DS_SLICE_MS);
		pthread_mutex_lock(&rs->lock);
		rc_ds_after_wait(rs);
		if (ms > 0)
			ms = ms > RC_DS_SLICE_MS ? ms - RC_DS_SLICE_MS : 0;
	}
}

static bool can_send(struct rc_rs *rs)
{
	return rs->ds->sqe_avail > 0;
}

static bool have_data(struct rc_rs *rs)
{
	return rs->ds->rx_n > 0;
}

static bool sends_done(struct rc_rs *rs)
{
	return rs->ds->sqe_avail == rs->ds->sq_size;
}

void rc_ds_drain_sends(struct rc_rs *rs, int ms)
{
	ds_wait(rs, false, ms, sends_done);
}

static bool nonblocking(struct rc_rs *rs, int flags)
{
	return (rs->fl_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

static int post_ud(struct rc_rs *rs, struct rc_ds_dest *d,
		   const struct iovec *iov, int cnt, size_t total)
{
	struct rc_ds *ds = rs->ds;
	struct rc_ds_qp *q = &ds->qps[d->qp];
	uint32_t slot = ds->sfree[--ds->sqe_avail];
	uint8_t *p = ds->sbuf + (size_t)slot * RC_DS_MSG_MAX;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .lkey = q->smr->lkey };
	struct ibv_send_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	size_t at = q->hdr_len;
	int ret;

	memcpy(p, q->hdr, q->hdr_len);
	for (int i = 0; i < cnt; i++) {
		memcpy(p + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	sge.length = (uint32_t)(q->hdr_len + total);
	if (sge.length <= rs->sq_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.ud.ah = d->ah;
	wr.wr.ud.remote_qpn = d->qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	ret = ibv_post_send(q->id->qp, &wr, &bad);
	if (ret) {
		ds->sfree[ds->sqe_avail++] = slot;
		return -ret;
	}
	return 0;
}

ssize_t rc_ds_sendv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		    int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct rc_ds_dest *d = rs->ds->conn;
	size_t total = 0;
	int ret;

	for (int i = 0; i < cnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EFAULT;
		total += iov[i].iov_len;
		if (total > rc_ds_max_payload(rs->domain))
			return -EMSGSIZE;
	}
	if (to) {
		ret = rc_ds_get_dest(rs, to, tolen, &d);
		if (ret < 0)
			return ret;
	} else if (!d) {
		return -EDESTADDRREQ;
	}
	rc_ds_progress(rs);	/* the peer's CTRL may have come */
	/* A UD message is one packet: what the path MTU cannot carry goes
	 * over UDP, which the peer takes at any time (rdma-core too). */
	if (!d->ah || rs->ds->qps[d->qp].hdr_len + total > rs->ds->qps[d->qp].mtu)
		return rc_ds_send_udp(rs, d, RC_DS_OP_DATA, iov, cnt, flags);
	ret = ds_wait(rs, nonblocking(rs, flags), -1, can_send);
	if (ret < 0)
		return ret;
	ret = post_ud(rs, d, iov, cnt, total);
	return ret < 0 ? ret : (ssize_t)total;
}

ssize_t rc_ds_recvv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		    int flags, struct sockaddr *from, socklen_t *fromlen,
		    int *msg_flags)
{
	struct rc_ds *ds = rs->ds;
	struct rc_ds_rmsg *m;
	const uint8_t *src;
	size_t done = 0;
	int ret = ds_wait(rs, nonblocking(rs, flags), -1, have_data);

	if (ret < 0)
		return ret;
	m = &ds->rx[ds->rx_head];
	src = (m->qp == RC_DS_QP_UDP ? ds->udpq : ds->qps[m->qp].rbuf) + m->off;
	for (int i = 0; i < cnt && done < m->len; i++) {
		size_t k = m->len - done < iov[i].iov_len ? m->len - done :
			   iov[i].iov_len;

		memcpy(iov[i].iov_base, src + done, k);
		done += k;
	}
	if (msg_flags && done < m->len)
		*msg_flags |= MSG_TRUNC;
	if (from && fromlen) {
		socklen_t n = m->src.ss_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

		memcpy(from, &m->src, *fromlen < n ? *fromlen : n);
		*fromlen = n;
	}
	ret = (int)((flags & MSG_TRUNC) ? m->len : done);
	if (flags & MSG_PEEK)
		return ret;
	if (m->qp == RC_DS_QP_UDP)
		ds->uq_free[ds->uq_nfree++] = m->slot;
	else
		rc_ds_post_recv(rs, m->qp, m->slot);
	ds->rx_head = (ds->rx_head + 1) % ds->rx_cap;
	ds->rx_n--;
	return ret;
}

short rc_ds_revents(struct rc_rs *rs, short events)
{
	short re = 0;

	rc_ds_progress(rs);
	if (rs->ds->rx_n)
		re |= POLLIN;
	if (!rs->ds->sbuf || rs->ds->sqe_avail)
		re |= POLLOUT;
	return re & events;
}
