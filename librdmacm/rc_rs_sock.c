/* SPDX-License-Identifier: MIT */
/*
 * rsocket, rbind, rlisten, raccept, rconnect, rshutdown, rclose and the
 * name calls of stream rsockets.  Connecting is the CM's sequence
 * (resolve address, route, then connect with our private data; the
 * peer's comes back in ESTABLISHED), done before rconnect returns, as a
 * non-blocking connect may also do.  A request waits at its listener
 * (backlog bounded) until raccept answers it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

#define RC_RS_RESOLVE_MS 2000
#define RC_RS_CONNECT_MS 30000
#define RC_RS_CLOSE_MS 5000

RC_EXPORT int rsocket(int domain, int type, int protocol)
{
	int st = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct rc_rs *rs;
	int ret, fd;

	if ((domain == AF_INET || domain == AF_INET6) && st == SOCK_DGRAM &&
	    (!protocol || protocol == IPPROTO_UDP)) {
		ret = rc_ds_socket(domain, type, &fd);
		return ret < 0 ? rc_ret(ret) : fd;
	}
	if ((domain != AF_INET && domain != AF_INET6) || st != SOCK_STREAM ||
	    (protocol && protocol != IPPROTO_TCP))
		return rc_ret(-ENOTSUP);
	ret = rc_rs_new(domain, &rs);
	if (ret < 0)
		return rc_ret(ret);
	/* A stream's buffers: RC_RS_STREAM_BUF each way, not rdma-core's
	 * 128 KiB (rc_rs_proto.h); SO_SNDBUF/SO_RCVBUF still set them. */
	rs->sbuf_size = rs->rbuf_size = RC_RS_STREAM_BUF;
	if (type & SOCK_NONBLOCK)
		rs->fl_flags = O_NONBLOCK;
	ret = rc_rs_chan_new(&rs->chan);
	/* No engine to reach is no RDMA device, as rdma-core says it. */
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		ret = -ENODEV;
	if (ret == 0 && rdma_create_id(rs->chan->ch, &rs->id, rs, RDMA_PS_TCP))
		ret = -errno;
	if (ret < 0) {
		rc_rs_chan_unref(rs->chan);
		rc_rs_free(rs);
		return rc_ret(ret);
	}
	return rs->fd;
}

RC_EXPORT int rbind(int s, const struct sockaddr *addr, socklen_t len)
{
	struct rc_rs *rs = rc_rs_get(s);
	int ret = 0;

	if (!rs)
		return rc_ret(-EBADF);
	if (!addr || len < sizeof(struct sockaddr_in))
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds)
		ret = rc_ds_bind(rs, addr, len);
	else if (rs->state != RC_RS_INIT)
		ret = -EINVAL;
	else if (rdma_bind_addr(rs->id, (struct sockaddr *)addr))
		ret = -errno;
	else
		rs->state = RC_RS_BOUND;
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

RC_EXPORT int rlisten(int s, int backlog)
{
	struct rc_rs *rs = rc_rs_get(s);
	int ret = 0;

	if (!rs)
		return rc_ret(-EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (rs->state == RC_RS_LISTENING)
		goto out;
	if (rs->state != RC_RS_BOUND) {
		ret = -EINVAL;
		goto out;
	}
	pthread_mutex_lock(&rs->chan->lock);
	rs->backlog = backlog;
	if (rdma_listen(rs->id, backlog))
		ret = -errno;
	else
		rs->state = RC_RS_LISTENING;
	pthread_mutex_unlock(&rs->chan->lock);
out:
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

static int do_connect(struct rc_rs *rs, const struct sockaddr *addr)
{
	struct rc_rs_conn_wire cd;
	struct rdma_conn_param p = { 0 };
	int ret;

	rs->cm_last = RDMA_CM_EVENT_TIMEWAIT_EXIT;	/* none yet */
	if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
			      RC_RS_RESOLVE_MS))
		return -errno;
	ret = rc_rs_cm_wait(rs, RDMA_CM_EVENT_ADDR_RESOLVED,
			    2 * RC_RS_RESOLVE_MS);
	if (ret < 0)
		return ret;
	if (rdma_resolve_route(rs->id, RC_RS_RESOLVE_MS))
		return -errno;
	ret = rc_rs_cm_wait(rs, RDMA_CM_EVENT_ROUTE_RESOLVED,
			    2 * RC_RS_RESOLVE_MS);
	if (ret < 0)
		return ret;
	ret = rc_rs_ep_create(rs);
	if (ret < 0)
		return ret;
	rc_rs_local_conn(rs, &cd);
	p.private_data = &cd;
	p.private_data_len = sizeof(cd);
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(rs->id, &p))
		return -errno;
	ret = rc_rs_cm_wait(rs, RDMA_CM_EVENT_ESTABLISHED, RC_RS_CONNECT_MS);
	if (ret < 0)
		return ret;
	ret = rc_rs_peer_conn(rs, rs->peer_pdata, rs->peer_pdata_len);
	if (ret < 0) {
		rdma_disconnect(rs->id);
		return -ECONNREFUSED;
	}
	rs->state = RC_RS_CONNECTED;
	rs->readable = rs->writable = true;
	/* Both ends are ready now: grant the second half of our buffer
	 * at once rather than at our first read. */
	rc_rs_progress(rs);
	return 0;
}

RC_EXPORT int rconnect(int s, const struct sockaddr *addr, socklen_t len)
{
	struct rc_rs *rs = rc_rs_get(s);
	int ret;

	if (!rs)
		return rc_ret(-EBADF);
	if (!addr || len < sizeof(struct sockaddr_in))
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds) {
		ret = rc_ds_connect(rs, addr, len);
		pthread_mutex_unlock(&rs->lock);
		return rc_ret(ret);
	}
	if (rs->state == RC_RS_CONNECTED)
		ret = -EISCONN;
	else if (rs->state != RC_RS_INIT && rs->state != RC_RS_BOUND)
		ret = rs->state == RC_RS_LISTENING ? -EINVAL : -ECONNABORTED;
	else
		ret = do_connect(rs, addr);
	if (ret < 0 && rs->state != RC_RS_CONNECTED) {
		rs->state = RC_RS_CLOSED;
		rs->err = -ret;
		rc_rs_ep_destroy(rs);
	}
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

/* The next live request, with the new rsocket's id set (under the
 * channel's lock, so no event of it goes to the listener instead). */
static struct rc_rs_req *take_req(struct rc_rs *l, struct rc_rs *rs)
{
	struct rc_rs_req *r;

	pthread_mutex_lock(&l->chan->lock);
	r = l->reqs;
	if (r) {
		l->reqs = r->next;
		if (!l->reqs)
			l->reqs_tail = &l->reqs;
		l->nreqs--;
		rs->id = r->id;
		r->id->context = rs;
	}
	pthread_mutex_unlock(&l->chan->lock);
	return r;
}

static int answer(struct rc_rs *rs, struct rc_rs_req *r)
{
	struct rc_rs_conn_wire cd;
	struct rdma_conn_param p = { 0 };
	int ret = rc_rs_peer_conn(rs, r->pdata, r->pdata_len);

	if (ret == 0)
		ret = rc_rs_ep_create(rs);
	if (ret < 0)
		return ret;
	rc_rs_local_conn(rs, &cd);
	p.private_data = &cd;
	p.private_data_len = sizeof(cd);
	p.flow_control = 1;
	p.rnr_retry_count = 7;
	if (rdma_accept(rs->id, &p))
		return -errno;
	rs->state = RC_RS_CONNECTED;
	rs->readable = rs->writable = true;
	return 0;
}

static void drop(struct rc_rs *rs)
{
	struct rc_rs_chan *c = rs->chan;

	rc_rs_ep_destroy(rs);
	pthread_mutex_lock(&c->lock);
	if (rs->id)
		rdma_destroy_id(rs->id);
	pthread_mutex_unlock(&c->lock);
	rc_rs_chan_unref(c);
	rc_rs_free(rs);
}

static int accept_one(struct rc_rs *l, int *out)
{
	struct rc_rs_req *r;
	struct rc_rs *rs;
	int ret = rc_rs_new_child(l, &rs);

	if (ret < 0)
		return ret;
	rc_rs_chan_ref(l->chan);
	rs->chan = l->chan;
	pthread_mutex_lock(&rs->lock);
	r = take_req(l, rs);
	if (!r) {
		pthread_mutex_unlock(&rs->lock);
		drop(rs);
		return -EAGAIN;
	}
	ret = answer(rs, r);
	free(r);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0) {
		if (rc_debug())
			fprintf(stderr, "librdmacm (podverbs): rsocket request "
				"refused: %s\n", strerror(-ret));
		rdma_reject(rs->id, NULL, 0);
		drop(rs);
		return -ECONNABORTED;
	}
	*out = rs->fd;
	return 0;
}

RC_EXPORT int raccept(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rc_rs *l = rc_rs_get(s);
	int fd = -1, ret;

	if (!l)
		return rc_ret(-EBADF);
	pthread_mutex_lock(&l->lock);
	if (l->ds || l->state != RC_RS_LISTENING) {
		pthread_mutex_unlock(&l->lock);
		return rc_ret(-EINVAL);
	}
	for (;;) {
		struct pollfd p = { .fd = l->chan->ch->fd, .events = POLLIN };

		rc_rs_cm_drain(l->chan);
		ret = accept_one(l, &fd);
		/* A refused request (bad private data) is not the caller's
		 * error: wait for the next, as accept(2) does. */
		if (ret == 0 || (ret != -EAGAIN && ret != -ECONNABORTED))
			break;
		if (l->fl_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		pthread_mutex_unlock(&l->lock);
		poll(&p, 1, 1000);
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	if (ret < 0)
		return rc_ret(ret);
	if (addr && len)
		rgetpeername(fd, addr, len);
	return fd;
}

static bool ctrl_room_or_closed(struct rc_rs *rs)
{
	return rc_rs_ctrl_room(rs) || rs->state != RC_RS_CONNECTED;
}

/* Waits up to RC_RS_CLOSE_MS for test (a peer that stopped acking must
 * not hold rclose forever). */
static void wait_bounded(struct rc_rs *rs, bool (*test)(struct rc_rs *))
{
	rc_rs_wait(rs, RC_RS_CLOSE_MS, test);
}

static int shut(struct rc_rs *rs, int how)
{
	enum rc_rs_ctrl ctrl;

	if (rs->state != RC_RS_CONNECTED) {
		rs->readable = rs->writable = false;
		return rs->state == RC_RS_CLOSED ? 0 : -ENOTCONN;
	}
	if (how == SHUT_RDWR) {
		rs->readable = rs->writable = false;
		ctrl = RC_RS_CTRL_DISCONNECT;
	} else if (how == SHUT_WR) {
		rs->writable = false;
		ctrl = rs->readable ? RC_RS_CTRL_SHUTDOWN : RC_RS_CTRL_DISCONNECT;
	} else if (how == SHUT_RD) {
		rs->readable = false;
		if (rs->writable)
			return 0;
		ctrl = RC_RS_CTRL_DISCONNECT;
	} else {
		return -EINVAL;
	}
	wait_bounded(rs, ctrl_room_or_closed);
	if (rs->state == RC_RS_CONNECTED && rc_rs_ctrl_room(rs))
		rc_rs_post_ctrl(rs, ctrl);
	wait_bounded(rs, rc_rs_sends_done);
	if (ctrl == RC_RS_CTRL_DISCONNECT) {
		rs->self_shut = true;
		rc_rs_set_closed(rs, 0);
	}
	return 0;
}

RC_EXPORT int rshutdown(int s, int how)
{
	struct rc_rs *rs = rc_rs_get(s);
	int ret;

	if (!rs)
		return rc_ret(-EBADF);
	pthread_mutex_lock(&rs->lock);
	ret = rs->ds ? -EOPNOTSUPP : shut(rs, how);
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

RC_EXPORT int rclose(int s)
{
	struct rc_rs *rs = rc_rs_get(s);
	struct rc_rs_req *r;

	if (!rs)
		return rc_ret(-EBADF);
	if (rs->ds) {
		rc_ds_close(rs);
		return 0;
	}
	pthread_mutex_lock(&rs->lock);
	if (rs->state == RC_RS_CONNECTED)
		shut(rs, SHUT_RDWR);
	pthread_mutex_lock(&rs->chan->lock);
	rs->state = RC_RS_CLOSED;
	while ((r = rs->reqs) != NULL) {
		rs->reqs = r->next;
		rdma_reject(r->id, NULL, 0);
		rdma_destroy_id(r->id);
		free(r);
	}
	pthread_mutex_unlock(&rs->chan->lock);
	pthread_mutex_unlock(&rs->lock);
	drop(rs);
	return 0;
}

static int copy_name(const struct sockaddr *sa, struct sockaddr *addr,
		     socklen_t *len)
{
	socklen_t n = sa->sa_family == AF_INET6 ?
		sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (!addr || !len)
		return -EFAULT;
	memcpy(addr, sa, *len < n ? *len : n);
	*len = n;
	return 0;
}

RC_EXPORT int rgetpeername(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rc_rs *rs = rc_rs_get(s);

	if (!rs)
		return rc_ret(-EBADF);
	if (rs->ds)
		return rc_ret(rc_ds_name(rs, true, addr, len));
	if (rs->state != RC_RS_CONNECTED && rs->state != RC_RS_CLOSED)
		return rc_ret(-ENOTCONN);
	return rc_ret(copy_name(rdma_get_peer_addr(rs->id), addr, len));
}

RC_EXPORT int rgetsockname(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rc_rs *rs = rc_rs_get(s);

	if (!rs)
		return rc_ret(-EBADF);
	if (rs->ds)
		return rc_ret(rc_ds_name(rs, false, addr, len));
	return rc_ret(copy_name(rdma_get_local_addr(rs->id), addr, len));
}
