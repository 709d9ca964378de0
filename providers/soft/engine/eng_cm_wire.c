/* SPDX-License-Identifier: MIT */
/*
 * The wire half of the RDMA CM (eng_cm_wire.h): a table of IB CM
 * connections, each stepped by cm-mad's eng_cm_step(); the QP1 sender;
 * one timerfd for every connection's retransmission and timewait; the
 * calls the service makes for an id whose peer is on another node.
 *
 * QP1 packets are what Linux's CM sends on RoCEv2 (IBA 13.5.3, A17.4):
 * a UD SEND_ONLY to dest QP 1 with a DETH of the GSI Q_Key 0x80010000
 * and source QP 1, the device's P_Key, 256 bytes of MAD.  A message that
 * expects an answer (REQ, REP, DREQ, SIDR_REQ) is kept as its bytes and
 * resent on the step's timer, max_cm_retries times (15, the kernel's
 * CMA_MAX_CM_RETRIES), then UNREACHABLE.  Every send is flushed at once
 * (eng_net_flush): the MAD lives on our stack or in a slot that may be
 * reused before the loop turn ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_cm_mad.h"
#include "providers/soft/engine/eng_cm_pdata.h"
#include "providers/soft/engine/eng_cm_wire_int.h"
#include "providers/soft/engine/eng_csprng.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_xport.h"

static struct eng_cm_wtab *g_tab;
static struct eng_pollable g_timer = { .fd = -1 };
static uint32_t g_qp1_psn;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void timer_fired(struct eng *e, struct eng_pollable *p, uint32_t ev);

struct eng_cm_wtab *eng_cm_wtab(struct eng *e)
{
	int fd;

	if (g_tab)
		return g_tab;
	g_tab = calloc(1, sizeof(*g_tab));
	if (!g_tab)
		return NULL;
	g_tab->view.conns = g_tab->sm;
	g_tab->view.n = ENG_CM_WIRE_MAX;
	for (uint32_t i = 0; i < ENG_CM_WIRE_MAX; i++)
		g_tab->w[i].sm = &g_tab->sm[i];
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		eng_warn("cm wire: timerfd: %s: no CM retransmission",
			 strerror(errno));
	g_timer.fd = fd;
	g_timer.ready = timer_fired;
	if (fd >= 0 && eng_poll_add(e, &g_timer) < 0) {
		close(fd);
		g_timer.fd = -1;
	}
	return g_tab;
}

void eng_cm_wire_fini(struct eng *e)
{
	if (g_timer.fd >= 0) {
		eng_poll_del(e, &g_timer);
		close(g_timer.fd);
		g_timer.fd = -1;
	}
	free(g_tab);
	g_tab = NULL;
}

uint32_t eng_cm_wire_count(void)
{
	return g_tab ? g_tab->live : 0;
}

uint64_t eng_cm_wire_peer(uint32_t dev_id, const uint8_t gid[16])
{
	uint64_t h = 0xcbf29ce484222325ull ^ dev_id;	/* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

struct eng_cm_wconn *eng_cm_wire_of(struct eng_cm_wtab *t,
				    struct eng_cm_conn *sm)
{
	return &t->w[sm - t->sm];
}

struct eng_cm_wconn *eng_cm_wire_alloc(struct eng_cm_wtab *t, uint64_t peer)
{
	uint32_t id;

	for (uint32_t i = 0; i < ENG_CM_WIRE_MAX; i++) {
		struct eng_cm_wconn *w = &t->w[i];

		if (t->sm[i].state != ENG_CM_IDLE)
			continue;
		/* Comm IDs are random (the kernel's come from an xarray with
		 * a random start): a peer cannot guess another's. */
		do
			id = eng_csprng_u32();
		while (eng_cm_id_in_use(&t->view, id));
		memset(&t->sm[i], 0, sizeof(t->sm[i]));
		memset(w, 0, sizeof(*w));
		w->sm = &t->sm[i];
		w->sm->local_id = id;
		w->sm->peer = peer;
		w->sm->state = ENG_CM_LISTEN;	/* taken; a step sets it */
		w->peer_qp1 = ENG_CM_WIRE_GSI_QPN;
		t->live++;
		eng_stat_inc(cm_wire_conns_live);
		return w;
	}
	eng_stat_inc(cm_wire_table_full);
	return NULL;
}

static void wire_free(struct eng_cm_wtab *t, struct eng_cm_wconn *w)
{
	if (w->id)
		eng_cm_svc_wire_gone(w->id);
	w->id = NULL;
	w->due_ns = 0;
	w->sm->state = ENG_CM_IDLE;
	t->live--;
	eng_stat_dec(cm_wire_conns_live);
}

/* The timerfd for the earliest due connection, or disarmed. */
static void timer_rearm(struct eng_cm_wtab *t)
{
	struct itimerspec its = { 0 };
	uint64_t min = 0;

	if (g_timer.fd < 0)
		return;
	for (uint32_t i = 0; i < ENG_CM_WIRE_MAX; i++)
		if (t->w[i].due_ns && (!min || t->w[i].due_ns < min))
			min = t->w[i].due_ns;
	its.it_value.tv_sec = (time_t)(min / 1000000000u);
	its.it_value.tv_nsec = (long)(min % 1000000000u);
	timerfd_settime(g_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void timer_fired(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_cm_wtab *t = g_tab;
	struct eng_cm_event tev = { .type = ENG_CM_EV_TIMEOUT };
	uint64_t ticks, now = mono_ns();

	(void)ev;
	if (read(p->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	if (!t)
		return;
	for (uint32_t i = 0; i < ENG_CM_WIRE_MAX; i++) {
		struct eng_cm_wconn *w = &t->w[i];
		struct eng_cm_act act;

		if (!w->due_ns || w->due_ns > now)
			continue;
		w->due_ns = 0;
		if (eng_cm_step(w->sm, &tev, &act) == 0)
			eng_cm_wire_apply(e, w, &act, NULL);
	}
	timer_rearm(t);
}

/* Sends one 256-byte MAD from our QP1 to dgid's QP dqpn. */
static int tx_raw(struct eng *e, struct eng_dev *d, const uint8_t dgid[16],
		  uint32_t dqpn, uint8_t tos, uint8_t *mad)
{
	struct eng_pkt_hdrs h = {
		.bth = { .opcode = ENG_OP_UD_SEND_ONLY, .pkey = d->pkey,
			 .dqpn = dqpn & 0xffffff,
			 .psn = g_qp1_psn++ & 0xffffff },
		.deth = { .qkey = ENG_WIRE_GSI_QKEY,
			  .sqpn = ENG_CM_WIRE_GSI_QPN },
	};
	struct eng_seg seg = { .ptr = mad, .len = ENG_CM_MAD_SIZE };
	struct eng_wire_dst dst = { .tos = tos };
	int ret;

	memcpy(dst.dgid, dgid, 16);
	ret = eng_wire_tx(e, d, &dst, &h, &seg, 1, ENG_CM_MAD_SIZE);
	eng_hwc_wire_tx(d, NULL, ret, ENG_CM_MAD_SIZE);
	eng_net_flush(e);
	eng_net_tx_purge(e, d);
	if (ret < 0) {
		eng_stat_inc(cm_wire_tx_errors);
		return ret;
	}
	eng_stat_inc(cm_wire_tx);
	return 0;
}

int eng_cm_wire_send(struct eng *e, uint32_t dev_id, const uint8_t dgid[16],
		     uint32_t dqpn, uint8_t tos, const struct eng_cm_msg *m,
		     uint8_t *keep)
{
	struct eng_dev *d = eng_dev_by_id(e, dev_id);
	uint8_t buf[ENG_CM_MAD_SIZE];
	uint8_t *mad = keep ? keep : buf;
	int ret;

	if (!d) {
		eng_stat_inc(cm_wire_tx_errors);
		return -ENODEV;
	}
	ret = eng_cm_mad_encode(m, mad, ENG_CM_MAD_SIZE);
	if (ret < 0) {
		eng_stat_inc(cm_wire_tx_errors);
		eng_warn("cm wire: %s not encoded: %s",
			 eng_cm_attr_name(m->hdr.attr_id), strerror(-ret));
		return ret;
	}
	return tx_raw(e, d, dgid, dqpn, tos, mad);
}

/* Resend the kept bytes (same tid and IDs: the peer sees a duplicate). */
static void resend(struct eng *e, struct eng_cm_wconn *w)
{
	struct eng_dev *d = eng_dev_by_id(e, w->ep.dev_id);

	if (!w->have_mad || !d)
		return;
	eng_stat_inc(cm_wire_resends);
	tx_raw(e, d, w->ep.dgid, w->peer_qp1, w->ep.tos, w->mad);
}

static void build_send(struct eng *e, struct eng_cm_wconn *w,
		       const struct eng_cm_act *act)
{
	struct eng_cm_msg m;
	int ret;

	ret = eng_cm_build(w->sm, act, &w->prm, &m);
	if (ret < 0) {
		eng_stat_inc(cm_wire_tx_errors);
		return;
	}
	if (eng_cm_wire_send(e, w->ep.dev_id, w->ep.dgid, w->peer_qp1,
			     w->ep.tos, &m, w->mad) == 0)
		w->have_mad = 1;
	/* Private data goes with one message only. */
	w->prm.private_data_len = 0;
}

static void param_of_rep(const struct eng_cm_rep *r, bool xrc,
			 struct pv_cm_conn_param *p)
{
	p->qp_num = xrc ? r->local_eecn : r->local_qpn;
	p->psn = r->starting_psn;
	p->responder_resources = r->responder_resources;
	p->initiator_depth = r->initiator_depth;
	p->flow_control = r->e2e_flow_control;
	p->rnr_retry_count = r->rnr_retry_count;
	p->srq = r->srq;
	p->pdata_len = PV_CM_REP_PDATA;
}

/* The RDMA CM event a step's user event is for the id (as the kernel's
 * cma_ib_handler maps them). */
static void user_event(struct eng_cm_wconn *w, const struct eng_cm_act *act,
		       const struct eng_cm_msg *rcv)
{
	struct pv_cm_conn_param p = { 0 };
	uint16_t attr = rcv ? rcv->hdr.attr_id : 0;

	if (act->event == ENG_CM_UEV_UNREACHABLE)
		eng_stat_inc(cm_wire_unreachable);
	if (!w->id)
		return;
	switch (act->event) {
	case ENG_CM_UEV_REP_RCVD:
		if (attr != ENG_CM_ATTR_REP)
			return;
		param_of_rep(&rcv->u.rep, w->ep.xrc, &p);
		eng_cm_svc_wire_event(w->id, PV_CM_EV_CONNECT_RESPONSE, 0, &p,
				      rcv->u.rep.private_data, PV_CM_REP_PDATA);
		return;
	case ENG_CM_UEV_ESTABLISHED:
		/* The active side's library reports its own ESTABLISHED once
		 * it sent the RTU (rdma_establish). */
		if (!w->sm->active)
			eng_cm_svc_wire_event(w->id, PV_CM_EV_ESTABLISHED, 0,
					      NULL, NULL, 0);
		return;
	case ENG_CM_UEV_REJECTED:
		eng_stat_inc(cm_rejects);
		eng_cm_svc_wire_event(w->id, PV_CM_EV_REJECTED, act->status,
				      NULL, attr == ENG_CM_ATTR_REJ ?
				      rcv->u.rej.private_data : NULL,
				      attr == ENG_CM_ATTR_REJ ? PV_CM_REJ_PDATA : 0);
		return;
	case ENG_CM_UEV_UNREACHABLE:
		eng_cm_svc_wire_event(w->id, PV_CM_EV_UNREACHABLE, -ETIMEDOUT,
				      NULL, NULL, 0);
		return;
	case ENG_CM_UEV_DISCONNECTED:
		eng_stat_inc(cm_disconnects);
		eng_cm_svc_wire_event(w->id, PV_CM_EV_DISCONNECTED, 0, NULL,
				      NULL, 0);
		return;
	case ENG_CM_UEV_SIDR_REP_RCVD:
		if (attr != ENG_CM_ATTR_SIDR_REP ||
		    rcv->u.sidr_rep.status != ENG_CM_SIDR_SUCCESS) {
			/* cma_sidr_rep_handler: UNREACHABLE, -ECONNREFUSED. */
			eng_cm_svc_wire_event(w->id, PV_CM_EV_UNREACHABLE,
					      -ECONNREFUSED, NULL, NULL, 0);
			return;
		}
		p.qp_num = rcv->u.sidr_rep.qpn;
		p.qkey = rcv->u.sidr_rep.qkey;
		p.pdata_len = PV_CM_SIDR_REP_PDATA;
		eng_stat_inc(cm_established);
		eng_cm_svc_wire_event(w->id, PV_CM_EV_ESTABLISHED, 0, &p,
				      rcv->u.sidr_rep.private_data,
				      PV_CM_SIDR_REP_PDATA);
		return;
	default:
		return;	/* REQ_RCVD: the receive path; TIMEWAIT_EXIT: none */
	}
}

void eng_cm_wire_apply(struct eng *e, struct eng_cm_wconn *w,
		       const struct eng_cm_act *act,
		       const struct eng_cm_msg *rcv)
{
	if (act->drop)
		eng_stat_inc(cm_wire_rx_dropped);
	if (act->resend)
		resend(e, w);
	if (act->send == ENG_CM_ATTR_APR)
		eng_stat_inc(cm_wire_lap_refused);
	if (act->send)
		build_send(e, w, act);
	if (act->timer == ENG_CM_TIMER_ARM) {
		w->due_ns = mono_ns() + (uint64_t)act->timer_ms * 1000000u;
		timer_rearm(g_tab);
	} else if (act->timer == ENG_CM_TIMER_CANCEL) {
		w->due_ns = 0;
	}
	if (act->event)
		user_event(w, act, rcv);
	if (act->free)
		wire_free(g_tab, w);
}

static bool v4mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g, pfx, 12);
}

/* The REQ's / SIDR_REQ's private data: the RDMA CM IP header (the
 * kernel's cma_hdr: an IPv4 address in the last 4 of 16 bytes) and the
 * user's bytes. */
static int req_pdata(struct eng_cm_wconn *w, uint16_t attr,
		     const uint8_t *pdata, uint32_t len)
{
	struct eng_cm_ip_hdr h = { .ip_version = v4mapped(w->ep.sgid) ? 4 : 6,
				   .src_port = w->ep.sport };
	size_t max = eng_cm_pdata_max(attr, 1);

	if (h.ip_version == 4) {
		memcpy(h.src_addr + 12, w->ep.sgid + 12, 4);
		memcpy(h.dst_addr + 12, w->ep.dgid + 12, 4);
	} else {
		memcpy(h.src_addr, w->ep.sgid, 16);
		memcpy(h.dst_addr, w->ep.dgid, 16);
	}
	if (len > max)
		len = (uint32_t)max;
	w->prm.private_data = w->pd;
	return eng_cm_pdata_encode(attr, &h, pdata, len, w->pd, sizeof(w->pd),
				   &w->prm.private_data_len);
}

static void user_pdata(struct eng_cm_wconn *w, const uint8_t *pdata,
		       uint32_t len, uint32_t max)
{
	if (len > max)
		len = max;
	if (len > sizeof(w->pd))
		len = sizeof(w->pd);
	memcpy(w->pd, pdata, len);
	w->prm.private_data = w->pd;
	w->prm.private_data_len = (uint8_t)len;
}

/* What the REQ carries of ours, as the kernel's cma fills it for RoCE. */
static void req_params(struct eng_dev *d, struct eng_cm_wconn *w,
		       const struct pv_cm_conn_param *p)
{
	struct eng_cm_params *q = &w->prm;
	uint16_t port = w->ep.dport;

	q->service_id = eng_cm_service_id((uint16_t)w->ep.ps, port);
	q->local_ca_guid = d->guid;
	q->starting_psn = p->psn & 0xffffff;
	q->pkey = d->pkey;
	q->responder_resources = p->responder_resources;
	q->initiator_depth = p->initiator_depth;
	q->local_cm_response_timeout = (uint8_t)eng_lim.cm_resp_timeout;
	q->remote_cm_response_timeout = (uint8_t)eng_lim.cm_resp_timeout;
	q->transport_type = ENG_CM_TRANSPORT_RC;
	q->retry_count = p->retry_count & 7;
	q->rnr_retry_count = p->rnr_retry_count & 7;
	q->path_mtu = (uint8_t)(w->ep.path_mtu ? w->ep.path_mtu : 3);
	q->srq = p->srq ? 1 : 0;
	if (w->ep.xrc) {
		/* An XRC initiator has no receive side: the REQ leaves its
		 * responder resources, retry counts and SRQ bit zero. */
		q->transport_type = ENG_CM_TRANSPORT_EXT;
		q->ext_transport_type = ENG_CM_EXT_TRANSPORT_XRC;
		q->responder_resources = 0;
		q->retry_count = 0;
		q->rnr_retry_count = 0;
		q->srq = 0;
	}
	memcpy(q->path.local_gid, w->ep.sgid, 16);
	memcpy(q->path.remote_gid, w->ep.dgid, 16);
	q->path.traffic_class = w->ep.tos;
	q->path.hop_limit = 64;
	q->path.packet_rate = 3;	/* IB_RATE_10_GBPS: a veth's */
	/* cm_ack_timeout() of the packet life (16) with rxe's ack delay. */
	q->path.local_ack_timeout = w->ep.ack_timeout ? w->ep.ack_timeout :
				    ENG_CM_WIRE_PACKET_LIFE + 1;
}

int eng_cm_wire_connect(struct eng *e, struct eng_cm_id *id,
			const struct eng_cm_wire_ep *ep,
			const struct pv_cm_conn_param *p,
			const uint8_t *pdata, uint32_t len,
			struct eng_cm_wconn **ret)
{
	struct eng_cm_wtab *t = eng_cm_wtab(e);
	struct eng_dev *d = eng_dev_by_id(e, ep->dev_id);
	bool sidr = ep->ps == PV_CM_PS_UDP;
	struct eng_cm_event ev = { .type = sidr ? ENG_CM_EV_SIDR_RESOLVE :
						  ENG_CM_EV_CONNECT };
	struct eng_cm_wconn *w;
	struct eng_cm_act act;
	int err;

	if (!t)
		return -ENOMEM;
	if (!d)
		return -ENODEV;
	w = eng_cm_wire_alloc(t, eng_cm_wire_peer(ep->dev_id, ep->dgid));
	if (!w)
		return -ENOBUFS;
	w->ep = *ep;
	req_params(d, w, p);
	err = req_pdata(w, sidr ? ENG_CM_ATTR_SIDR_REQ : ENG_CM_ATTR_REQ,
			pdata, len);
	if (err < 0) {
		wire_free(t, w);
		return err;
	}
	w->sm->state = ENG_CM_IDLE;
	w->sm->local_qpn = p->qp_num & 0xffffff;
	w->sm->xrc = ep->xrc;
	w->sm->max_retries = (uint8_t)eng_lim.cm_max_retries;
	/* We wait for the REP as long as we tell the peer it may take
	 * (the kernel: both are CMA_CM_RESPONSE_TIMEOUT). */
	w->sm->resp_ms = eng_cm_resp_ms((uint8_t)eng_lim.cm_resp_timeout,
					ENG_CM_WIRE_PACKET_LIFE);
	w->sm->timewait_ms = eng_cm_timewait_ms(ENG_CM_WIRE_PACKET_LIFE);
	w->sm->tid = (uint64_t)eng_csprng_u32() << 32 | eng_csprng_u32();
	err = eng_cm_step(w->sm, &ev, &act);
	if (err < 0) {
		w->sm->state = ENG_CM_LISTEN;
		wire_free(t, w);
		return err;
	}
	w->id = id;
	*ret = w;
	eng_cm_wire_apply(e, w, &act, NULL);
	return 0;
}

static int user_step(struct eng *e, struct eng_cm_wconn *w, uint8_t type,
		     uint16_t reason)
{
	struct eng_cm_event ev = { .type = type, .reason = reason };
	struct eng_cm_act act;
	int ret = eng_cm_step(w->sm, &ev, &act);

	if (ret == 0)
		eng_cm_wire_apply(e, w, &act, NULL);
	return ret;
}

int eng_cm_wire_accept(struct eng *e, struct eng_cm_wconn *w,
		       const struct pv_cm_conn_param *p,
		       const uint8_t *pdata, uint32_t len)
{
	bool sidr = w->sm->state == ENG_CM_SIDR_REQ_RCVD;
	struct eng_cm_params *q = &w->prm;

	w->sm->local_qpn = p->qp_num & 0xffffff;
	q->starting_psn = p->psn & 0xffffff;
	q->responder_resources = p->responder_resources;
	q->initiator_depth = p->initiator_depth;
	q->rnr_retry_count = p->rnr_retry_count & 7;
	q->srq = p->srq ? 1 : 0;
	q->target_ack_delay = 15;	/* rxe's ack delay */
	q->xrc_tgt = w->ep.xrc;
	q->qkey = p->qkey;
	q->sidr_status = ENG_CM_SIDR_SUCCESS;
	user_pdata(w, pdata, len, sidr ? PV_CM_SIDR_REP_PDATA : PV_CM_REP_PDATA);
	if (!sidr)
		w->sm->timewait_ms = eng_cm_timewait_ms(ENG_CM_WIRE_PACKET_LIFE);
	return user_step(e, w, sidr ? ENG_CM_EV_SIDR_REPLY : ENG_CM_EV_ACCEPT, 0);
}

int eng_cm_wire_reject(struct eng *e, struct eng_cm_wconn *w,
		       const uint8_t *pdata, uint32_t len)
{
	if (w->sm->state == ENG_CM_SIDR_REQ_RCVD) {
		w->prm.sidr_status = ENG_CM_SIDR_REJECT;
		user_pdata(w, pdata, len, PV_CM_SIDR_REP_PDATA);
		return user_step(e, w, ENG_CM_EV_SIDR_REPLY, 0);
	}
	user_pdata(w, pdata, len, PV_CM_REJ_PDATA);
	return user_step(e, w, ENG_CM_EV_REJECT, ENG_CM_REJ_CONSUMER_DEFINED);
}

int eng_cm_wire_establish(struct eng *e, struct eng_cm_wconn *w)
{
	w->prm.private_data_len = 0;
	return user_step(e, w, ENG_CM_EV_READY, 0);
}

/* A REJ the state machine has no user event for (the id went while we
 * wait for the peer), then the slot is free: the kernel's cm_destroy_id
 * (REQ_SENT: REJ timeout; REP_SENT: REJ consumer defined). */
static void abandon(struct eng *e, struct eng_cm_wconn *w, uint16_t reason)
{
	struct eng_cm_act act = { .send = ENG_CM_ATTR_REJ,
				  .rej_reason = reason,
				  .msg_ref = ENG_CM_MSG_REF_OTHER,
				  .timer = ENG_CM_TIMER_CANCEL, .free = 1 };

	w->prm.private_data_len = 0;
	eng_cm_wire_apply(e, w, &act, NULL);
}

void eng_cm_wire_detach(struct eng *e, struct eng_cm_wconn *w)
{
	if (!w)
		return;
	w->id = NULL;
	eng_stat_inc(cm_wire_detached);
	switch (w->sm->state) {
	case ENG_CM_REQ_RCVD:
	case ENG_CM_MRA_REQ_SENT:
	case ENG_CM_REP_RCVD:
	case ENG_CM_MRA_REP_SENT:
		w->prm.private_data_len = 0;
		user_step(e, w, ENG_CM_EV_REJECT, ENG_CM_REJ_CONSUMER_DEFINED);
		return;
	case ENG_CM_REQ_SENT:
	case ENG_CM_MRA_REQ_RCVD:
		abandon(e, w, ENG_CM_REJ_TIMEOUT);
		return;
	case ENG_CM_REP_SENT:
	case ENG_CM_MRA_REP_RCVD:
		abandon(e, w, ENG_CM_REJ_CONSUMER_DEFINED);
		return;
	case ENG_CM_ESTABLISHED:
		w->prm.private_data_len = 0;
		w->sm->tid = (uint64_t)eng_csprng_u32() << 32 | eng_csprng_u32();
		/* Nobody waits for the DREP: the id was told DISCONNECTED
		 * (or is gone).  The kernel's cm_destroy_id sends one DREQ
		 * and enters timewait; a few resends cover a lost one, where
		 * max_cm_retries at the peer's response time would keep
		 * resending for over a minute to a peer that does not answer
		 * (its RDMA CM sends the DREP only when its user disconnects
		 * or destroys the id). */
		if (w->sm->max_retries > eng_lim.cm_dreq_retries)
			w->sm->max_retries = (uint8_t)eng_lim.cm_dreq_retries;
		user_step(e, w, ENG_CM_EV_DISCONNECT, 0);
		return;
	case ENG_CM_SIDR_REQ_RCVD:
		w->prm.sidr_status = ENG_CM_SIDR_REJECT;
		w->prm.private_data_len = 0;
		user_step(e, w, ENG_CM_EV_SIDR_REPLY, 0);
		return;
	case ENG_CM_SIDR_REQ_SENT:
		wire_free(g_tab, w);
		return;
	default:
		return;	/* DREQ_SENT, TIMEWAIT: finish alone */
	}
}
