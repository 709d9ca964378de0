/* SPDX-License-Identifier: MIT */
/*
 * A connection's verbs objects and buffers (rsocket(7)'s model):
 * an RC QP whose every message is an RDMA WRITE WITH IMMEDIATE, so each
 * receive is a 0-SGE work request that only carries the immediate; a
 * send buffer ring (plus RC_RS_CTRL_SLOTS 16-byte slots after it for
 * the grants control messages carry); a receive buffer the peer writes
 * into, granted half at a time; and a small target SGL the peer writes
 * its grants into.  The connect private data describes the last two.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

#define RC_RS_BUF_MIN	(8u << 10)
#define RC_RS_BUF_MAX	(64u << 20)
#define RC_RS_PAGE	4096u

static uint32_t clamp_buf(uint32_t v)
{
	if (v < RC_RS_BUF_MIN)
		v = RC_RS_BUF_MIN;
	if (v > RC_RS_BUF_MAX)
		v = RC_RS_BUF_MAX;
	return (v + 2 * RC_RS_PAGE - 1) & ~(2 * RC_RS_PAGE - 1);
}

static uint16_t clamp_q(uint32_t v, uint32_t max)
{
	if (max > RC_RS_QP_MAX)
		max = RC_RS_QP_MAX;
	if (v > max)
		v = max;
	if (v < RC_RS_QP_MIN)
		v = RC_RS_QP_MIN;
	return (uint16_t)v;
}

/* Page-aligned and whole pages, so no MR shares a page with another
 * allocation. */
static void *alloc_pages(size_t len, size_t *out_len)
{
	void *p;

	len = (len + RC_RS_PAGE - 1) & ~(size_t)(RC_RS_PAGE - 1);
	if (posix_memalign(&p, RC_RS_PAGE, len))
		return NULL;
	memset(p, 0, len);
	*out_len = len;
	return p;
}

static int create_cq(struct rc_rs *rs)
{
	struct ibv_context *v = rs->id->verbs;
	int fl;

	rs->cc = ibv_create_comp_channel(v);
	if (!rs->cc)
		return -errno;
	fl = fcntl(rs->cc->fd, F_GETFL);
	if (fl < 0 || fcntl(rs->cc->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	rs->cq = ibv_create_cq(v, rs->sq_size + rs->rq_size, rs, rs->cc, 0);
	if (!rs->cq)
		return -errno;
	return 0;
}

static int create_qp(struct rc_rs *rs, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr a = {
		.qp_context = rs,
		.send_cq = rs->cq,
		.recv_cq = rs->cq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = rs->sq_size,
			 .max_recv_wr = rs->rq_size,
			 .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = rs->sq_inline },
	};

	if (rdma_create_qp(rs->id, pd, &a))
		return -errno;
	rs->sq_inline = (uint16_t)(a.cap.max_inline_data > 0xFFFF ?
				   0xFFFF : a.cap.max_inline_data);
	return 0;
}

static int create_bufs(struct rc_rs *rs, struct ibv_pd *pd)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	rs->sbuf = alloc_pages(rs->sbuf_size + RC_RS_CTRL_SLOTS *
			       sizeof(struct rc_rs_sge), &rs->sbuf_alloc);
	rs->rbuf = alloc_pages(rs->rbuf_size, &rs->rbuf_alloc);
	rs->tsgl = alloc_pages(RC_RS_SGL_SIZE * sizeof(struct rc_rs_sge) +
			       rs->iomap_size * sizeof(struct rc_rs_iomap),
			       &rs->tsgl_alloc);
	rs->tiomap = (struct rc_rs_iomap *)(rs->tsgl + RC_RS_SGL_SIZE);
	rs->rx.rmsg = calloc((size_t)rs->rq_size + 1, sizeof(uint32_t));
	if (!rs->sbuf || !rs->rbuf || !rs->tsgl || !rs->rx.rmsg)
		return -ENOMEM;
	if (rc_rs_peermaps_init(&rs->peermaps, rs->tiomap, rs->iomap_size))
		return -ENOMEM;
	rs->smr = ibv_reg_mr(pd, rs->sbuf, rs->sbuf_alloc,
			     IBV_ACCESS_LOCAL_WRITE);
	rs->rmr = ibv_reg_mr(pd, rs->rbuf, rs->rbuf_alloc, rw);
	rs->tmr = ibv_reg_mr(pd, rs->tsgl, rs->tsgl_alloc, rw);
	if (!rs->smr || !rs->rmr || !rs->tmr)
		return errno ? -errno : -ENOMEM;
	return 0;
}

static void init_counters(struct rc_rs *rs)
{
	rs->ctrl_max = RC_RS_CTRL_SLOTS;
	rs->ctrl_seqno = 0;
	rs->sqe_avail = rs->sq_size - RC_RS_CTRL_SLOTS;
	rs->sbuf_avail = rs->sbuf_size;
	rs->sbuf_head = 0;
	/* The first half goes in the private data; the second is ours to
	 * grant as soon as the connection is up. */
	rc_rs_rx_init(&rs->rx, rs->rx.rmsg, (uint32_t)rs->rq_size + 1,
		      rs->rbuf_size);
	rs->rbuf_free = rs->rbuf_size / 2;
	rs->rbuf_off = 0;
	rs->rseq_comp = rs->rq_size / 2;
}

static int post_recvs(struct rc_rs *rs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ibv_recv_wr wr = { .wr_id = UINT64_MAX }, *bad;

		if (ibv_post_recv(rs->id->qp, &wr, &bad))
			return -EIO;
	}
	return 0;
}

int rc_rs_ep_create(struct rc_rs *rs)
{
	struct ibv_device_attr da;
	struct ibv_pd *pd;
	int ret;

	if (!rs->id->verbs)
		return -ENODEV;
	if (ibv_query_device(rs->id->verbs, &da))
		da.max_qp_wr = RC_RS_QP_MAX;
	rs->sq_size = clamp_q(rs->sq_size, (uint32_t)da.max_qp_wr);
	rs->rq_size = clamp_q(rs->rq_size, (uint32_t)da.max_qp_wr);
	rs->sbuf_size = clamp_buf(rs->sbuf_size);
	rs->rbuf_size = clamp_buf(rs->rbuf_size);
	pd = ibv_alloc_pd(rs->id->verbs);
	if (!pd)
		return -errno;
	rs->id->pd = pd;
	ret = create_cq(rs);
	if (ret == 0)
		ret = create_qp(rs, pd);
	if (ret == 0)
		ret = create_bufs(rs, pd);
	if (ret < 0)
		return ret;
	init_counters(rs);
	return post_recvs(rs, rs->rq_size);
}

void rc_rs_ep_destroy(struct rc_rs *rs)
{
	struct ibv_pd *pd = rs->id ? rs->id->pd : NULL;

	if (rs->rx.after_shut && rc_debug())
		fprintf(stderr, "librdmacm (podverbs): rsocket %d: dropped %u "
			"DATA messages the peer sent after its shutdown\n",
			rs->fd, rs->rx.after_shut);

	rc_rs_maps_free(rs);
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr)
		ibv_dereg_mr(rs->tmr);
	rs->smr = rs->rmr = rs->tmr = NULL;
	if (rs->cq) {
		if (rs->unacked)
			ibv_ack_cq_events(rs->cq, rs->unacked);
		ibv_destroy_cq(rs->cq);
		rs->cq = NULL;
	}
	if (rs->cc)
		ibv_destroy_comp_channel(rs->cc);
	rs->cc = NULL;
	if (pd) {
		ibv_dealloc_pd(pd);
		rs->id->pd = NULL;
	}
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->tsgl);
	rc_rs_peermaps_free(&rs->peermaps);
	free(rs->rx.rmsg);
	rs->sbuf = rs->rbuf = NULL;
	rs->tsgl = NULL;
	rs->rx.rmsg = NULL;
}

void rc_rs_local_conn(const struct rc_rs *rs, struct rc_rs_conn_wire *out)
{
	struct rc_rs_conn c = {
		.flags = RC_RS_FLAG_IOMAP |
			 (rc_rs_host_is_net() ? RC_RS_FLAG_NET : 0),
		.credits = rs->rq_size,
		.iomap_size = rs->iomap_size,
		.target_sgl = { .addr = (uintptr_t)rs->tsgl,
				.key = rs->tmr->rkey,
				.length = RC_RS_SGL_SIZE },
		.data_buf = { .addr = (uintptr_t)rs->rbuf,
			      .key = rs->rmr->rkey,
			      .length = rs->rbuf_size / 2 },
	};

	rc_rs_conn_encode(&c, out);
}

int rc_rs_peer_conn(struct rc_rs *rs, const void *pdata, size_t len)
{
	struct rc_rs_conn c;
	int ret = rc_rs_conn_decode(pdata, len, &c);

	if (ret < 0)
		return ret;
	rs->remote_sgl = c.target_sgl;
	/* The peer set its entry 0 from our private data: ours start at 1. */
	rs->remote_sge = 1 % c.target_sgl.length;
	rs->swap_sgl = !!(c.flags & RC_RS_FLAG_NET) != rc_rs_host_is_net();
	rs->remote_iomap = (struct rc_rs_sge){ 0 };
	if (c.flags & RC_RS_FLAG_IOMAP)
		rs->remote_iomap = (struct rc_rs_sge){
			.addr = c.target_sgl.addr + (uint64_t)c.target_sgl.length *
				sizeof(struct rc_rs_sge),
			.key = c.target_sgl.key, .length = c.iomap_size };
	rc_rs_grants_init(&rs->grants, c.data_buf);
	rs->rx.sseq_no = 0;
	rs->rx.sseq_comp = c.credits;
	rs->rx.peer_credits = c.credits;
	return 0;
}
