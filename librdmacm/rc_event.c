/* SPDX-License-Identifier: MIT */
/*
 * Events: one struct pv_cm_event per datagram on the channel's event
 * socket, turned into an rdma_cm_event (the new id of a CONNECT_REQUEST
 * made here), with the connection parameters in the receiver's view, as
 * the kernel's RDMA CM gives them.  The active side's CONNECT_RESPONSE is
 * finished here when the id has a QP (RTR, RTS, then RTU) and reported as
 * ESTABLISHED, as rdma-core's librdmacm does.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"

static struct rc_id *new_child(struct rc_chan *ch, struct rc_id *l,
			       const struct pv_cm_event *ev)
{
	struct rc_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->handle = ev->id;
	id->pub.channel = l->pub.channel;
	id->pub.context = l->pub.context;
	id->pub.ps = l->pub.ps;
	id->pub.qp_type = l->pub.qp_type;
	id->sync = l->sync;
	id->passive = true;
	if (l->own_chan) {
		/* Outlives its listener if need be, as its own would. */
		id->own_chan = true;
		rc_chan_ref(ch);
	}
	rc_id_link(ch, id);
	return id;
}

static void fill_ud(struct rc_id *id, struct rc_event *e,
		    const struct pv_cm_event *ev)
{
	struct rdma_ud_param *ud = &e->pub.param.ud;

	ud->private_data = e->pdata;
	ud->private_data_len = ev->p.pdata_len;
	ud->qp_num = ev->p.qp_num;
	ud->qkey = ev->p.qkey ? ev->p.qkey : RDMA_UDP_QKEY;
	ud->ah_attr.is_global = 1;
	ud->ah_attr.port_num = 1;
	ud->ah_attr.grh.dgid = id->pub.route.addr.addr.ibaddr.dgid;
	ud->ah_attr.grh.sgid_index = (uint8_t)id->gid_index;
	ud->ah_attr.grh.hop_limit = 64;
}

/* The local view: what the peer can read from us is our responder
 * resources; what it offers to serve, our initiator depth. */
static void fill(struct rc_id *id, struct rc_event *e,
		 const struct pv_cm_event *ev)
{
	struct rdma_conn_param *c = &e->pub.param.conn;

	memcpy(e->pdata, ev->pdata, sizeof(e->pdata));
	if (id->pub.ps == RDMA_PS_UDP &&
	    (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	     ev->event == RDMA_CM_EVENT_ESTABLISHED)) {
		fill_ud(id, e, ev);
		return;
	}
	if (ev->p.pdata_len)
		c->private_data = e->pdata;
	c->private_data_len = ev->p.pdata_len;
	c->responder_resources = ev->p.initiator_depth;
	c->initiator_depth = ev->p.responder_resources;
	c->flow_control = ev->p.flow_control;
	c->retry_count = ev->p.retry_count;
	c->rnr_retry_count = ev->p.rnr_retry_count;
	c->srq = ev->p.srq;
	c->qp_num = ev->p.qp_num;
}

static void note_remote(struct rc_id *id, const struct pv_cm_event *ev)
{
	id->remote = ev->p;
	/* Negotiated as the kernel does: no more than the peer offers. */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		id->resp_res = ev->p.initiator_depth;
		id->init_depth = ev->p.responder_resources;
	} else {
		if (ev->p.initiator_depth < id->resp_res)
			id->resp_res = ev->p.initiator_depth;
		if (ev->p.responder_resources < id->init_depth)
			id->init_depth = ev->p.responder_resources;
	}
}

/* REP at the active side: QP to RTR and RTS, then RTU. */
static void finish_connect(struct rc_id *id, struct rc_event *e)
{
	struct pv_ipc_cm_ref ref = { .id = id->handle };
	int ret = 0;

	if (!id->pub.qp)
		return;		/* the user calls rdma_establish */
	ret = rc_qp_to(id, IBV_QPS_RTR);
	if (ret == 0)
		ret = rc_qp_to(id, IBV_QPS_RTS);
	if (ret == 0)
		ret = rc_call(id->ch, PV_OP_CM_ESTABLISH, &ref, sizeof(ref),
			      NULL, 0);
	e->pub.event = ret == 0 ? RDMA_CM_EVENT_ESTABLISHED :
				  RDMA_CM_EVENT_CONNECT_ERROR;
	e->pub.status = ret;
}

static int convert(struct rc_chan *ch, const struct pv_cm_event *ev,
		   struct rc_event **out)
{
	struct rc_id *id, *l = NULL;
	struct rc_event *e;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		l = rc_id_find(ch, ev->listen_id);
		if (!l)
			return -ENOENT;
		id = new_child(ch, l, ev);
	} else {
		id = rc_id_find(ch, ev->id);
	}
	if (!id)
		return -ENOENT;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		int ret = rc_mc_event(id, e, ev);

		if (ret < 0) {
			free(e);
			return ret;
		}
		*out = e;
		return 0;
	}
	rc_id_set_from_event(id, ev);
	e->pub.id = &id->pub;
	e->pub.listen_id = l ? &l->pub : NULL;
	e->pub.event = (enum rdma_cm_event_type)ev->event;
	e->pub.status = ev->status;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED)
		note_remote(id, ev);
	fill(id, e, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE)
		finish_connect(id, e);
	*out = e;
	return 0;
}

static int read_one(struct rc_chan *ch, struct rc_event **out)
{
	struct pv_cm_event ev;
	ssize_t n;
	int ret;

	for (;;) {
		n = recv(ch->pub.fd, &ev, sizeof(ev), 0);
		if (atomic_load(&ch->closing))
			for (;;)
				pause();	/* as on a destroyed rdma_cm fd */
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;	/* the engine went away */
		if (n != (ssize_t)sizeof(ev))
			return -EPROTO;
		ret = convert(ch, &ev, out);
		if (ret != -ENOENT)
			return ret;
		/* An id destroyed here before its event came: dropped. */
	}
}

int rc_event_read(struct rc_chan *ch, struct rc_event **out)
{
	int ret;

	atomic_fetch_add(&ch->readers, 1);
	ret = read_one(ch, out);
	atomic_fetch_sub(&ch->readers, 1);
	return ret;
}

static struct rc_event *pop(struct rc_id *id)
{
	struct rc_event *e = id->queue;

	if (e)
		id->queue = e->next;
	return e;
}

static void push(struct rc_id *id, struct rc_event *e)
{
	struct rc_event **p = &id->queue;

	while (*p)
		p = &(*p)->next;
	e->next = NULL;
	*p = e;
}

static int event_errno(const struct rc_event *e)
{
	switch (e->pub.event) {
	case RDMA_CM_EVENT_REJECTED: return -ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE: return -ETIMEDOUT;
	default: return e->pub.status < 0 ? e->pub.status : -EIO;
	}
}

int rc_sync_wait(struct rc_id *id, enum rdma_cm_event_type want)
{
	struct rc_event *e;
	int ret;

	for (;;) {
		e = pop(id);
		if (!e) {
			ret = rc_event_read(id->ch, &e);
			if (ret < 0)
				return ret;
		}
		if (e->pub.listen_id) {
			/* A request at a listener of this channel. */
			push(rc_id_of(e->pub.listen_id), e);
			if (e->pub.listen_id == &id->pub &&
			    want == RDMA_CM_EVENT_CONNECT_REQUEST)
				return 0;
			continue;
		}
		if (e->pub.id != &id->pub) {
			push(rc_id_of(e->pub.id), e);
			continue;
		}
		ret = e->pub.event == want && e->pub.status == 0 ? 0 :
		      event_errno(e);
		if (ret < 0) {
			free(e);
			return ret;
		}
		/* Kept in id->event until the id's next call, as rdma-core
		 * does: rdma_xclient reads the REP's private data there. */
		free(id->pub.event);
		id->pub.event = &e->pub;
		return 0;
	}
}

/* For rdma_get_request: a queued request of a synchronous listener. */
struct rc_event *rc_sync_take_request(struct rc_id *l)
{
	return pop(l);
}

RC_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				struct rdma_cm_event **event)
{
	struct rc_event *e;
	int ret;

	if (!channel || !event)
		return rc_ret(-EINVAL);
	ret = rc_event_read((struct rc_chan *)channel, &e);
	if (ret < 0)
		return rc_ret(ret);
	*event = &e->pub;
	return 0;
}

RC_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!event)
		return rc_ret(-EINVAL);
	free(event);
	return 0;
}
