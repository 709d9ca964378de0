/* SPDX-License-Identifier: MIT */
/*
 * The connection exchange between two local ids, as the IB CM's messages
 * (IBA 12.6): REQ (rdma_connect) makes a new id at the listener and a
 * CONNECT_REQUEST there; REP (rdma_accept) a CONNECT_RESPONSE at the
 * active id, whose library moves its QP to RTS and answers RTU
 * (rdma_establish), which gives the passive id ESTABLISHED; REJ gives
 * REJECTED with the IB CM reject reason as status, as the kernel's RDMA
 * CM reports it (28 consumer, 8 no listener); DREQ (rdma_disconnect)
 * DISCONNECTED at both ends.  UD ids (RDMA_PS_UDP) do SIDR: REQ, then the
 * REP gives the active id ESTABLISHED with the remote QPN and Q_Key.
 * Private data is bounded by the kernel's limits (pv-soft-cm-abi.h) and
 * delivered zero-padded to them, as the kernel delivers it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_cm_wire.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

/* Copies the request's parameters and private data into a message. */
static int take_msg(struct eng_req *r, enum eng_cmid_msg_type type,
		    uint32_t limit, struct eng_cmid_msg *m)
{
	const struct pv_ipc_cm_conn *in = r->in;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->p = in->p;
	if (m->p.pdata_len > limit)
		return eng_cm_bad(r, -EINVAL, "private data over the limit");
	memcpy(m->pdata, in->pdata, m->p.pdata_len);
	m->p.pdata_len = (uint8_t)limit;	/* delivered padded */
	m->p.qp_num &= 0xffffff;
	m->p.psn &= 0xffffff;
	m->p.reserved = 0;
	return 0;
}

static void unlink_peers(struct eng_cm_id *a)
{
	if (a->peer)
		a->peer->peer = NULL;
	a->peer = NULL;
}

static void leave_req_rcvd(struct eng_cm_id *id)
{
	if (id->state == ENG_CMID_REQ_RCVD && id->listener &&
	    id->listener->pending)
		id->listener->pending--;
}

static void reject_active(struct eng_cm_id *active, uint32_t reason,
			  const struct eng_cmid_msg *m)
{
	active->state = ENG_CMID_DISCONNECTED;
	eng_stat_inc(cm_rejects);
	if (active->ps == PV_CM_PS_UDP)
		eng_cm_event(active, PV_CM_EV_UNREACHABLE, -EINVAL, m);
	else
		eng_cm_event(active, PV_CM_EV_REJECTED, (int32_t)reason, m);
}

/* The new passive id at listener l for active id a. */
static struct eng_cm_id *make_child(struct eng *e, struct eng_cm_id *l,
				    struct eng_cm_id *a)
{
	struct eng_dev *d;
	struct eng_cm_id *c;
	int err;

	c = eng_cm_id_new(e, l->conn, &err);
	if (!c)
		return NULL;
	c->ps = l->ps;
	c->qp_type = l->qp_type;
	c->state = ENG_CMID_REQ_RCVD;
	c->listener = l;
	c->src = a->dst;
	c->src.port_be = l->src.port_be;
	c->dst = a->src;
	c->dev_id = a->dst_dev_id;
	d = eng_dev_by_id(e, c->dev_id);
	if (d)
		memcpy(c->dev_name, d->name, sizeof(c->dev_name) - 1);
	c->dst_dev_id = a->dev_id;
	memcpy(c->sgid, a->dgid, 16);
	memcpy(c->dgid, a->sgid, 16);
	c->path_mtu = a->path_mtu;
	if (!eng_cm_dev_any(e, c->sgid, &c->gid_index))
		c->gid_index = 0;
	l->pending++;
	return c;
}

int eng_op_cm_connect(struct eng_req *r)
{
	const struct pv_ipc_cm_conn *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id), *l, *child;
	struct eng_dev *dd;
	struct eng_cmid_msg m;
	int ret;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_ROUTE)
		return eng_cm_bad(r, -EINVAL, "connect before route resolved");
	if (id->qp_type == IBV_QPT_XRC_RECV)
		return eng_cm_bad(r, -EINVAL, "an XRC target id only accepts");
	ret = take_msg(r, ENG_CMID_MSG_REQ, id->ps == PV_CM_PS_UDP ?
		       PV_CM_SIDR_REQ_PDATA : PV_CM_REQ_PDATA, &m);
	if (ret < 0)
		return ret;
	id->local = m.p;
	id->state = ENG_CMID_REQ_SENT;
	eng_stat_inc(cm_connects);
	if (!id->dst_dev_id)	/* on the wire (eng_op_cm_resolve_addr) */
		return eng_cm_svc_wire_connect(r->e, id, &m);
	dd = eng_dev_by_id(r->e, id->dst_dev_id);
	l = dd ? eng_cm_listener(r->e, &dd->ns, id->ps, &id->dst) : NULL;
	if (!l) {
		eng_stat_inc(cm_no_listener);
		reject_active(id, PV_CM_REJ_INVALID_SERVICE_ID, NULL);
		return 0;
	}
	if (!eng_cm_qpt_match(id->qp_type, l->qp_type)) {
		eng_stat_inc(cm_transport_mismatch);
		reject_active(id, PV_CM_REJ_INVALID_TRANSPORT, NULL);
		return 0;
	}
	if (l->pending >= l->backlog) {
		eng_stat_inc(cm_backlog_full);
		reject_active(id, PV_CM_REJ_CONSUMER_DEFINED, NULL);
		return 0;
	}
	child = make_child(r->e, l, id);
	if (!child) {
		reject_active(id, PV_CM_REJ_CONSUMER_DEFINED, NULL);
		return 0;
	}
	child->remote = m.p;
	child->peer = id;
	id->peer = child;
	eng_cm_event(child, PV_CM_EV_CONNECT_REQUEST, 0, &m);
	return 0;
}

/* Our end of id's connection, for the wire. */
static void ep_of(const struct eng_cm_id *id, struct eng_cm_wire_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->dev_id = id->dev_id;
	ep->ps = id->ps;
	memcpy(ep->sgid, id->sgid, 16);
	memcpy(ep->dgid, id->dgid, 16);
	ep->sport = ntohs(id->src.port_be);
	ep->dport = ntohs(id->dst.port_be);
	ep->tos = id->tos;
	ep->ack_timeout = id->ack_timeout;
	ep->path_mtu = id->path_mtu;
	ep->xrc = id->qp_type == IBV_QPT_XRC_SEND;
}

int eng_cm_svc_wire_connect(struct eng *e, struct eng_cm_id *id,
			    const struct eng_cmid_msg *m)
{
	struct eng_cm_wire_ep ep;
	int ret;

	ep_of(id, &ep);
	ret = eng_cm_wire_connect(e, id, &ep, &m->p, m->pdata,
				  m->p.pdata_len, &id->wire);
	if (ret < 0) {
		/* The table is full or the device went: the kernel would
		 * fail rdma_connect; the id stays connectable. */
		id->state = ENG_CMID_ROUTE;
		eng_warn("cm wire: connect: %s", strerror(-ret));
	}
	return ret;
}

/* The passive side of a connection from another node: REP / SIDR_REP
 * and REJ go out as MADs (eng_cm_wire.c). */
static int wire_accept(struct eng_req *r, struct eng_cm_id *id)
{
	bool ud = id->ps == PV_CM_PS_UDP;
	struct eng_cmid_msg m;
	int ret;

	ret = take_msg(r, ENG_CMID_MSG_REP, ud ? PV_CM_SIDR_REP_PDATA :
		       PV_CM_REP_PDATA, &m);
	if (ret < 0)
		return ret;
	leave_req_rcvd(id);
	id->local = m.p;
	id->state = ud ? ENG_CMID_ESTABLISHED : ENG_CMID_REP_SENT;
	if (ud)
		eng_stat_inc(cm_established);
	return eng_cm_wire_accept(r->e, id->wire, &m.p, m.pdata,
				  m.p.pdata_len);
}

static int wire_reject(struct eng_req *r, struct eng_cm_id *id)
{
	struct eng_cmid_msg m;
	int ret;

	ret = take_msg(r, ENG_CMID_MSG_REJ, PV_CM_REJ_PDATA, &m);
	if (ret < 0)
		return ret;
	leave_req_rcvd(id);
	id->state = ENG_CMID_DISCONNECTED;
	eng_stat_inc(cm_rejects);
	return eng_cm_wire_reject(r->e, id->wire, m.pdata, m.p.pdata_len);
}

int eng_op_cm_accept(struct eng_req *r)
{
	const struct pv_ipc_cm_conn *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id), *a;
	struct eng_cmid_msg m;
	int ret;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_REQ_RCVD)
		return eng_cm_bad(r, -EINVAL, "accept: no connect request");
	if (id->wire)
		return wire_accept(r, id);
	a = id->peer;
	if (!a)
		return -ECONNRESET;	/* the requester went away */
	ret = take_msg(r, ENG_CMID_MSG_REP, id->ps == PV_CM_PS_UDP ?
		       PV_CM_SIDR_REP_PDATA : PV_CM_REP_PDATA, &m);
	if (ret < 0)
		return ret;
	leave_req_rcvd(id);
	id->local = m.p;
	a->remote = m.p;
	if (id->ps == PV_CM_PS_UDP) {
		/* SIDR_REP: the requester is done; no connection remains. */
		id->state = ENG_CMID_ESTABLISHED;
		a->state = ENG_CMID_ESTABLISHED;
		unlink_peers(id);
		eng_stat_inc(cm_established);
		eng_cm_event(a, PV_CM_EV_ESTABLISHED, 0, &m);
		return 0;
	}
	id->state = ENG_CMID_REP_SENT;
	a->state = ENG_CMID_REP_RCVD;
	eng_cm_event(a, PV_CM_EV_CONNECT_RESPONSE, 0, &m);
	return 0;
}

int eng_op_cm_reject(struct eng_req *r)
{
	const struct pv_ipc_cm_conn *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id), *a;
	struct eng_cmid_msg m;
	int ret;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_REQ_RCVD)
		return eng_cm_bad(r, -EINVAL, "reject: no connect request");
	if (id->wire)
		return wire_reject(r, id);
	ret = take_msg(r, ENG_CMID_MSG_REJ, PV_CM_REJ_PDATA, &m);
	if (ret < 0)
		return ret;
	leave_req_rcvd(id);
	id->state = ENG_CMID_DISCONNECTED;
	a = id->peer;
	unlink_peers(id);
	if (a)
		reject_active(a, PV_CM_REJ_CONSUMER_DEFINED, &m);
	return 0;
}

/* RTU from the active side: the passive side is established too. */
int eng_op_cm_establish(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id), *p;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_REP_RCVD)
		return eng_cm_bad(r, -EINVAL, "establish: no connect response");
	if (id->wire) {
		id->state = ENG_CMID_ESTABLISHED;
		eng_stat_inc(cm_established);
		return eng_cm_wire_establish(r->e, id->wire);
	}
	p = id->peer;
	if (!p)
		return -ECONNRESET;
	id->state = ENG_CMID_ESTABLISHED;
	p->state = ENG_CMID_ESTABLISHED;
	eng_stat_inc(cm_established);
	eng_cm_event(p, PV_CM_EV_ESTABLISHED, 0, NULL);
	return 0;
}

/* DREQ and DREP in one: both ends get DISCONNECTED. */
int eng_op_cm_disconnect(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id), *p;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_ESTABLISHED && id->state != ENG_CMID_REP_SENT &&
	    id->state != ENG_CMID_REP_RCVD)
		return -EINVAL;
	p = id->peer;
	unlink_peers(id);
	id->state = ENG_CMID_DISCONNECTED;
	eng_stat_inc(cm_disconnects);
	eng_cm_event(id, PV_CM_EV_DISCONNECTED, 0, NULL);
	if (id->wire) {
		/* DREQ (or REJ mid-handshake) goes out; the DREP and the
		 * timewait are the wire connection's, no longer the id's. */
		eng_cm_wire_detach(r->e, id->wire);
		id->wire = NULL;
	}
	if (p) {
		p->state = ENG_CMID_DISCONNECTED;
		eng_cm_event(p, PV_CM_EV_DISCONNECTED, 0, NULL);
	}
	return 0;
}

/*
 * id goes (destroyed, or its connection closed): the other end hears
 * what the IB CM would send it (IBA 12.9.8: REJ from a handshake, DREQ
 * from a connection).
 */
void eng_cm_conn_abort(struct eng *e, struct eng_cm_id *id)
{
	struct eng_cm_id *p = id->peer;

	if (id->wire) {
		eng_cm_wire_detach(e, id->wire);
		id->wire = NULL;
	}
	leave_req_rcvd(id);
	unlink_peers(id);
	if (!p)
		return;
	switch (id->state) {
	case ENG_CMID_REQ_SENT:
	case ENG_CMID_REP_RCVD:
		/* The passive end was waiting for us. */
		leave_req_rcvd(p);
		p->state = ENG_CMID_DISCONNECTED;
		eng_stat_inc(cm_rejects);
		eng_cm_event(p, PV_CM_EV_REJECTED, PV_CM_REJ_TIMEOUT, NULL);
		break;
	case ENG_CMID_REQ_RCVD:
	case ENG_CMID_REP_SENT:
		reject_active(p, PV_CM_REJ_CONSUMER_DEFINED, NULL);
		break;
	case ENG_CMID_ESTABLISHED:
		p->state = ENG_CMID_DISCONNECTED;
		eng_stat_inc(cm_disconnects);
		eng_cm_event(p, PV_CM_EV_DISCONNECTED, 0, NULL);
		break;
	default:
		break;
	}
}
