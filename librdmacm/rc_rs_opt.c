/* SPDX-License-Identifier: MIT */
/*
 * rsetsockopt, rgetsockopt and rfcntl of stream rsockets: the options
 * rsocket(7) documents.  Buffer and queue sizes take effect at connect
 * (as in rdma-core, SO_SNDBUF/SO_RCVBUF ask for twice the value, as the
 * kernel does); the TCP-level ones are kept and reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

static int get_int(const void *val, socklen_t len, int *out)
{
	if (!val || len < sizeof(int))
		return -EINVAL;
	memcpy(out, val, sizeof(int));
	return 0;
}

static int set_sol_socket(struct rc_rs *rs, int name, const void *val,
			  socklen_t len)
{
	struct linger lg;
	int v, ret;

	if (name == SO_LINGER) {
		if (!val || len < sizeof(lg))
			return -EINVAL;
		memcpy(&lg, val, sizeof(lg));
		rs->linger_off = !lg.l_onoff;
		return 0;
	}
	ret = get_int(val, len, &v);
	if (ret < 0)
		return ret;
	switch (name) {
	case SO_REUSEADDR:
		rs->reuseaddr = !!v;
		return 0;
	case SO_RCVBUF:
		if (!rs->rbuf && v > 0)
			rs->rbuf_size = (uint32_t)v << 1;
		return 0;
	case SO_SNDBUF:
		if (!rs->sbuf && v > 0)
			rs->sbuf_size = (uint32_t)v << 1;
		if (rs->sbuf_size < RC_RS_SNDLOWAT)
			rs->sbuf_size = RC_RS_SNDLOWAT << 1;
		return 0;
	case SO_KEEPALIVE:
		rs->keepalive = !!v;
		return 0;
	case SO_OOBINLINE:
		rs->oobinline = !!v;
		return 0;
	default:
		return -ENOTSUP;
	}
}

static int set_tcp(struct rc_rs *rs, int name, const void *val, socklen_t len)
{
	int v, ret = get_int(val, len, &v);

	if (ret < 0)
		return ret;
	switch (name) {
	case TCP_NODELAY:
		rs->nodelay = !!v;	/* every send goes out at once anyway */
		return 0;
	case TCP_KEEPIDLE:
		if (v <= 0)
			return -EINVAL;
		rs->keepidle = v;
		return 0;
	case TCP_KEEPCNT:
	case TCP_KEEPINTVL:
	case TCP_MAXSEG:
		return 0;
	default:
		return -ENOTSUP;
	}
}

static int set_rdma(struct rc_rs *rs, int name, const void *val, socklen_t len)
{
	uint32_t v;

	if (name == RDMA_ROUTE)
		return rs->state == RC_RS_INIT || rs->state == RC_RS_BOUND ?
			0 : -EINVAL;	/* our CM resolves the route itself */
	if (!val || len < sizeof(v))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (rs->cq)
		return -EINVAL;		/* fixed once connected */
	switch (name) {
	case RDMA_SQSIZE:
		rs->sq_size = (uint16_t)(v > RC_RS_QP_MAX ? RC_RS_QP_MAX : v);
		return 0;
	case RDMA_RQSIZE:
		rs->rq_size = (uint16_t)(v > RC_RS_QP_MAX ? RC_RS_QP_MAX : v);
		return 0;
	case RDMA_INLINE:
		rs->sq_inline = (uint16_t)(v > 0xFFFF ? 0xFFFF : v);
		return 0;
	case RDMA_IOMAPSIZE:
		/* Kept as the peer will read it back from the scaled byte. */
		rs->iomap_size = (uint16_t)rc_rs_unscale(rc_rs_scale(v));
		return 0;
	default:
		return -ENOTSUP;
	}
}

RC_EXPORT int rsetsockopt(int s, int level, int name, const void *val,
			  socklen_t len)
{
	struct rc_rs *rs = rc_rs_get(s);
	int ret;

	if (!rs)
		return rc_ret(-EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds) {
		ret = rc_ds_setopt(rs, level, name, val, len);
		pthread_mutex_unlock(&rs->lock);
		return rc_ret(ret);
	}
	switch (level) {
	case SOL_SOCKET:
		ret = set_sol_socket(rs, name, val, len);
		break;
	case IPPROTO_TCP:
		ret = set_tcp(rs, name, val, len);
		break;
	case IPPROTO_IPV6:
		ret = name == IPV6_V6ONLY ? 0 : -ENOTSUP;
		break;
	case SOL_RDMA:
		ret = set_rdma(rs, name, val, len);
		break;
	default:
		ret = -ENOTSUP;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

static int opt_value(struct rc_rs *rs, int level, int name, int *v)
{
	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_REUSEADDR: *v = rs->reuseaddr; return 0;
		case SO_RCVBUF: *v = (int)rs->rbuf_size; return 0;
		case SO_SNDBUF: *v = (int)rs->sbuf_size; return 0;
		case SO_KEEPALIVE: *v = rs->keepalive; return 0;
		case SO_OOBINLINE: *v = rs->oobinline; return 0;
		case SO_TYPE: *v = SOCK_STREAM; return 0;
		case SO_ERROR:
			*v = rs->err == EPROTO || !rs->self_shut ? rs->err : 0;
			rs->err = 0;
			return 0;
		}
		break;
	case IPPROTO_TCP:
		switch (name) {
		case TCP_NODELAY: *v = rs->nodelay; return 0;
		case TCP_KEEPIDLE: *v = rs->keepidle; return 0;
		case TCP_MAXSEG: *v = RC_RS_MAX_TRANSFER; return 0;
		}
		break;
	case SOL_RDMA:
		switch (name) {
		case RDMA_SQSIZE: *v = rs->sq_size; return 0;
		case RDMA_RQSIZE: *v = rs->rq_size; return 0;
		case RDMA_INLINE: *v = rs->sq_inline; return 0;
		case RDMA_IOMAPSIZE: *v = rs->iomap_size; return 0;
		}
		break;
	}
	return -ENOTSUP;
}

RC_EXPORT int rgetsockopt(int s, int level, int name, void *val,
			  socklen_t *len)
{
	struct rc_rs *rs = rc_rs_get(s);
	struct linger lg;
	int v = 0, ret;

	if (!rs)
		return rc_ret(-EBADF);
	if (!val || !len)
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->ds) {
		ret = rc_ds_getopt(rs, level, name, val, len);
		pthread_mutex_unlock(&rs->lock);
		return rc_ret(ret);
	}
	if (level == SOL_SOCKET && name == SO_LINGER) {
		lg = (struct linger){ .l_onoff = !rs->linger_off };
		memcpy(val, &lg, *len < sizeof(lg) ? *len : sizeof(lg));
		*len = sizeof(lg);
		pthread_mutex_unlock(&rs->lock);
		return 0;
	}
	ret = opt_value(rs, level, name, &v);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0)
		return rc_ret(ret);
	memcpy(val, &v, *len < sizeof(v) ? *len : sizeof(v));
	*len = *len < sizeof(v) ? *len : sizeof(v);
	return 0;
}

RC_EXPORT int rfcntl(int s, int cmd, ...)
{
	struct rc_rs *rs = rc_rs_get(s);
	va_list ap;
	int arg, ret = 0;

	if (!rs)
		return rc_ret(-EBADF);
	pthread_mutex_lock(&rs->lock);
	switch (cmd) {
	case F_GETFL:
		ret = rs->fl_flags;
		break;
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, int);
		va_end(ap);
		rs->fl_flags = arg & O_NONBLOCK;
		break;
	case F_GETFD:
	case F_SETFD:
		break;		/* the eventfd behind it is close-on-exec */
	default:
		ret = -ENOTSUP;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}
