/* SPDX-License-Identifier: MIT */
/*
 * QP1 receive (the strong eng_cm_wire_rx of eng_wire_xport.h): classify
 * has checked the ICRC, the P_Key, the GSI Q_Key and that the packet is
 * for one of device d's GIDs.  Here: one SEND_ONLY of exactly 256 bytes,
 * copied once into engine memory, decoded (eng_cm_mad.c), then
 *   - a Get (ClassPortInfo) is answered with its GetResp;
 *   - a REQ / SIDR_REQ that starts a connection is checked (transport,
 *     MTU, the RDMA CM IP header, its destination = the packet's, the
 *     service ID one of the RDMA CM's port spaces) and handed to d's
 *     listeners only: the service looks in d's network namespace, so a
 *     REQ sent to pod b's address can reach only b's ids;
 *   - everything else is matched by comm ID among the connections of
 *     the same sender and device (eng_cm_dispatch) and stepped.
 * Every refusal is counted; nothing waits.
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_cm_mad.h"
#include "providers/soft/engine/eng_cm_pdata.h"
#include "providers/soft/engine/eng_cm_wire_int.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_xport.h"

/* Who sent it and where it came in. */
struct rx_ctx {
	struct eng_dev *d;
	const struct eng_net_pkt *np;
	uint32_t sqpn;
	uint64_t peer;
};

static void reply(struct eng *e, const struct rx_ctx *x,
		  const struct eng_cm_msg *m)
{
	eng_cm_wire_send(e, x->d->id, x->np->src.gid, x->sqpn, x->np->tos, m,
			 NULL);
}

static void class_port_info(struct eng *e, const struct rx_ctx *x,
			    const struct eng_cm_msg *get, int bad_version)
{
	struct eng_cm_class_port_info cpi;
	struct eng_cm_msg resp;

	eng_cm_mad_class_port_info((uint8_t)eng_lim.cm_resp_timeout, &cpi);
	eng_cm_mad_get_resp(&get->hdr, &cpi, bad_version, &resp);
	eng_stat_inc(cm_wire_rx_get);
	reply(e, x, &resp);
}

/* The IP header's destination must be the address the packet came to
 * (IPv4 as the last 4 of 16 bytes, the kernel's cma_hdr). */
static bool hdr_dst_ok(const struct eng_cm_ip_hdr *h, const uint8_t dst[16])
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	if (h->ip_version == 4)
		return !memcmp(dst, pfx, 12) && !memcmp(h->dst_addr + 12,
							 dst + 12, 4);
	return !memcmp(h->dst_addr, dst, 16);
}

/* The caller's answer to a REQ nobody takes: REJ with reason (or a
 * SIDR_REP with status) and no connection kept. */
static void refuse(struct eng *e, const struct rx_ctx *x,
		   const struct eng_cm_msg *m, uint16_t reason)
{
	struct eng_cm_msg r;

	if (m->hdr.attr_id == ENG_CM_ATTR_SIDR_REQ) {
		eng_cm_no_listener(m, &r);
		if (reason != ENG_CM_REJ_INVALID_SERVICE_ID)
			r.u.sidr_rep.status = ENG_CM_SIDR_REJECT;
	} else {
		eng_cm_reply_rej(m, reason, ENG_CM_MSG_REF_REQ, &r);
	}
	eng_stat_inc(cm_wire_rx_refused);
	reply(e, x, &r);
}

static uint32_t waiting_of(const struct eng_cm_wtab *t, uint64_t peer)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ENG_CM_WIRE_MAX; i++) {
		uint8_t s = t->sm[i].state;

		if (t->sm[i].peer == peer && (s == ENG_CM_REQ_RCVD ||
		    s == ENG_CM_MRA_REQ_SENT || s == ENG_CM_SIDR_REQ_RCVD))
			n++;
	}
	return n;
}

/* What the passive id's CONNECT_REQUEST carries of a REQ (the kernel's
 * cma_format_req_event: the requester's values as they came). */
static void param_of_req(const struct eng_cm_msg *m, struct pv_cm_conn_param *p)
{
	const struct eng_cm_req *q = &m->u.req;

	memset(p, 0, sizeof(*p));
	if (m->hdr.attr_id == ENG_CM_ATTR_SIDR_REQ) {
		p->pdata_len = PV_CM_SIDR_REQ_PDATA;
		return;
	}
	p->qp_num = q->local_qpn;
	p->psn = q->starting_psn;
	p->responder_resources = q->responder_resources;
	p->initiator_depth = q->initiator_depth;
	p->flow_control = q->e2e_flow_control;
	p->retry_count = q->retry_count;
	p->rnr_retry_count = q->rnr_retry_count;
	p->srq = q->srq;
	p->pdata_len = PV_CM_REQ_PDATA;
}

/* No listener, or its backlog is full: the step's REQ_RCVD is answered
 * with the REJ (or SIDR_REP) and freed. */
static void turn_down(struct eng *e, struct eng_cm_wconn *w, bool sidr,
		      int reason)
{
	struct eng_cm_event ev = { .type = ENG_CM_EV_REJECT,
				   .reason = (uint16_t)reason };
	struct eng_cm_act act;

	if (sidr) {
		w->prm.sidr_status = reason == ENG_CM_REJ_INVALID_SERVICE_ID ?
				     ENG_CM_SIDR_UNSUPPORTED : ENG_CM_SIDR_REJECT;
		ev.type = ENG_CM_EV_SIDR_REPLY;
	}
	eng_stat_inc(cm_wire_rx_refused);
	if (eng_cm_step(w->sm, &ev, &act) == 0)
		eng_cm_wire_apply(e, w, &act, NULL);
}

/* A new REQ / SIDR_REQ: checks, a slot, the step, then the listener. */
static void new_req(struct eng *e, const struct rx_ctx *x,
		    const struct eng_cm_msg *m)
{
	bool sidr = m->hdr.attr_id == ENG_CM_ATTR_SIDR_REQ;
	const uint8_t *pd = sidr ? m->u.sidr_req.private_data :
				   m->u.req.private_data;
	size_t pdlen = sidr ? ENG_CM_SIDR_REQ_PDATA_SIZE : ENG_CM_REQ_PDATA_SIZE;
	uint64_t sid = sidr ? m->u.sidr_req.service_id : m->u.req.service_id;
	struct eng_cm_event ev = { .type = ENG_CM_EV_RX, .msg = m };
	struct pv_cm_conn_param p;
	struct eng_cm_wire_ep ep = { .dev_id = x->d->id, .tos = x->np->tos };
	struct eng_cm_ip_hdr h;
	struct eng_cm_wconn *w;
	struct eng_cm_act act;
	uint16_t ps, port;
	int reason = 0;

	if (!sidr && (reason = eng_cm_req_check(&m->u.req)) != 0) {
		refuse(e, x, m, (uint16_t)reason);
		return;
	}
	if (eng_cm_service_id_parse(sid, &ps, &port) < 0 ||
	    (ps != PV_CM_PS_TCP && ps != PV_CM_PS_UDP && ps != PV_CM_PS_IB) ||
	    (ps == PV_CM_PS_UDP) != sidr ||
	    eng_cm_pdata_decode(pd, pdlen, &h) < 0 ||
	    !hdr_dst_ok(&h, x->np->dst)) {
		eng_stat_inc(cm_wire_rx_bad_req);
		refuse(e, x, m, ENG_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (waiting_of(eng_cm_wtab(e), x->peer) >= eng_lim.cm_wire_per_peer) {
		eng_stat_inc(cm_wire_peer_full);
		refuse(e, x, m, ENG_CM_REJ_NO_RESOURCES);
		return;
	}
	w = eng_cm_wire_alloc(eng_cm_wtab(e), x->peer);
	if (!w) {
		refuse(e, x, m, ENG_CM_REJ_NO_RESOURCES);
		return;
	}
	ep.ps = ps;
	memcpy(ep.sgid, x->np->dst, 16);
	memcpy(ep.dgid, x->np->src.gid, 16);
	ep.sport = port;
	ep.dport = h.src_port;
	ep.path_mtu = sidr ? 0 : m->u.req.path_mtu;
	ep.xrc = !sidr && m->u.req.transport_type == ENG_CM_TRANSPORT_EXT;
	w->ep = ep;
	w->sm->xrc = ep.xrc;
	w->peer_qp1 = x->sqpn;
	w->prm.service_id = sid;
	w->prm.local_ca_guid = x->d->guid;
	w->prm.pkey = x->d->pkey;
	if (eng_cm_step(w->sm, &ev, &act) < 0 || !act.event) {
		act = (struct eng_cm_act){ .free = 1 };
		eng_cm_wire_apply(e, w, &act, NULL);
		return;
	}
	w->sm->timewait_ms = eng_cm_timewait_ms(ENG_CM_WIRE_PACKET_LIFE);
	param_of_req(m, &p);
	w->id = eng_cm_svc_wire_req(e, x->d, w, &ep, &p, pd + ENG_CM_IP_HDR_SIZE,
				    p.pdata_len, &reason);
	if (!w->id) {
		turn_down(e, w, sidr, reason);
		return;
	}
	eng_stat_inc(cm_wire_rx_req);
}

static void dispatch(struct eng *e, const struct rx_ctx *x,
		     const struct eng_cm_msg *m)
{
	struct eng_cm_wtab *t = eng_cm_wtab(e);
	struct eng_cm_event ev = { .type = ENG_CM_EV_RX, .msg = m };
	struct eng_cm_conn *c = NULL;
	struct eng_cm_msg r;
	struct eng_cm_act act;

	if (!t)
		return;
	switch (eng_cm_dispatch(&t->view, m, x->peer, &c, &r)) {
	case ENG_CM_DISP_CONN:
		if (eng_cm_step(c, &ev, &act) == 0)
			eng_cm_wire_apply(e, eng_cm_wire_of(t, c), &act, m);
		return;
	case ENG_CM_DISP_LISTEN:
		new_req(e, x, m);
		return;
	case ENG_CM_DISP_REPLY:
		eng_stat_inc(cm_wire_rx_unmatched);
		reply(e, x, &r);
		if (c)	/* a stale connection: the peer lost it */
			eng_cm_wire_detach(e, eng_cm_wire_of(t, c));
		return;
	default:
		eng_stat_inc(cm_wire_rx_unmatched);
		return;
	}
}

void eng_cm_wire_rx(struct eng *e, struct eng_dev *d,
		    const struct eng_pkt *pkt, const struct eng_net_pkt *np)
{
	uint8_t buf[ENG_CM_MAD_SIZE];
	struct rx_ctx x = { .d = d, .np = np, .sqpn = pkt->h.deth.sqpn,
			    .peer = eng_cm_wire_peer(d->id, np->src.gid) };
	struct eng_cm_msg m;
	int ret;

	eng_stat_inc(cm_wire_rx);
	if (pkt->h.bth.opcode != ENG_OP_UD_SEND_ONLY ||
	    pkt->paylen != ENG_CM_MAD_SIZE ||
	    pkt->h.deth.qkey != ENG_WIRE_GSI_QKEY) {
		eng_stat_inc(cm_wire_rx_bad);
		return;
	}
	memcpy(buf, pkt->payload, sizeof(buf));
	ret = eng_cm_mad_decode(buf, sizeof(buf), &m);
	if ((ret == 0 || ret == -EPROTONOSUPPORT || ret == -EOPNOTSUPP) &&
	    m.hdr.method == ENG_CM_METHOD_GET) {
		class_port_info(e, &x, &m, ret == -EPROTONOSUPPORT);
		return;
	}
	if (ret < 0 || m.hdr.method != ENG_CM_METHOD_SEND) {
		eng_stat_inc(cm_wire_rx_bad);
		eng_dbg("cm wire: a MAD from QP %u dropped: %s", x.sqpn,
			strerror(ret < 0 ? -ret : EPROTO));
		return;
	}
	dispatch(e, &x, &m);
}
