/* SPDX-License-Identifier: MIT */
/*
 * The CM side of rsockets: refcounted event channels, and the one place
 * their events are read.  Whoever waits on a channel (a connecting
 * rsocket, a listener, any accepted rsocket sharing its listener's
 * channel) drains it here; each event goes to the rsocket of its id
 * (id->context) and is acknowledged at once, so no event is held while
 * an id is destroyed (under the same lock).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "librdmacm/rc_rs.h"

#define RC_RS_BACKLOG_MAX 1024

int rc_rs_chan_new(struct rc_rs_chan **out)
{
	struct rc_rs_chan *c = calloc(1, sizeof(*c));
	int fl;

	if (!c)
		return -ENOMEM;
	c->ch = rdma_create_event_channel();
	if (!c->ch) {
		int ret = -errno;

		free(c);
		return ret;
	}
	/* Drained without blocking; waits are poll(2)s. */
	fl = fcntl(c->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int ret = -errno;

		rdma_destroy_event_channel(c->ch);
		free(c);
		return ret;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->refs = 1;
	*out = c;
	return 0;
}

void rc_rs_chan_ref(struct rc_rs_chan *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
}

void rc_rs_chan_unref(struct rc_rs_chan *c)
{
	int left;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	left = --c->refs;
	pthread_mutex_unlock(&c->lock);
	if (left)
		return;
	rdma_destroy_event_channel(c->ch);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int status_err(int status, int dflt)
{
	return status < 0 ? -status : dflt;
}

/* A connection request for listener l: queued (its private data copied)
 * until raccept, or refused when the backlog is full. */
static void on_request(struct rc_rs *l, struct rdma_cm_event *e)
{
	struct rc_rs_req *r;
	size_t n = e->param.conn.private_data_len;
	int cap = l->backlog > 0 ? l->backlog : 1;

	if (cap > RC_RS_BACKLOG_MAX)
		cap = RC_RS_BACKLOG_MAX;
	r = l->state == RC_RS_LISTENING && l->nreqs < cap ?
		calloc(1, sizeof(*r)) : NULL;
	if (!r) {
		rdma_reject(e->id, NULL, 0);
		rdma_destroy_id(e->id);
		return;
	}
	r->id = e->id;
	if (n > sizeof(r->pdata))
		n = sizeof(r->pdata);
	if (e->param.conn.private_data)
		memcpy(r->pdata, e->param.conn.private_data, n);
	r->pdata_len = (uint8_t)n;
	*l->reqs_tail = r;
	l->reqs_tail = &r->next;
	l->nreqs++;
}

/* An event of an id still queued at listener l (the requester left). */
static void on_queued(struct rc_rs *l, struct rdma_cm_event *e)
{
	for (struct rc_rs_req *r = l->reqs; r; r = r->next)
		if (r->id == e->id &&
		    e->event != RDMA_CM_EVENT_ESTABLISHED)
			r->pdata_len = 0;	/* raccept drops it */
}

static void dispatch(struct rdma_cm_event *e)
{
	struct rc_rs *rs = e->id->context;

	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (e->listen_id && e->listen_id->context)
			on_request(e->listen_id->context, e);
		return;
	}
	if (!rs)
		return;
	if (rs->id != e->id) {
		on_queued(rs, e);
		return;
	}
	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rs->cm_last = e->event;
		break;
	case RDMA_CM_EVENT_ESTABLISHED: {
		size_t n = e->param.conn.private_data_len;

		if (n > sizeof(rs->peer_pdata))
			n = sizeof(rs->peer_pdata);
		if (e->param.conn.private_data)
			memcpy(rs->peer_pdata, e->param.conn.private_data, n);
		rs->peer_pdata_len = (uint8_t)n;
		rs->cm_last = e->event;
		break;
	}
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		rs->cm_err = status_err(e->status, EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rs->cm_err = ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		rs->cm_err = ETIMEDOUT;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		rs->cm_gone = true;
		break;
	default:
		break;
	}
}

void rc_rs_cm_drain(struct rc_rs_chan *c)
{
	struct rdma_cm_event *e;

	pthread_mutex_lock(&c->lock);
	while (rdma_get_cm_event(c->ch, &e) == 0) {
		struct rdma_cm_event copy = *e;

		/* The request's private data is copied in on_request. */
		dispatch(&copy);
		rdma_ack_cm_event(e);
	}
	pthread_mutex_unlock(&c->lock);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int rc_rs_cm_wait(struct rc_rs *rs, enum rdma_cm_event_type want,
		  int timeout_ms)
{
	long end = now_ms() + timeout_ms;

	for (;;) {
		struct pollfd p = { .fd = rs->chan->ch->fd, .events = POLLIN };
		bool done;
		int err, left;

		rc_rs_cm_drain(rs->chan);
		pthread_mutex_lock(&rs->chan->lock);
		done = rs->cm_last == want;
		err = rs->cm_err;
		pthread_mutex_unlock(&rs->chan->lock);
		if (err)
			return -err;
		if (done)
			return 0;
		left = (int)(end - now_ms());
		if (left <= 0)
			return -ETIMEDOUT;
		pthread_mutex_unlock(&rs->lock);
		poll(&p, 1, left);
		pthread_mutex_lock(&rs->lock);
	}
}
