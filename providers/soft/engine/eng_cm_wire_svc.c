/* SPDX-License-Identifier: MIT */
/*
 * The service side of the CM on the wire (eng_cm_wire.h): what a wire
 * connection's news does to its RDMA CM id, and the passive id a REQ
 * makes at a listener.  The service's own calls for an id whose peer is
 * on another node are in eng_cm_conn.c (the call graph stays acyclic:
 * conn -> wire -> wire_svc -> core).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_cm_wire.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"

static void addr_of(const uint8_t gid[16], uint16_t port,
		    struct pv_cm_addr *a)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	memset(a, 0, sizeof(*a));
	a->family = memcmp(gid, pfx, 12) ? AF_INET6 : AF_INET;
	a->port_be = htons(port);
	memcpy(a->addr, gid, 16);
}

static void leave_req_rcvd(struct eng_cm_id *id)
{
	if (id->state == ENG_CMID_REQ_RCVD && id->listener &&
	    id->listener->pending)
		id->listener->pending--;
}

struct eng_cm_id *eng_cm_svc_wire_req(struct eng *e, struct eng_dev *d,
				      struct eng_cm_wconn *w,
				      const struct eng_cm_wire_ep *ep,
				      const struct pv_cm_conn_param *p,
				      const uint8_t *pdata, uint32_t len,
				      int *ret_reason)
{
	struct pv_cm_addr dst;
	struct eng_cm_id *l, *c;
	struct eng_cmid_msg m;
	int err;

	addr_of(ep->sgid, ep->sport, &dst);
	eng_stat_inc(cm_connects);
	/* d's namespace only: another pod's listener never sees it. */
	l = eng_cm_listener(e, &d->ns, ep->ps, &dst);
	if (!l) {
		eng_stat_inc(cm_no_listener);
		*ret_reason = PV_CM_REJ_INVALID_SERVICE_ID;
		return NULL;
	}
	if (!eng_cm_qpt_match(ep->xrc ? IBV_QPT_XRC_SEND : IBV_QPT_RC,
			      l->qp_type)) {
		eng_stat_inc(cm_transport_mismatch);
		*ret_reason = PV_CM_REJ_INVALID_TRANSPORT;
		return NULL;
	}
	if (l->pending >= l->backlog) {
		eng_stat_inc(cm_backlog_full);
		*ret_reason = PV_CM_REJ_CONSUMER_DEFINED;
		return NULL;
	}
	c = eng_cm_id_new(e, l->conn, &err);
	if (!c) {
		*ret_reason = PV_CM_REJ_CONSUMER_DEFINED;
		return NULL;
	}
	c->ps = l->ps;
	c->qp_type = l->qp_type;
	c->state = ENG_CMID_REQ_RCVD;
	c->listener = l;
	c->src = dst;
	addr_of(ep->dgid, ep->dport, &c->dst);
	c->dev_id = d->id;
	memcpy(c->dev_name, d->name, sizeof(c->dev_name) - 1);
	memcpy(c->sgid, ep->sgid, 16);
	memcpy(c->dgid, ep->dgid, 16);
	c->path_mtu = ep->path_mtu ? ep->path_mtu : d->active_mtu;
	if (c->path_mtu > d->active_mtu)
		c->path_mtu = d->active_mtu;
	if (!eng_cm_dev_any(e, c->sgid, &c->gid_index))
		c->gid_index = 0;
	c->wire = w;
	c->remote = *p;
	l->pending++;
	memset(&m, 0, sizeof(m));
	m.type = ENG_CMID_MSG_REQ;
	m.p = *p;
	if (len > sizeof(m.pdata))
		len = sizeof(m.pdata);
	memcpy(m.pdata, pdata, len);
	eng_cm_event(c, PV_CM_EV_CONNECT_REQUEST, 0, &m);
	return c;
}

void eng_cm_svc_wire_event(struct eng_cm_id *id, uint32_t type,
			   int32_t status, const struct pv_cm_conn_param *p,
			   const uint8_t *pdata, uint32_t len)
{
	struct eng_cmid_msg m;

	memset(&m, 0, sizeof(m));
	if (p)
		m.p = *p;
	if (pdata) {
		if (len > sizeof(m.pdata))
			len = sizeof(m.pdata);
		memcpy(m.pdata, pdata, len);
	}
	switch (type) {
	case PV_CM_EV_CONNECT_RESPONSE:
		id->remote = m.p;
		id->state = ENG_CMID_REP_RCVD;
		break;
	case PV_CM_EV_ESTABLISHED:
		if (p)
			id->remote = m.p;
		if (id->state != ENG_CMID_ESTABLISHED)
			eng_stat_inc(cm_established);
		id->state = ENG_CMID_ESTABLISHED;
		break;
	default:
		/* REJECTED, UNREACHABLE, DISCONNECTED: the end of it. */
		leave_req_rcvd(id);
		if (id->state == ENG_CMID_DISCONNECTED)
			return;	/* told already (our own disconnect) */
		id->state = ENG_CMID_DISCONNECTED;
		break;
	}
	eng_cm_event(id, type, status, pdata || p ? &m : NULL);
}

void eng_cm_svc_wire_gone(struct eng_cm_id *id)
{
	leave_req_rcvd(id);
	id->wire = NULL;
}
