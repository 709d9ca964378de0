/* SPDX-License-Identifier: MIT */
/*
 * Comm-ID matching: which connection a received CM message belongs to,
 * and what to answer when none does (see eng_cm_sm.h).  As the kernel's
 * ib_cm (cm_match_req, cm_rep_handler, cm_dreq_handler): a REQ is a
 * duplicate when its sender's comm ID is one we know from that peer; a
 * REQ naming a QPN the peer already has connected is stale (REJ, and
 * the old connection is torn down); a REP for an ID we do not have gets
 * REJ "invalid comm ID"; a DREQ for one gets a DREP so the peer can
 * finish; everything else unmatched is dropped.
 */
#include <string.h>

#include "providers/soft/engine/eng_cm_sm.h"

static int in_use(const struct eng_cm_conn *c)
{
	return c->state != ENG_CM_IDLE && c->state != ENG_CM_LISTEN;
}

int eng_cm_id_in_use(const struct eng_cm_tab *t, uint32_t id)
{
	if (id == 0)
		return 1;
	for (size_t i = 0; i < t->n; i++)
		if (in_use(&t->conns[i]) && t->conns[i].local_id == id)
			return 1;
	return 0;
}

static struct eng_cm_conn *find_remote(const struct eng_cm_tab *t, uint64_t peer,
				       uint32_t remote_id, int sidr)
{
	for (size_t i = 0; i < t->n; i++) {
		struct eng_cm_conn *c = &t->conns[i];
		int is_sidr = c->state == ENG_CM_SIDR_REQ_RCVD ||
			      c->state == ENG_CM_SIDR_REQ_SENT;

		if (in_use(c) && !c->active && c->peer == peer &&
		    c->remote_id == remote_id && is_sidr == sidr)
			return c;
	}
	return NULL;
}

static struct eng_cm_conn *find_peer_id(const struct eng_cm_tab *t, uint64_t peer,
					uint32_t remote_id)
{
	for (size_t i = 0; i < t->n; i++) {
		struct eng_cm_conn *c = &t->conns[i];

		if (in_use(c) && c->peer == peer && remote_id != 0 &&
		    c->remote_id == remote_id)
			return c;
	}
	return NULL;
}

/* The states in which a peer's QPN is bound to a connection of ours. */
static int holds_qpn(uint8_t state)
{
	switch (state) {
	case ENG_CM_REQ_RCVD:
	case ENG_CM_MRA_REQ_SENT:
	case ENG_CM_REP_SENT:
	case ENG_CM_MRA_REP_RCVD:
	case ENG_CM_REP_RCVD:
	case ENG_CM_MRA_REP_SENT:
	case ENG_CM_ESTABLISHED:
	case ENG_CM_DREQ_SENT:
		return 1;
	default:
		return 0;
	}
}

static struct eng_cm_conn *find_qpn(const struct eng_cm_tab *t, uint64_t peer,
				    uint32_t remote_qpn)
{
	for (size_t i = 0; i < t->n; i++) {
		struct eng_cm_conn *c = &t->conns[i];

		if (c->peer == peer && c->remote_qpn == remote_qpn &&
		    holds_qpn(c->state))
			return c;
	}
	return NULL;
}

static struct eng_cm_conn *find_local(const struct eng_cm_tab *t, uint64_t peer,
				      uint32_t local_id)
{
	for (size_t i = 0; i < t->n; i++) {
		struct eng_cm_conn *c = &t->conns[i];

		if (in_use(c) && c->peer == peer && c->local_id == local_id)
			return c;
	}
	return NULL;
}

void eng_cm_reply_rej(const struct eng_cm_msg *rcv, uint16_t reason,
		      uint8_t msg_ref, struct eng_cm_msg *reply)
{
	uint32_t from, to;

	eng_cm_msg_ids(rcv, &from, &to);
	memset(reply, 0, sizeof(*reply));
	reply->hdr.method = ENG_CM_METHOD_SEND;
	reply->hdr.tid = rcv->hdr.tid;
	reply->hdr.attr_id = ENG_CM_ATTR_REJ;
	reply->u.rej.local_comm_id = to;
	reply->u.rej.remote_comm_id = from;
	reply->u.rej.msg_rejected = msg_ref;
	reply->u.rej.reason = reason;
}

void eng_cm_reply_drep(const struct eng_cm_msg *rcv, struct eng_cm_msg *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->hdr.method = ENG_CM_METHOD_SEND;
	reply->hdr.tid = rcv->hdr.tid;
	reply->hdr.attr_id = ENG_CM_ATTR_DREP;
	reply->u.drep.local_comm_id = rcv->u.dreq.remote_comm_id;
	reply->u.drep.remote_comm_id = rcv->u.dreq.local_comm_id;
}

void eng_cm_no_listener(const struct eng_cm_msg *msg, struct eng_cm_msg *reply)
{
	if (msg->hdr.attr_id != ENG_CM_ATTR_SIDR_REQ) {
		eng_cm_reply_rej(msg, ENG_CM_REJ_INVALID_SERVICE_ID,
				 ENG_CM_MSG_REF_REQ, reply);
		return;
	}
	memset(reply, 0, sizeof(*reply));
	reply->hdr.method = ENG_CM_METHOD_SEND;
	reply->hdr.tid = msg->hdr.tid;
	reply->hdr.attr_id = ENG_CM_ATTR_SIDR_REP;
	reply->u.sidr_rep.request_id = msg->u.sidr_req.request_id;
	reply->u.sidr_rep.service_id = msg->u.sidr_req.service_id;
	reply->u.sidr_rep.status = ENG_CM_SIDR_UNSUPPORTED;
}

static int dispatch_req(const struct eng_cm_tab *t, const struct eng_cm_msg *m,
			uint64_t peer, struct eng_cm_conn **ret,
			struct eng_cm_msg *reply)
{
	struct eng_cm_conn *c = find_remote(t, peer, m->u.req.local_comm_id, 0);

	if (c) {
		*ret = c;
		return ENG_CM_DISP_CONN;
	}
	c = find_qpn(t, peer, m->u.req.local_qpn);
	if (c) {
		/* The peer reused a QPN we still think connected: it lost
		 * that connection (IBA 12.9.8.3.3).  Refuse this one and let
		 * the caller disconnect the old one if established. */
		eng_cm_reply_rej(m, ENG_CM_REJ_STALE_CONN, ENG_CM_MSG_REF_REQ, reply);
		*ret = c->state == ENG_CM_ESTABLISHED ? c : NULL;
		return ENG_CM_DISP_REPLY;
	}
	return ENG_CM_DISP_LISTEN;
}

int eng_cm_dispatch(const struct eng_cm_tab *t, const struct eng_cm_msg *msg,
		    uint64_t peer, struct eng_cm_conn **ret_conn,
		    struct eng_cm_msg *reply)
{
	struct eng_cm_conn *c;
	uint32_t from, to;

	*ret_conn = NULL;
	switch (msg->hdr.attr_id) {
	case ENG_CM_ATTR_REQ:
		return dispatch_req(t, msg, peer, ret_conn, reply);
	case ENG_CM_ATTR_SIDR_REQ:
		c = find_remote(t, peer, msg->u.sidr_req.request_id, 1);
		*ret_conn = c;
		return c ? ENG_CM_DISP_CONN : ENG_CM_DISP_LISTEN;
	case ENG_CM_ATTR_MRA:
	case ENG_CM_ATTR_REJ:
	case ENG_CM_ATTR_REP:
	case ENG_CM_ATTR_RTU:
	case ENG_CM_ATTR_DREQ:
	case ENG_CM_ATTR_DREP:
	case ENG_CM_ATTR_SIDR_REP:
	case ENG_CM_ATTR_LAP:
	case ENG_CM_ATTR_APR:
		break;
	default:
		return ENG_CM_DISP_DROP;
	}
	eng_cm_msg_ids(msg, &from, &to);
	/* The kernel's active side gives up with a REJ "timeout" naming
	 * only itself (remote comm ID 0, its CA GUID in the ARI): match it
	 * by the sender's ID, as cm_acquire_rejected_id does. */
	if (msg->hdr.attr_id == ENG_CM_ATTR_REJ && to == 0) {
		c = find_peer_id(t, peer, from);
		*ret_conn = c;
		return c ? ENG_CM_DISP_CONN : ENG_CM_DISP_DROP;
	}
	c = find_local(t, peer, to);
	if (c) {
		*ret_conn = c;
		return ENG_CM_DISP_CONN;
	}
	if (msg->hdr.attr_id == ENG_CM_ATTR_REP) {
		eng_cm_reply_rej(msg, ENG_CM_REJ_INVALID_COMM_ID, ENG_CM_MSG_REF_REP,
				 reply);
		return ENG_CM_DISP_REPLY;
	}
	if (msg->hdr.attr_id == ENG_CM_ATTR_DREQ) {
		eng_cm_reply_drep(msg, reply);
		return ENG_CM_DISP_REPLY;
	}
	return ENG_CM_DISP_DROP;
}
