/* SPDX-License-Identifier: MIT */
/*
 * rsend/rrecv and their read/write, vector and message forms for stream
 * rsockets.  A send goes out as DATA writes of growing size (2 KiB up to
 * 64 KiB: the first bytes leave early) within the peer's grant; a
 * receive copies out of the receive buffer in arrival order.  Errors as
 * a TCP socket gives them: EAGAIN when it would block, EPIPE/ECONNRESET
 * after the end, 0 at the peer's orderly end of stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

static int wait_ms(const struct rc_rs *rs, int flags)
{
	return ((rs->fl_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT)) ? 0 : -1;
}

static bool send_ready(struct rc_rs *rs)
{
	return rc_rs_can_send(rs) || !rs->writable;
}

static bool recv_ready(struct rc_rs *rs)
{
	return rc_rs_have_data(rs) || !rs->readable;
}

/* A gather cursor over the caller's iovecs. */
struct cursor {
	const struct iovec *iov;
	int cnt;
	size_t off;
};

static void gather(struct cursor *c, uint8_t *dst, size_t n)
{
	while (n && c->cnt) {
		size_t k = c->iov->iov_len - c->off;

		if (k > n)
			k = n;
		memcpy(dst, (const uint8_t *)c->iov->iov_base + c->off, k);
		dst += k;
		n -= k;
		c->off += k;
		if (c->off == c->iov->iov_len) {
			c->iov++;
			c->cnt--;
			c->off = 0;
		}
	}
}

static ssize_t sendv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		     int flags)
{
	struct cursor c = { iov, cnt, 0 };
	uint32_t olen = RC_RS_OLAP_START;
	uint8_t chunk[RC_RS_MAX_TRANSFER];
	size_t len = 0, left;
	int ret = 0;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	if (rs->state != RC_RS_CONNECTED && rs->state != RC_RS_CLOSED)
		return -ENOTCONN;
	/* Small first writes let the first bytes leave early; behind
	 * writes still in flight nothing leaves earlier, so go large. */
	if (rs->sbuf_avail < rs->sbuf_size)
		olen = RC_RS_MAX_TRANSFER;
	for (left = len; left;) {
		uint32_t n;

		if (!rc_rs_can_send(rs)) {
			ret = rc_rs_wait(rs, wait_ms(rs, flags), send_ready);
			if (ret < 0)
				break;
			if (!rs->writable) {
				/* Reset (the peer vanished or broke the
				 * protocol), or our own shutdown. */
				ret = rs->err ? -ECONNRESET : -EPIPE;
				break;
			}
		}
		n = rc_rs_xfer_size(left, &olen, rs->sbuf_avail,
				    rc_rs_grant_left(rs));
		if (cnt == 1) {
			ret = rc_rs_write_data(rs, (const uint8_t *)iov->iov_base +
					       (len - left), n);
		} else {
			gather(&c, chunk, n);
			ret = rc_rs_write_data(rs, chunk, n);
		}
		if (ret < 0)
			break;
		left -= n;
	}
	return ret < 0 && left == len ? ret : (ssize_t)(len - left);
}

/* Copies up to len bytes out, in arrival order (consuming unless peek). */
static size_t copy_out(struct rc_rs *rs, const struct iovec *iov, int cnt,
		       size_t len, bool peek)
{
	const struct rc_rs_rx *rx = &rs->rx;
	uint32_t head = rx->head, off = rs->rbuf_off;
	uint32_t mlen = rc_rs_rx_head_len(rx);
	size_t done = 0, io_off = 0;
	int io = 0;

	while (done < len && mlen && io < cnt) {
		size_t k = len - done, room = iov[io].iov_len - io_off;
		uint32_t end = rs->rbuf_size - off;

		if (k > mlen)
			k = mlen;
		if (k > room)
			k = room;
		if (k > end)
			k = end;
		memcpy((uint8_t *)iov[io].iov_base + io_off, rs->rbuf + off, k);
		done += k;
		io_off += k;
		off = (uint32_t)((off + k) % rs->rbuf_size);
		mlen -= (uint32_t)k;
		if (io_off == iov[io].iov_len) {
			io++;
			io_off = 0;
		}
		if (!peek) {
			rc_rs_rx_consume(&rs->rx, (uint32_t)k);
			mlen = rc_rs_rx_head_len(rx);
		} else if (!mlen) {
			head = (head + 1) % rx->ring;
			mlen = head != rx->tail ? rx->rmsg[head] : 0;
		}
	}
	if (!peek)
		rs->rbuf_off = off;
	return done;
}

static ssize_t recvv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		     int flags)
{
	size_t len = 0, done = 0;
	int ret = 0;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	if (rs->state != RC_RS_CONNECTED && rs->state != RC_RS_CLOSED)
		return -ENOTCONN;
	do {
		struct iovec rest[64];
		int n = 0;
		size_t skip = done;

		if (!rc_rs_have_data(rs)) {
			ret = rc_rs_wait(rs, wait_ms(rs, flags), recv_ready);
			if (ret < 0 || !rc_rs_have_data(rs))
				break;
		}
		/* The iovecs from where the last pass stopped. */
		for (int i = 0; i < cnt && n < 64; i++) {
			if (skip >= iov[i].iov_len) {
				skip -= iov[i].iov_len;
				continue;
			}
			rest[n].iov_base = (uint8_t *)iov[i].iov_base + skip;
			rest[n++].iov_len = iov[i].iov_len - skip;
			skip = 0;
		}
		done += copy_out(rs, rest, n, len - done, flags & MSG_PEEK);
		/* Grants and credits back, when due (else the CQ is the
		 * next call's to poll). */
		if (rc_rs_credits_due(rs))
			rc_rs_progress(rs);
	} while (done < len && (flags & MSG_WAITALL) && !(flags & MSG_PEEK) &&
		 rs->readable);
	if (done)
		return (ssize_t)done;
	if (ret < 0)
		return ret;
	if (rs->err && !rs->self_shut)
		return -ECONNRESET;	/* vanished or broke the protocol */
	return 0;
}

typedef ssize_t (*io_fn)(struct rc_rs *, const struct iovec *, int, int);

static ssize_t io(int s, const struct iovec *iov, int cnt, int flags,
		  io_fn fn)
{
	struct rc_rs *rs = rc_rs_get(s);
	ssize_t ret;

	if (!rs)
		return rc_ret(-EBADF);
	if (cnt < 0 || cnt > IOV_MAX || (cnt && !iov))
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds)
		ret = fn == sendv ? rc_ds_sendv(rs, iov, cnt, flags, NULL, 0) :
		      rc_ds_recvv(rs, iov, cnt, flags, NULL, NULL, NULL);
	else
		ret = fn(rs, iov, cnt, flags);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

struct sockaddr_name {
	struct sockaddr *sa;
	socklen_t *len;
};

/*
 * The forms that carry an address.  A datagram rsocket sends to dst or
 * fills in the source (from a msghdr's msg_name or rrecvfrom's); a
 * stream takes the plain path (its peer is fixed; rrecvfrom reports the
 * peer's name after).
 */
static ssize_t dgram(int s, const struct iovec *iov, int cnt, int flags,
		     const struct sockaddr *dst, socklen_t dstlen,
		     struct msghdr *msg, struct sockaddr_name *from)
{
	struct rc_rs *rs = rc_rs_get(s);
	ssize_t ret;

	if (!rs)
		return rc_ret(-EBADF);
	if (!rs->ds) {
		if (dst)
			return io(s, iov, cnt, flags, sendv);
		ret = io(s, iov, cnt, flags, recvv);
		if (ret >= 0 && from)
			rgetpeername(s, from->sa, from->len);
		if (ret >= 0 && msg)
			rgetpeername(s, msg->msg_name, &msg->msg_namelen);
		return ret;
	}
	if (cnt < 0 || cnt > IOV_MAX || (cnt && !iov))
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (dst)
		ret = rc_ds_sendv(rs, iov, cnt, flags, dst, dstlen);
	else if (msg)
		ret = rc_ds_recvv(rs, iov, cnt, flags, msg->msg_name,
				  &msg->msg_namelen, &msg->msg_flags);
	else
		ret = rc_ds_recvv(rs, iov, cnt, flags, from->sa, from->len,
				  NULL);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

RC_EXPORT ssize_t rsend(int s, const void *buf, size_t len, int flags)
{
	struct iovec v = { (void *)buf, len };

	return io(s, &v, 1, flags, sendv);
}

RC_EXPORT ssize_t rwrite(int s, const void *buf, size_t count)
{
	return rsend(s, buf, count, 0);
}

RC_EXPORT ssize_t rwritev(int s, const struct iovec *iov, int iovcnt)
{
	return io(s, iov, iovcnt, 0, sendv);
}

RC_EXPORT ssize_t rsendmsg(int s, const struct msghdr *msg, int flags)
{
	if (!msg)
		return rc_ret(-EINVAL);
	if (msg->msg_control && msg->msg_controllen)
		return rc_ret(-ENOTSUP);
	if (msg->msg_name)
		return dgram(s, msg->msg_iov, (int)msg->msg_iovlen, flags,
			     msg->msg_name, msg->msg_namelen, NULL, NULL);
	return io(s, msg->msg_iov, (int)msg->msg_iovlen, flags, sendv);
}

RC_EXPORT ssize_t rsendto(int s, const void *buf, size_t len, int flags,
			  const struct sockaddr *dst, socklen_t dstlen)
{
	struct iovec v = { (void *)buf, len };

	/* A stream has its peer: the address is ignored, as Linux's TCP
	 * does (rdma-core says EISCONN; sockperf sends this way). */
	if (dst)
		return dgram(s, &v, 1, flags, dst, dstlen, NULL, NULL);
	return rsend(s, buf, len, flags);
}

RC_EXPORT ssize_t rrecv(int s, void *buf, size_t len, int flags)
{
	struct iovec v = { buf, len };

	return io(s, &v, 1, flags, recvv);
}

RC_EXPORT ssize_t rread(int s, void *buf, size_t count)
{
	return rrecv(s, buf, count, 0);
}

RC_EXPORT ssize_t rreadv(int s, const struct iovec *iov, int iovcnt)
{
	return io(s, iov, iovcnt, 0, recvv);
}

RC_EXPORT ssize_t rrecvmsg(int s, struct msghdr *msg, int flags)
{
	if (!msg)
		return rc_ret(-EINVAL);
	msg->msg_controllen = 0;
	msg->msg_flags = 0;
	if (msg->msg_name)
		return dgram(s, msg->msg_iov, (int)msg->msg_iovlen, flags, NULL,
			     0, msg, NULL);
	return io(s, msg->msg_iov, (int)msg->msg_iovlen, flags, recvv);
}

RC_EXPORT ssize_t rrecvfrom(int s, void *buf, size_t len, int flags,
			    struct sockaddr *src, socklen_t *srclen)
{
	struct iovec v = { buf, len };
	ssize_t ret;

	if (src && srclen)
		return dgram(s, &v, 1, flags, NULL, 0, NULL,
			     &(struct sockaddr_name){ src, srclen });
	ret = rrecv(s, buf, len, flags);
	if (ret >= 0 && src && srclen)
		rgetpeername(s, src, srclen);
	return ret;
}
