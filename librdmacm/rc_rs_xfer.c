/* SPDX-License-Identifier: MIT */
/*
 * The data path of a stream rsocket: completions, credits and grants,
 * and the waits.  Sending writes into the grant the peer gave us (its
 * receive buffer) with DATA immediates, at most one message per credit;
 * receiving queues each DATA message's length and copies out of our
 * receive buffer in order, granting a half back once it is free and
 * raising the credit limit once half the queue was read (rdma-core's
 * thresholds, so both ends keep the same rhythm).
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

#define WR_DATA	(1ull << 32)
#define WR_CTRL	(2ull << 32)
#define WR_RECV	UINT64_MAX
#define RC_RS_WAIT_SLICE_MS 1000

static void proto_error(struct rc_rs *rs, const char *what, uint32_t v)
{
	if (rc_debug())
		fprintf(stderr, "librdmacm (podverbs): rsocket %d: peer sent "
			"%s (0x%x); connection reset (rx: queued %u, avail "
			"%u of %u, seq %u; rbuf %u, posted %u)\n", rs->fd,
			what, v, rs->rx.queued, rs->rx.rbuf_avail,
			rs->rx.rbuf_size, rs->rx.rseq_no, rs->rbuf_size,
			(unsigned)rs->posted);
	rc_rs_set_closed(rs, EPROTO);
}

void rc_rs_set_closed(struct rc_rs *rs, int err)
{
	rs->readable = rs->writable = false;
	if (err && !rs->err)
		rs->err = err;
	if (rs->state == RC_RS_CONNECTED) {
		if (rc_debug())
			fprintf(stderr, "librdmacm (podverbs): rsocket %d "
				"(qpn 0x%x): closing (%s)\n", rs->fd,
				rs->id->qp ? rs->id->qp->qp_num : 0,
				err ? strerror(err) : "orderly");
		rs->state = RC_RS_CLOSED;
		rdma_disconnect(rs->id);	/* QP to ERR: flushes the rest */
	}
}

/* Under PODVERBS_DEBUG: which completion ends a connection. */
static void log_bad_wc(const struct rc_rs *rs, const char *what,
		       const struct ibv_wc *wc)
{
	if (rc_debug() && rs->state == RC_RS_CONNECTED)
		fprintf(stderr, "librdmacm (podverbs): rsocket %d: %s "
			"completion 0x%llx: %s (vendor_err %u)\n", rs->fd,
			what, (unsigned long long)wc->wr_id,
			ibv_wc_status_str(wc->status), wc->vendor_err);
}

static void on_recv(struct rc_rs *rs, const struct ibv_wc *wc)
{
	const char *why = "";
	uint32_t msg;
	int act;

	if (wc->status != IBV_WC_SUCCESS) {
		log_bad_wc(rs, "receive", wc);
		if (rs->state == RC_RS_CONNECTED)
			rc_rs_set_closed(rs, ECONNRESET);
		return;
	}
	rs->posted++;
	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		proto_error(rs, "a message without immediate", 0);
		return;
	}
	msg = be32toh(wc->imm_data);
	act = rc_rs_rx_msg(&rs->rx, msg, &why);
	/* Its grant, if it wrote one, is in our target SGL only now. */
	if (act >= 0 && rc_rs_msg_op(msg) == RC_RS_OP_SGL &&
	    rc_rs_grants_arrived(&rs->grants, wc->byte_len) < 0) {
		act = -EPROTO;
		why = "a grant of a wrong size or into an entry not taken";
	}
	/* Likewise an iomap entry: copied and checked only now. */
	if (act >= 0 && rc_rs_msg_op(msg) == RC_RS_OP_IOMAP_SGL)
		act = rc_rs_peermaps_arrived(&rs->peermaps, rc_rs_msg_data(msg),
					     wc->byte_len, rs->swap_sgl, &why);
	if (act < 0) {
		proto_error(rs, why, msg);
	} else if (act == RC_RS_RX_DISCONNECT) {
		rc_rs_set_closed(rs, 0);
	} else if (act == RC_RS_RX_SHUTDOWN) {
		rs->readable = false;
		if (!rs->writable)
			rc_rs_set_closed(rs, 0);
	}
}

static void on_send(struct rc_rs *rs, const struct ibv_wc *wc)
{
	if ((wc->wr_id & ~0xFFFFFFFFull) == WR_DATA) {
		rs->sqe_avail++;
		rs->sbuf_avail += (uint32_t)wc->wr_id;
	} else {
		rs->ctrl_max++;
	}
	if (wc->status != IBV_WC_SUCCESS && rs->state == RC_RS_CONNECTED) {
		log_bad_wc(rs, "send", wc);
		rc_rs_set_closed(rs, ECONNRESET);
	}
}

/* The receives the completions took, again: one chained post per
 * batch (the soft device may ring its doorbell at each post). */
#define RC_RS_REPOST_BATCH 32

static void repost_recvs(struct rc_rs *rs)
{
	struct ibv_recv_wr wr[RC_RS_REPOST_BATCH], *bad;

	while (rs->posted && rs->state == RC_RS_CONNECTED) {
		unsigned int n = rs->posted < RC_RS_REPOST_BATCH ?
				 rs->posted : RC_RS_REPOST_BATCH;

		for (unsigned int i = 0; i < n; i++)
			wr[i] = (struct ibv_recv_wr){
				.wr_id = WR_RECV,
				.next = i + 1 < n ? &wr[i + 1] : NULL };
		if (ibv_post_recv(rs->id->qp, wr, &bad)) {
			rc_rs_set_closed(rs, EIO);
			break;
		}
		rs->posted -= n;
	}
}

static void poll_cq(struct rc_rs *rs)
{
	struct ibv_wc wc[16];
	int n;

	if (!rs->cq)
		return;
	/* A short batch emptied the CQ: no second, empty poll (which
	 * the soft device answers with a yield of the CPU). */
	do {
		n = ibv_poll_cq(rs->cq, 16, wc);
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == WR_RECV)
				on_recv(rs, &wc[i]);
			else
				on_send(rs, &wc[i]);
		}
	} while (n == 16);
	repost_recvs(rs);
}

static int post_write(struct rc_rs *rs, struct ibv_sge *sg, int nsge,
		      uint64_t wr_id, uint32_t imm, int flags, uint64_t addr,
		      uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = nsge,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = flags,
		.imm_data = htobe32(imm),
		.wr.rdma = { .remote_addr = addr, .rkey = rkey },
	}, *bad;

	if (ibv_post_send(rs->id->qp, &wr, &bad)) {
		rc_rs_set_closed(rs, EIO);
		return -EIO;
	}
	return 0;
}

bool rc_rs_ctrl_room(struct rc_rs *rs)
{
	return rs->ctrl_seqno != rs->ctrl_max;
}

/* A credit update, with a grant of the next free half when there is one. */
static void send_credits(struct rc_rs *rs)
{
	uint32_t half = rs->rbuf_size / 2;
	uint16_t limit = (uint16_t)(rs->rx.rseq_no + rs->rq_size);
	uint32_t imm = rc_rs_msg(RC_RS_OP_SGL, limit);
	struct rc_rs_sge g, *slot;
	struct ibv_sge sg;

	slot = (struct rc_rs_sge *)(rs->sbuf + rs->sbuf_size) +
	       (rs->ctrl_seqno & (RC_RS_CTRL_SLOTS - 1));
	rs->ctrl_seqno++;
	rs->rseq_comp = (uint16_t)(rs->rx.rseq_no + rs->rq_size / 2);
	if (rs->rx.rbuf_avail < half) {
		post_write(rs, NULL, 0, WR_CTRL, imm, 0, rs->remote_sgl.addr,
			   rs->remote_sgl.key);
		return;
	}
	g = (struct rc_rs_sge){ .addr = (uintptr_t)(rs->rbuf + rs->rbuf_free),
				.key = rs->rmr->rkey, .length = half };
	*slot = rc_rs_sge_to_peer(g, rs->swap_sgl);
	sg = (struct ibv_sge){ .addr = (uintptr_t)slot, .length = sizeof(*slot),
			       .lkey = rs->smr->lkey };
	if (post_write(rs, &sg, 1, WR_CTRL, imm, 0, rs->remote_sgl.addr +
		       (uint64_t)rs->remote_sge * sizeof(*slot),
		       rs->remote_sgl.key) < 0)
		return;
	rs->rx.rbuf_avail -= half;
	rs->rbuf_free = (rs->rbuf_free + half) % rs->rbuf_size;
	rs->remote_sge = (rs->remote_sge + 1) % rs->remote_sgl.length;
}

bool rc_rs_credits_due(struct rc_rs *rs)
{
	return rs->state == RC_RS_CONNECTED &&
	       (rs->rx.rbuf_avail >= rs->rbuf_size / 2 ||
		rc_rs_seq_diff(rs->rx.rseq_no, rs->rseq_comp) >= 0);
}

static void update_credits(struct rc_rs *rs)
{
	if (rc_rs_ctrl_room(rs) && rc_rs_credits_due(rs))
		send_credits(rs);
}

int rc_rs_post_ctrl(struct rc_rs *rs, enum rc_rs_ctrl ctrl)
{
	struct rc_rs_ctrl_wr c;
	struct ibv_send_wr wr = { .wr_id = WR_CTRL,
				  .opcode = IBV_WR_RDMA_WRITE }, *bad;

	rc_rs_ctrl_encode(ctrl, rs->remote_sgl.addr, rs->remote_sgl.key, &c);
	rs->ctrl_seqno++;
	if (c.with_imm)
		return post_write(rs, NULL, 0, WR_CTRL, c.imm, 0, c.addr,
				  c.rkey);
	/* A keep-alive (rc_rs_proto.h): no immediate, no receive used. */
	wr.wr.rdma.remote_addr = c.addr;
	wr.wr.rdma.rkey = c.rkey;
	if (ibv_post_send(rs->id->qp, &wr, &bad)) {
		rc_rs_set_closed(rs, EIO);
		return -EIO;
	}
	return 0;
}

static void sync_cm(struct rc_rs *rs)
{
	bool gone;
	int err;

	pthread_mutex_lock(&rs->chan->lock);
	gone = rs->cm_gone;
	err = rs->cm_err;
	pthread_mutex_unlock(&rs->chan->lock);
	if (rs->state != RC_RS_CONNECTED || (!gone && !err))
		return;
	/* What the peer sent before it went is in the CQ: take it first,
	 * so an orderly close is seen as one. */
	poll_cq(rs);
	if (rs->state == RC_RS_CONNECTED) {
		if (rc_debug())
			fprintf(stderr, "librdmacm (podverbs): rsocket %d: "
				"its CM id %s\n", rs->fd,
				gone ? "was disconnected" : "failed");
		rc_rs_set_closed(rs, ECONNRESET);
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * SO_KEEPALIVE: a keep-alive control message every TCP_KEEPIDLE seconds
 * while the rsocket is used (a blocked reader's wait comes here each
 * second), so a peer that vanished without a word (its node gone) shows
 * as a failed send: the reset reaches the reader.  rdma-core sends them
 * from a thread; we have none, so an rsocket nobody calls sends none.
 */
static void keepalive(struct rc_rs *rs)
{
	long now;

	if (!rs->keepalive || rs->state != RC_RS_CONNECTED ||
	    !rc_rs_ctrl_room(rs))
		return;
	now = now_ms();
	if (!rs->ka_last)
		rs->ka_last = now;
	if (now - rs->ka_last < (long)rs->keepidle * 1000)
		return;
	rs->ka_last = now;
	rc_rs_post_ctrl(rs, RC_RS_CTRL_KEEPALIVE);
}

/*
 * The CM channel is read (a system call, mostly answering EAGAIN) at
 * every pass until the connection is up, then after each wait (poll(2)
 * also watched its fd: what woke us may be a DISCONNECTED) and every
 * RC_RS_CM_EVERY passes of a busy connection, which never waits: a
 * peer that vanished mid-stream shows within a few calls (its sends and
 * writes fail on their own too).
 */
#define RC_RS_CM_EVERY 32

static bool cm_due(struct rc_rs *rs)
{
	if (rs->state != RC_RS_CONNECTED || rs->cm_look ||
	    ++rs->cm_skip >= RC_RS_CM_EVERY) {
		rs->cm_look = false;
		rs->cm_skip = 0;
		return true;
	}
	return false;
}

void rc_rs_progress(struct rc_rs *rs)
{
	poll_cq(rs);
	keepalive(rs);
	if (rs->chan && cm_due(rs)) {
		rc_rs_cm_drain(rs->chan);
		sync_cm(rs);
	}
	update_credits(rs);
}

/* The grant to fill: the current one, or the next the peer wrote whose
 * SGL message completed (rc_rs_grant.h: never one still being placed). */
uint32_t rc_rs_grant_left(struct rc_rs *rs)
{
	return rc_rs_grants_left(&rs->grants, rs->tsgl, rs->swap_sgl);
}

bool rc_rs_can_send(struct rc_rs *rs)
{
	return rs->state == RC_RS_CONNECTED && rs->writable &&
	       rs->sqe_avail && rs->sbuf_avail >= RC_RS_SNDLOWAT &&
	       rs->rx.sseq_no != rs->rx.sseq_comp && rc_rs_grant_left(rs);
}

bool rc_rs_have_data(struct rc_rs *rs)
{
	return !rc_rs_rx_empty(&rs->rx);
}

bool rc_rs_sends_done(struct rc_rs *rs)
{
	return rs->state != RC_RS_CONNECTED ||
	       (rs->ctrl_max - rs->ctrl_seqno + rs->sqe_avail == rs->sq_size);
}

/* Puts n bytes from buf on the wire towards addr/key: inline when
 * small, else through the send ring (two SGEs where it wraps); with an
 * immediate (a message: it takes a credit) or without (riowrite). */
static int write_payload(struct rc_rs *rs, const uint8_t *buf, uint32_t n,
			 uint64_t addr, uint32_t key, bool msg, uint32_t imm)
{
	struct ibv_sge sg[2];
	int nsge = 1, flags = 0;

	if (n <= rs->sq_inline) {
		sg[0] = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = n };
		flags = IBV_SEND_INLINE;
	} else {
		uint32_t room = rs->sbuf_size - rs->sbuf_head;
		uint32_t first = n < room ? n : room;

		memcpy(rs->sbuf + rs->sbuf_head, buf, first);
		sg[0] = (struct ibv_sge){ .addr = (uintptr_t)(rs->sbuf +
							      rs->sbuf_head),
					  .length = first,
					  .lkey = rs->smr->lkey };
		if (first < n) {
			memcpy(rs->sbuf, buf + first, n - first);
			sg[1] = (struct ibv_sge){ .addr = (uintptr_t)rs->sbuf,
						  .length = n - first,
						  .lkey = rs->smr->lkey };
			nsge = 2;
		}
		rs->sbuf_head = (rs->sbuf_head + n) % rs->sbuf_size;
	}
	if (msg)
		rs->rx.sseq_no++;
	rs->sqe_avail--;
	rs->sbuf_avail -= n;
	if (!msg) {
		struct ibv_send_wr wr = {
			.wr_id = WR_DATA | n, .sg_list = sg, .num_sge = nsge,
			.opcode = IBV_WR_RDMA_WRITE, .send_flags = flags,
			.wr.rdma = { .remote_addr = addr, .rkey = key },
		}, *bad;

		if (ibv_post_send(rs->id->qp, &wr, &bad)) {
			rc_rs_set_closed(rs, EIO);
			return -EIO;
		}
		return 0;
	}
	return post_write(rs, sg, nsge, WR_DATA | n, imm, flags, addr, key);
}

int rc_rs_write_data(struct rc_rs *rs, const uint8_t *buf, uint32_t n)
{
	uint64_t addr;
	uint32_t key;

	rc_rs_grants_use(&rs->grants, n, &addr, &key);
	return write_payload(rs, buf, n, addr, key, true,
			     rc_rs_msg(RC_RS_OP_DATA, n));
}

int rc_rs_write_direct(struct rc_rs *rs, const uint8_t *buf, uint32_t n,
		       uint64_t addr, uint32_t key)
{
	return write_payload(rs, buf, n, addr, key, false, 0);
}

int rc_rs_write_iomap(struct rc_rs *rs, const struct rc_rs_iomap *m,
		      uint32_t index)
{
	struct rc_rs_iomap w = rc_rs_iomap_swap(*m, rs->swap_sgl);

	return write_payload(rs, (const uint8_t *)&w, sizeof(w),
			     rs->remote_iomap.addr + (uint64_t)index * sizeof(w),
			     rs->remote_iomap.key, true,
			     rc_rs_msg(RC_RS_OP_IOMAP_SGL, index));
}

int rc_rs_wait_fds(struct rc_rs *rs, int fds[2])
{
	int n = 0;

	if (rs->ds) {
		fds[0] = rs->ds->epfd;
		return 1;
	}
	if (rs->cc && rs->state == RC_RS_CONNECTED)
		fds[n++] = rs->cc->fd;
	if (rs->chan)
		fds[n++] = rs->chan->ch->fd;
	return n;
}

bool rc_rs_arm(struct rc_rs *rs)
{
	if (rs->ds)
		return rc_ds_arm(rs);
	if (!rs->cq || rs->state != RC_RS_CONNECTED || rs->cq_armed)
		return true;
	ibv_req_notify_cq(rs->cq, 0);
	rs->cq_armed = true;
	return false;	/* look once more before sleeping */
}

void rc_rs_after_wait(struct rc_rs *rs)
{
	struct ibv_cq *cq;
	void *ctx;

	if (rs->ds) {
		rc_ds_after_wait(rs);
		return;
	}
	rs->cm_look = true;
	if (!rs->cc || !rs->cq_armed)
		return;
	if (ibv_get_cq_event(rs->cc, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		rs->cq_armed = false;
	}
}

int rc_rs_wait(struct rc_rs *rs, int timeout_ms, bool (*test)(struct rc_rs *))
{
	long end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);

	for (;;) {
		struct pollfd p[2];
		int fds[2], n, slice = RC_RS_WAIT_SLICE_MS;

		rc_rs_progress(rs);
		if (test(rs))
			return 0;
		if (!timeout_ms)
			return -EAGAIN;
		if (timeout_ms > 0) {
			long left = end - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			if (left < slice)
				slice = (int)left;
		}
		if (!rc_rs_arm(rs))
			continue;
		n = rc_rs_wait_fds(rs, fds);
		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		pthread_mutex_unlock(&rs->lock);
		poll(p, (nfds_t)n, slice);
		pthread_mutex_lock(&rs->lock);
		rc_rs_after_wait(rs);
	}
}

/* What a connected rsocket is ready for without looking at its CQ. */
static short ready_now(struct rc_rs *rs)
{
	short re = 0;

	if (rc_rs_have_data(rs) || !rs->readable)
		re |= POLLIN;
	if (rc_rs_can_send(rs))
		re |= POLLOUT;
	return re;
}

short rc_rs_revents(struct rc_rs *rs, short events)
{
	short re = 0;

	if (rs->ds)
		return rc_ds_revents(rs, events);
	/* Ready already (a reader's queued data, a writer's free space):
	 * the answer needs no poll of the CQ, which is the next read's or
	 * write's to do. */
	if (rs->state == RC_RS_CONNECTED) {
		re = ready_now(rs) & events;
		if (re)
			return re;
	}
	rc_rs_progress(rs);
	switch (rs->state) {
	case RC_RS_LISTENING:
		pthread_mutex_lock(&rs->chan->lock);
		if (rs->reqs)
			re |= POLLIN;
		pthread_mutex_unlock(&rs->chan->lock);
		return re & events;
	case RC_RS_CONNECTED:
		return ready_now(rs) & events;
	case RC_RS_CLOSED:
		/* As TCP: the peer's orderly close is an end of file to
		 * read, not a hang-up; a reset or our own shutdown is. */
		re = events & (POLLIN | POLLOUT);
		if (rs->err)
			re |= POLLERR;
		if (rs->err || rs->self_shut)
			re |= POLLHUP;
		return re;
	default:
		return (short)((events & POLLOUT) | POLLHUP);
	}
}
