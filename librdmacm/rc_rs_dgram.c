/* SPDX-License-Identifier: MIT */
/*
 * Datagram rsockets: the socket, bind, connect, close, names, options,
 * and the two things a peer needs -- the UD QP of the source address we
 * reach it from, and once its QPN is known an address handle from a CM
 * route resolution (rdma-core does the same in its service thread).
 * I/O is rc_rs_dgram_io.c; the wire format rc_rs_dgram_proto.h.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"
#include "librdmacm/rc_rs_dgram.h"

static socklen_t sa_len(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/* Same family, port and address (rdma-core keys its peers so). */
static bool sa_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

	return x->sin6_port == y->sin6_port &&
	       !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
}

static bool sa_any(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &in6addr_any, 16);
}

int rc_ds_socket(int domain, int type, int *out)
{
	struct rc_rs *rs;
	struct rc_ds *ds;
	struct epoll_event ev = { .events = EPOLLIN };
	int ret = rc_rs_new(domain, &rs);

	if (ret < 0)
		return ret;
	ds = calloc(1, sizeof(*ds));
	if (!ds) {
		rc_rs_free(rs);
		return -ENOMEM;
	}
	rs->ds = ds;
	ds->udp = socket(domain, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ds->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ds->udp < 0 || ds->epfd < 0) {
		ret = -errno;
		goto err;
	}
	ev.data.fd = ds->udp;
	if (epoll_ctl(ds->epfd, EPOLL_CTL_ADD, ds->udp, &ev)) {
		ret = -errno;
		goto err;
	}
	if (type & SOCK_NONBLOCK)
		rs->fl_flags = O_NONBLOCK;
	rs->state = RC_RS_CONNECTED;	/* readable and writable from birth */
	rs->readable = rs->writable = true;
	*out = rs->fd;
	return 0;
err:
	rc_ds_close(rs);
	return ret;
}

/* The queues, fixed at the first QP as rdma-core fixes them: at most
 * one slot of RC_DS_MSG_MAX per buffer's worth. */
static int ep_init(struct rc_rs *rs)
{
	struct rc_ds *ds = rs->ds;
	uint32_t rq = rs->rq_size, sq = rs->sq_size;

	rq = rq > RC_DS_QP_MAX ? RC_DS_QP_MAX : rq;
	sq = sq > RC_DS_QP_MAX ? RC_DS_QP_MAX : sq;
	if (rq > rs->rbuf_size / RC_DS_MSG_MAX)
		rq = rs->rbuf_size / RC_DS_MSG_MAX;
	if (sq > rs->sbuf_size / RC_DS_MSG_MAX)
		sq = rs->sbuf_size / RC_DS_MSG_MAX;
	ds->rq_size = rq < 4 ? 4 : rq;
	ds->sq_size = sq < 4 ? 4 : sq;
	ds->sbuf = calloc(ds->sq_size, RC_DS_MSG_MAX);
	ds->sfree = calloc(ds->sq_size, sizeof(*ds->sfree));
	ds->rx_cap = RC_DS_QPS_MAX * ds->rq_size + RC_DS_UDPQ;
	ds->rx = calloc(ds->rx_cap, sizeof(*ds->rx));
	ds->udpq = calloc(RC_DS_UDPQ, RC_DS_MSG_MAX);
	if (!ds->sbuf || !ds->sfree || !ds->rx || !ds->udpq)
		return -ENOMEM;
	for (uint32_t i = 0; i < ds->sq_size; i++)
		ds->sfree[i] = i;
	ds->sqe_avail = ds->sq_size;
	for (uint32_t i = 0; i < RC_DS_UDPQ; i++)
		ds->uq_free[i] = i;
	ds->uq_nfree = RC_DS_UDPQ;
	return 0;
}

int rc_ds_post_recv(struct rc_rs *rs, int qi, uint32_t off)
{
	struct rc_ds_qp *q = &rs->ds->qps[qi];
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)q->rbuf +
			  (uint64_t)rs->ds->rq_size * RC_DS_MSG_MAX,
		  .length = RC_DS_GRH_LEN, .lkey = q->rmr->lkey },
		{ .addr = (uintptr_t)q->rbuf + off, .length = RC_DS_MSG_MAX,
		  .lkey = q->rmr->lkey },
	};
	/* wr_id: bit 63 a receive, the QP's index, the slot's offset. */
	struct ibv_recv_wr wr = {
		.wr_id = (1ull << 63) | (uint64_t)qi << 32 | off,
		.sg_list = sge, .num_sge = 2,
	}, *bad;

	return -ibv_post_recv(q->id->qp, &wr, &bad);
}

static void qp_free(struct rc_ds *ds, struct rc_ds_qp *q)
{
	if (q->cc)
		epoll_ctl(ds->epfd, EPOLL_CTL_DEL, q->cc->fd, NULL);
	if (q->id && q->id->qp)
		ibv_destroy_qp(q->id->qp);
	if (q->id)
		q->id->qp = NULL;
	if (q->smr)
		ibv_dereg_mr(q->smr);
	if (q->rmr)
		ibv_dereg_mr(q->rmr);
	if (q->cq) {
		if (q->armed) {
			struct ibv_cq *cq;
			void *ctx;

			if (ibv_get_cq_event(q->cc, &cq, &ctx) == 0)
				ibv_ack_cq_events(cq, 1);
		}
		ibv_destroy_cq(q->cq);
	}
	if (q->cc)
		ibv_destroy_comp_channel(q->cc);
	if (q->id)
		rdma_destroy_id(q->id);
	free(q->rbuf);
	memset(q, 0, sizeof(*q));
}

static int qp_create(struct rc_rs *rs, struct rc_ds_qp *q, int qi,
		     const struct sockaddr *src)
{
	struct rc_ds *ds = rs->ds;
	size_t rlen = (size_t)ds->rq_size * RC_DS_MSG_MAX + RC_DS_GRH_LEN;
	struct epoll_event ev = { .events = EPOLLIN };
	struct ibv_qp_init_attr a = { 0 };
	struct ibv_port_attr pa;
	int ret;

	memcpy(&q->src, src, sa_len(src));
	q->hdr_len = (uint8_t)rc_ds_hdr_encode(src, q->hdr);
	if (rdma_create_id(NULL, &q->id, rs, RDMA_PS_UDP) ||
	    rdma_bind_addr(q->id, (struct sockaddr *)src))
		return -errno;
	q->mtu = 256;
	if (!ibv_query_port(q->id->verbs, q->id->port_num ? q->id->port_num : 1,
			    &pa) && pa.active_mtu >= IBV_MTU_256 &&
	    pa.active_mtu <= IBV_MTU_4096)
		q->mtu = 128u << pa.active_mtu;
	q->cc = ibv_create_comp_channel(q->id->verbs);
	if (!q->cc)
		return -errno;
	if (fcntl(q->cc->fd, F_SETFL, fcntl(q->cc->fd, F_GETFL) | O_NONBLOCK))
		return -errno;
	q->cq = ibv_create_cq(q->id->verbs, (int)(ds->sq_size + ds->rq_size),
			      NULL, q->cc, 0);
	if (!q->cq)
		return -errno;
	a.send_cq = a.recv_cq = q->cq;
	a.qp_type = IBV_QPT_UD;
	a.sq_sig_all = 1;
	a.cap.max_send_wr = ds->sq_size;
	a.cap.max_recv_wr = ds->rq_size;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 2;
	a.cap.max_inline_data = rs->sq_inline;
	if (rdma_create_qp(q->id, NULL, &a))
		return -errno;
	if (a.cap.max_inline_data < rs->sq_inline)
		rs->sq_inline = (uint16_t)a.cap.max_inline_data;
	q->rbuf = calloc(1, rlen);
	if (!q->rbuf)
		return -ENOMEM;
	q->smr = ibv_reg_mr(q->id->pd, ds->sbuf,
			    (size_t)ds->sq_size * RC_DS_MSG_MAX, 0);
	q->rmr = ibv_reg_mr(q->id->pd, q->rbuf, rlen, IBV_ACCESS_LOCAL_WRITE);
	if (!q->smr || !q->rmr)
		return -errno;
	ev.data.fd = q->cc->fd;
	if (epoll_ctl(ds->epfd, EPOLL_CTL_ADD, q->cc->fd, &ev))
		return -errno;
	for (uint32_t i = 0; i < ds->rq_size; i++) {
		ret = rc_ds_post_recv(rs, qi, i * RC_DS_MSG_MAX);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The QP of source address src (with the UDP socket's port). */
static int get_qp(struct rc_rs *rs, const struct sockaddr *src, int *out)
{
	struct rc_ds *ds = rs->ds;
	int ret;

	for (int i = 0; i < ds->nqps; i++)
		if (sa_same((struct sockaddr *)&ds->qps[i].src, src)) {
			*out = i;
			return 0;
		}
	if (ds->nqps == RC_DS_QPS_MAX)
		return -ENOBUFS;
	if (!ds->sbuf) {
		ret = ep_init(rs);
		if (ret < 0)
			return ret;
	}
	ret = qp_create(rs, &ds->qps[ds->nqps], ds->nqps, src);
	if (ret < 0) {
		qp_free(ds, &ds->qps[ds->nqps]);
		return ret == -EADDRNOTAVAIL || ret == -EINVAL ? -ENODEV : ret;
	}
	*out = ds->nqps++;
	return 0;
}

/* Our address toward a: the UDP socket's, or if that is a wildcard the
 * one the pod's routing picks (a connected UDP socket's name), with the
 * UDP socket's port.  An unbound socket is bound to an ephemeral port
 * first, so the peer's answer has somewhere to come back to. */
static int src_for(struct rc_rs *rs, const struct sockaddr *a,
		   struct sockaddr_storage *src)
{
	struct sockaddr_storage tmp;
	socklen_t n = sizeof(*src);
	in_port_t port;
	int s, ret = 0;

	if (getsockname(rs->ds->udp, (struct sockaddr *)src, &n))
		return -errno;
	port = ((struct sockaddr_in *)src)->sin_port;	/* same offset in _in6 */
	if (!port) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.ss_family = (sa_family_t)rs->domain;
		if (bind(rs->ds->udp, (struct sockaddr *)&tmp,
			 sa_len((struct sockaddr *)&tmp)))
			return -errno;
		n = sizeof(*src);
		if (getsockname(rs->ds->udp, (struct sockaddr *)src, &n))
			return -errno;
		port = ((struct sockaddr_in *)src)->sin_port;
	}
	if (!sa_any((struct sockaddr *)src))
		return 0;
	s = socket(a->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	n = sizeof(*src);
	if (connect(s, a, sa_len(a)) || getsockname(s, (struct sockaddr *)src, &n))
		ret = -errno;
	close(s);
	((struct sockaddr_in *)src)->sin_port = port;
	return ret;
}

int rc_ds_get_dest(struct rc_rs *rs, const struct sockaddr *a, socklen_t len,
		   struct rc_ds_dest **out)
{
	struct rc_ds *ds = rs->ds;
	struct sockaddr_storage src;
	struct rc_ds_dest *d;
	int qi = 0, ret;

	if (!a || len < sizeof(struct sockaddr_in) ||
	    (a->sa_family != AF_INET && a->sa_family != AF_INET6) ||
	    len < sa_len(a))
		return -EINVAL;
	if (a->sa_family != rs->domain)
		return -EAFNOSUPPORT;
	for (d = ds->dests; d; d = d->next)
		if (sa_same((struct sockaddr *)&d->addr, a)) {
			*out = d;
			return 0;
		}
	if (ds->ndests >= RC_DS_DESTS_MAX) {
		ds->st.dests_full++;
		return -ENOBUFS;
	}
	ret = src_for(rs, a, &src);
	if (ret == 0)
		ret = get_qp(rs, (struct sockaddr *)&src, &qi);
	if (ret < 0)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	memcpy(&d->addr, a, sa_len(a));
	d->qp = qi;
	d->next = ds->dests;
	ds->dests = d;
	ds->ndests++;
	*out = d;
	return 0;
}

/* Which of the port's GIDs is sgid (rdma-core looks at the first 16). */
static uint8_t sgid_index(struct ibv_context *ctx, uint8_t port,
			  const union ibv_gid *sgid)
{
	union ibv_gid g;

	for (int i = 0; i < 16; i++)
		if (!ibv_query_gid(ctx, port, i, &g) &&
		    !memcmp(&g, sgid, sizeof(g)))
			return (uint8_t)i;
	return 0;
}

void rc_ds_make_ah(struct rc_rs *rs, struct rc_ds_dest *d, uint32_t qpn)
{
	struct rc_ds_qp *q = &rs->ds->qps[d->qp];
	struct sockaddr_storage src;
	struct rdma_cm_id *id;
	struct ibv_ah_attr attr = { 0 };
	struct ibv_sa_path_rec *p;

	if (d->ah) {
		ibv_destroy_ah(d->ah);
		d->ah = NULL;
	}
	memcpy(&src, &q->src, sizeof(src));
	((struct sockaddr_in *)&src)->sin_port = 0;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		goto fail;
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&d->addr, RC_DS_RESOLVE_MS) ||
	    rdma_resolve_route(id, RC_DS_RESOLVE_MS) || !id->route.path_rec) {
		rdma_destroy_id(id);
		goto fail;
	}
	p = id->route.path_rec;
	attr.is_global = 1;	/* RoCE: the GRH is the route */
	attr.grh.dgid = p->dgid;
	attr.grh.flow_label = be32toh(p->flow_label);
	attr.grh.sgid_index = sgid_index(q->id->verbs, q->id->port_num ?
					 q->id->port_num : 1, &p->sgid);
	attr.grh.hop_limit = p->hop_limit ? p->hop_limit : 64;
	attr.grh.traffic_class = p->traffic_class;
	attr.sl = p->sl;
	attr.port_num = q->id->port_num ? q->id->port_num : 1;
	rdma_destroy_id(id);
	d->ah = ibv_create_ah(q->id->pd, &attr);
	if (!d->ah)
		goto fail;
	d->qpn = qpn;
	return;
fail:
	rs->ds->st.ah_fail++;
	if (rc_debug())
		fprintf(stderr, "librdmacm (podverbs): datagram rsocket: no "
			"route to a peer (%s); sending over UDP\n",
			strerror(errno));
}

int rc_ds_bind(struct rc_rs *rs, const struct sockaddr *a, socklen_t len)
{
	if (rs->ds->nqps)
		return -EINVAL;
	return bind(rs->ds->udp, a, len) ? -errno : 0;
}

int rc_ds_connect(struct rc_rs *rs, const struct sockaddr *a, socklen_t len)
{
	struct rc_ds_dest *d;
	int ret;

	if (!a || len < sizeof(struct sockaddr_in))
		return -EINVAL;
	if (connect(rs->ds->udp, a, len))
		return -errno;
	ret = rc_ds_get_dest(rs, a, len, &d);
	if (ret < 0)
		return ret;
	rs->ds->conn = d;
	return 0;
}

static void print_stats(const struct rc_ds_stats *st)
{
	static const char *why[RC_DS_BAD_NR] = {
		"ok", "short", "tag", "version", "length", "op" };
	uint64_t sum = st->ud_err + st->send_err + st->full + st->dests_full + st->ah_fail;

	for (int i = 1; i < RC_DS_BAD_NR; i++)
		sum += st->udp_bad[i] + st->ud_bad[i];
	if (!sum)
		return;
	fprintf(stderr, "librdmacm (podverbs): datagram rsocket dropped:");
	for (int i = 1; i < RC_DS_BAD_NR; i++) {
		if (st->udp_bad[i])
			fprintf(stderr, " udp_%s=%llu", why[i],
				(unsigned long long)st->udp_bad[i]);
		if (st->ud_bad[i])
			fprintf(stderr, " ud_%s=%llu", why[i],
				(unsigned long long)st->ud_bad[i]);
	}
	fprintf(stderr, " ud_err=%llu send_err=%llu full=%llu dests_full=%llu "
		"ah_fail=%llu\n", (unsigned long long)st->ud_err,
		(unsigned long long)st->send_err, (unsigned long long)st->full,
		(unsigned long long)st->dests_full,
		(unsigned long long)st->ah_fail);
}

/* rclose: what was sent is given a moment to leave (bounded), what was
 * received and not read is dropped, as a UDP socket's close does. */
void rc_ds_close(struct rc_rs *rs)
{
	struct rc_ds *ds = rs->ds;
	struct rc_ds_dest *d;

	pthread_mutex_lock(&rs->lock);
	if (ds->sbuf && ds->nqps)
		rc_ds_drain_sends(rs, 1000);
	if (rc_debug())
		print_stats(&ds->st);
	while ((d = ds->dests) != NULL) {
		ds->dests = d->next;
		if (d->ah)
			ibv_destroy_ah(d->ah);
		free(d);
	}
	for (int i = 0; i < ds->nqps; i++)
		qp_free(ds, &ds->qps[i]);
	if (ds->udp >= 0)
		close(ds->udp);
	if (ds->epfd >= 0)
		close(ds->epfd);
	free(ds->sbuf);
	free(ds->sfree);
	free(ds->rx);
	free(ds->udpq);
	free(ds);
	rs->ds = NULL;
	pthread_mutex_unlock(&rs->lock);
	rc_rs_free(rs);
}

int rc_ds_name(struct rc_rs *rs, bool peer, struct sockaddr *a, socklen_t *len)
{
	if (!a || !len)
		return -EFAULT;
	if (peer)
		return getpeername(rs->ds->udp, a, len) ? -errno : 0;
	return getsockname(rs->ds->udp, a, len) ? -errno : 0;
}

/* rdma-core: every level but SOL_RDMA goes to the UDP socket as well;
 * the buffer sizes (twice the value asked, as Linux reports them) and
 * SOL_RDMA's queue sizes count until the first QP exists. */
int rc_ds_setopt(struct rc_rs *rs, int level, int name, const void *val,
		 socklen_t len)
{
	uint32_t v;

	if (!val || len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (level != SOL_RDMA && setsockopt(rs->ds->udp, level, name, val, len))
		return -errno;
	if (level == SOL_SOCKET && !rs->ds->sbuf) {
		if (name == SO_RCVBUF)
			rs->rbuf_size = v > (1u << 28) ? 1u << 29 : v << 1;
		if (name == SO_SNDBUF)
			rs->sbuf_size = v > (1u << 28) ? 1u << 29 : v << 1;
		if (rs->sbuf_size < RC_DS_MSG_MAX)
			rs->sbuf_size = RC_DS_MSG_MAX << 1;
	}
	if (level != SOL_RDMA)
		return 0;
	if (rs->ds->sbuf)
		return -EINVAL;		/* fixed once a QP exists */
	switch (name) {
	case RDMA_SQSIZE:
		rs->sq_size = (uint16_t)(v > RC_DS_QP_MAX ? RC_DS_QP_MAX : v);
		return 0;
	case RDMA_RQSIZE:
		rs->rq_size = (uint16_t)(v > RC_DS_QP_MAX ? RC_DS_QP_MAX : v);
		return 0;
	case RDMA_INLINE:
		rs->sq_inline = (uint16_t)(v > RC_DS_MSG_MAX ? RC_DS_MSG_MAX : v);
		return 0;
	default:
		return -ENOTSUP;
	}
}

int rc_ds_getopt(struct rc_rs *rs, int level, int name, void *val,
		 socklen_t *len)
{
	int v;

	if (level == SOL_SOCKET && (name == SO_RCVBUF || name == SO_SNDBUF ||
				    name == SO_TYPE)) {
		v = name == SO_TYPE ? SOCK_DGRAM : name == SO_RCVBUF ?
		    (int)rs->rbuf_size : (int)rs->sbuf_size;
	} else if (level == SOL_RDMA) {
		switch (name) {
		case RDMA_SQSIZE: v = rs->ds->sbuf ? (int)rs->ds->sq_size :
				      rs->sq_size; break;
		case RDMA_RQSIZE: v = rs->ds->sbuf ? (int)rs->ds->rq_size :
				      rs->rq_size; break;
		case RDMA_INLINE: v = rs->sq_inline; break;
		default: return -ENOTSUP;
		}
	} else {
		return getsockopt(rs->ds->udp, level, name, val, len) ? -errno : 0;
	}
	memcpy(val, &v, *len < sizeof(v) ? *len : sizeof(v));
	*len = *len < sizeof(v) ? *len : sizeof(v);
	return 0;
}
