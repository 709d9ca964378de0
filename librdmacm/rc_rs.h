/* SPDX-License-Identifier: MIT */
/*
 * Stream rsockets (rdma/rsocket.h) over our CM and verbs.  An rsocket is
 * a number the process cannot reuse (an eventfd we hold open), mapped by
 * rc_rs_table.c to a struct rc_rs.  Each active rsocket has its own CM
 * event channel; accepted ones share their listener's (a request's id
 * lives on the listener's channel and ids cannot migrate), so a channel
 * is refcounted and whoever waits dispatches every event of it to the
 * rsocket its id belongs to (id->context).  Waiting is poll(2) on the
 * completion channel and the CM channel together: a peer that goes away
 * (DISCONNECTED) wakes a reader as data does, and no thread is needed.
 *
 * The protocol is rdma-core's (rc_rs_proto.h).  What the peer controls
 * -- its private data, immediates, the grants it RDMA-writes into our
 * target SGL -- is checked before use; its addresses and rkeys are only
 * ever handed to RDMA WRITEs, never dereferenced here.
 */
#ifndef RC_RS_H
#define RC_RS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_rs_grant.h"
#include "librdmacm/rc_rs_peermap.h"
#include "librdmacm/rc_rs_proto.h"
#include "librdmacm/rc_rs_rx.h"
#include "librdmacm/rc_rs_dgram.h"

enum rc_rs_state {
	RC_RS_INIT,
	RC_RS_BOUND,
	RC_RS_LISTENING,
	RC_RS_CONNECTED,	/* see readable/writable */
	RC_RS_CLOSED,		/* disconnected or failed: err says why */
};

struct rc_rs_chan {
	struct rdma_event_channel *ch;
	pthread_mutex_t lock;		/* reading and dispatching its events */
	int refs;			/* rsockets whose ids are on it */
};

/* A connection request a listener holds until raccept. */
struct rc_rs_req {
	struct rdma_cm_id *id;
	uint8_t pdata[sizeof(struct rc_rs_conn_wire)];
	uint8_t pdata_len;
	struct rc_rs_req *next;
};

struct rc_rs_map {
	void *buf;
	size_t len;
	uint64_t offset;
	struct ibv_mr *mr;
	uint32_t index;			/* its entry at the peer */
	struct rc_rs_map *next;
};

struct rc_rs {
	int fd;				/* the rsocket's number (an eventfd) */
	int domain;
	pthread_mutex_t lock;		/* everything below */
	enum rc_rs_state state;
	bool readable, writable;
	int err;			/* positive errno once failed */
	bool self_shut;			/* we shut both ways (POLLHUP) */
	int fl_flags;			/* rfcntl F_GETFL/F_SETFL: O_NONBLOCK */
	struct rdma_cm_id *id;
	struct rc_rs_chan *chan;

	/* CM progress, set by the dispatcher (under chan->lock). */
	enum rdma_cm_event_type cm_last;
	int cm_err;
	bool cm_gone;			/* DISCONNECTED or device gone */
	uint8_t peer_pdata[sizeof(struct rc_rs_conn_wire)];
	uint8_t peer_pdata_len;
	struct rc_rs_req *reqs, **reqs_tail;	/* listener */
	int backlog, nreqs;

	/* Options (rs_opt.c), fixed at connect. */
	uint32_t sbuf_size, rbuf_size;
	uint16_t sq_size, rq_size, sq_inline;
	int keepalive, nodelay, reuseaddr, linger_off, oobinline;
	int keepidle;
	long ka_last;			/* ms: the last keep-alive sent */

	/* Verbs. */
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	bool cq_armed;
	bool cm_look;			/* drain the CM channel at the next
					 * progress (after a wait) */
	unsigned int cm_skip;		/* progress passes since the last */
	unsigned int unacked;
	struct ibv_mr *smr, *rmr, *tmr;
	uint8_t *sbuf, *rbuf;
	struct rc_rs_sge *tsgl;		/* our target SGL (peer writes it) */
	struct rc_rs_iomap *tiomap;	/* after it: the peer's mappings */
	struct rc_rs_peermaps peermaps;	/* their copies, as their IOMAP_SGL
					 * messages complete (riowrite's) */
	uint16_t iomap_size;		/* entries of tiomap (RDMA_IOMAPSIZE) */
	struct rc_rs_sge remote_iomap;	/* the peer's: .length entries */
	struct rc_rs_map *maps;		/* riomap'ed windows of ours */
	size_t sbuf_alloc, rbuf_alloc, tsgl_alloc;

	/* Sending. */
	bool swap_sgl;			/* ends differ in byte order */
	struct rc_rs_sge remote_sgl;	/* the peer's target SGL */
	uint32_t remote_sge;		/* next entry of it to write */
	struct rc_rs_grants grants;	/* the peer's, as its SGL messages
					 * complete (rc_rs_grant.h) */
	uint32_t sqe_avail;
	uint32_t ctrl_seqno, ctrl_max;	/* control slots used / allowed */
	uint32_t sbuf_avail, sbuf_head;	/* free bytes, next offset */

	/* Receiving. */
	struct rc_rs_rx rx;		/* what the peer's messages move */
	uint16_t rseq_comp;		/* next credit point */
	uint32_t rbuf_free, rbuf_off;
	unsigned int posted;		/* receives to repost */

	struct rc_ds *ds;		/* a datagram rsocket (rc_rs_dgram.h) */
};

/* rc_rs_table.c */
int rc_rs_new(int domain, struct rc_rs **out);
/* From a listener: the options carry over. */
int rc_rs_new_child(const struct rc_rs *parent, struct rc_rs **out);
struct rc_rs *rc_rs_get(int fd);
void rc_rs_free(struct rc_rs *rs);

/* rc_rs_cm.c: channels and their events. */
int rc_rs_chan_new(struct rc_rs_chan **out);
void rc_rs_chan_ref(struct rc_rs_chan *c);
void rc_rs_chan_unref(struct rc_rs_chan *c);
/* Reads and dispatches whatever events are there; never blocks. */
void rc_rs_cm_drain(struct rc_rs_chan *c);
/* Waits (rs->lock released meanwhile) until rs's CM reaches want;
 * -errno on a failure event or after timeout_ms. */
int rc_rs_cm_wait(struct rc_rs *rs, enum rdma_cm_event_type want,
		  int timeout_ms);

/* rc_rs_ep.c: the QP, CQ and buffers of a connection. */
int rc_rs_ep_create(struct rc_rs *rs);
void rc_rs_ep_destroy(struct rc_rs *rs);
void rc_rs_local_conn(const struct rc_rs *rs, struct rc_rs_conn_wire *out);
/* Takes the peer's validated private data in. */
int rc_rs_peer_conn(struct rc_rs *rs, const void *pdata, size_t len);

/* rc_rs_iomap.c */
void rc_rs_maps_free(struct rc_rs *rs);

/* rc_rs_xfer.c */
/* One pass: completions, CM events, credits; never blocks. */
void rc_rs_progress(struct rc_rs *rs);
/* Waits until test(rs) (rs->lock held; released while asleep) for up
 * to timeout_ms (-1: no limit; 0: just look): 0, -EAGAIN when told not
 * to wait, -ETIMEDOUT. */
int rc_rs_wait(struct rc_rs *rs, int timeout_ms, bool (*test)(struct rc_rs *));
bool rc_rs_can_send(struct rc_rs *rs);
bool rc_rs_have_data(struct rc_rs *rs);
bool rc_rs_ctrl_room(struct rc_rs *rs);
/* Half the receive buffer free or half the queue read: a grant or a
 * credit update is to be sent. */
bool rc_rs_credits_due(struct rc_rs *rs);
bool rc_rs_sends_done(struct rc_rs *rs);
int rc_rs_post_ctrl(struct rc_rs *rs, enum rc_rs_ctrl ctrl);
/* One DATA write of n bytes (n within can_send's limits). */
int rc_rs_write_data(struct rc_rs *rs, const uint8_t *buf, uint32_t n);
/* A riowrite piece: an RDMA WRITE (no message, no credit) to addr. */
int rc_rs_write_direct(struct rc_rs *rs, const uint8_t *buf, uint32_t n,
		       uint64_t addr, uint32_t key);
/* A mapping of ours into entry index of the peer's iomap area. */
int rc_rs_write_iomap(struct rc_rs *rs, const struct rc_rs_iomap *m,
		      uint32_t index);
/* Bytes left in the grant being filled (takes the next if empty). */
uint32_t rc_rs_grant_left(struct rc_rs *rs);
/* The fds to poll for rs (1 or 2) and what they mean. */
int rc_rs_wait_fds(struct rc_rs *rs, int fds[2]);
/* Arms the CQ for a wait; false if something is ready already. */
bool rc_rs_arm(struct rc_rs *rs);
/* After poll: consumes the completion event if the fd had one. */
void rc_rs_after_wait(struct rc_rs *rs);
/* POLLIN/POLLOUT/POLLHUP/POLLERR of rs now. */
short rc_rs_revents(struct rc_rs *rs, short events);
/* The socket failed or ended: readable/writable off, CM disconnect. */
void rc_rs_set_closed(struct rc_rs *rs, int err);

#endif /* RC_RS_H */
