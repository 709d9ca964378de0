/* SPDX-License-Identifier: MIT */
/* Building CM messages from a connection (see eng_cm_build.h). */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_build.h"

static int pdata(const struct eng_cm_params *p, uint8_t *dst, size_t size,
		 uint8_t *len)
{
	if (p->private_data_len > size)
		return -EINVAL;
	if (p->private_data_len)
		memcpy(dst, p->private_data, p->private_data_len);
	*len = p->private_data_len;
	return 0;
}

static int build_req(const struct eng_cm_conn *c, const struct eng_cm_params *p,
		     struct eng_cm_req *r)
{
	r->local_comm_id = c->local_id;
	r->service_id = p->service_id;
	r->local_ca_guid = p->local_ca_guid;
	r->local_qpn = c->local_qpn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->remote_cm_response_timeout = p->remote_cm_response_timeout;
	r->transport_type = p->transport_type;
	r->ext_transport_type = p->ext_transport_type;
	r->starting_psn = p->starting_psn;
	r->local_cm_response_timeout = p->local_cm_response_timeout;
	r->retry_count = p->retry_count;
	r->pkey = p->pkey;
	r->path_mtu = p->path_mtu;
	r->rnr_retry_count = p->rnr_retry_count;
	r->max_cm_retries = c->max_retries;
	r->srq = p->srq;
	r->primary = p->path;
	/* RoCE (IBA A17.4.2): no LIDs; routed unless hop limit <= 1. */
	r->primary.local_lid = 0xffff;
	r->primary.remote_lid = 0xffff;
	r->primary.subnet_local = p->path.hop_limit <= 1;
	return pdata(p, r->private_data, sizeof(r->private_data), &r->private_data_len);
}

static int build_rep(const struct eng_cm_conn *c, const struct eng_cm_params *p,
		     struct eng_cm_rep *r)
{
	r->local_comm_id = c->local_id;
	r->remote_comm_id = c->remote_id;
	r->local_qpn = c->local_qpn;
	r->starting_psn = p->starting_psn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->target_ack_delay = p->target_ack_delay;
	r->rnr_retry_count = p->rnr_retry_count;
	r->srq = p->srq;
	r->local_ca_guid = p->local_ca_guid;
	if (p->xrc_tgt) {
		/* An XRC target has no send queue of its own to pair. */
		r->local_eecn = c->local_qpn;
		r->local_qpn = 0;
		r->initiator_depth = 0;
		r->srq = 1;
	}
	return pdata(p, r->private_data, sizeof(r->private_data), &r->private_data_len);
}

static int build_rej(const struct eng_cm_conn *c, const struct eng_cm_act *a,
		     const struct eng_cm_params *p, struct eng_cm_rej *r)
{
	/* Rejecting a REQ, the passive side has no ID the peer knows. */
	r->local_comm_id = (a->msg_ref == ENG_CM_MSG_REF_REQ && !c->active) ?
			   0 : c->local_id;
	r->remote_comm_id = c->remote_id;
	r->msg_rejected = a->msg_ref;
	r->reason = a->rej_reason;
	if (a->rej_reason == ENG_CM_REJ_TIMEOUT) {
		/* The peer finds us by GUID (cm_acquire_rejected_id). */
		for (int i = 0; i < 8; i++)
			r->ari[i] = (uint8_t)(p->local_ca_guid >> (56 - 8 * i));
		r->ari_len = 8;
	}
	return pdata(p, r->private_data, sizeof(r->private_data), &r->private_data_len);
}

static int build_small(const struct eng_cm_conn *c, const struct eng_cm_act *a,
		       const struct eng_cm_params *p, struct eng_cm_msg *m)
{
	switch (a->send) {
	case ENG_CM_ATTR_MRA:
		m->u.mra.local_comm_id = c->local_id;
		m->u.mra.remote_comm_id = c->remote_id;
		m->u.mra.msg_mraed = a->msg_ref;
		m->u.mra.service_timeout = p->service_timeout;
		return pdata(p, m->u.mra.private_data, sizeof(m->u.mra.private_data),
			     &m->u.mra.private_data_len);
	case ENG_CM_ATTR_RTU:
		m->u.rtu.local_comm_id = c->local_id;
		m->u.rtu.remote_comm_id = c->remote_id;
		return pdata(p, m->u.rtu.private_data, sizeof(m->u.rtu.private_data),
			     &m->u.rtu.private_data_len);
	case ENG_CM_ATTR_DREQ:
		m->u.dreq.local_comm_id = c->local_id;
		m->u.dreq.remote_comm_id = c->remote_id;
		m->u.dreq.remote_qpn = c->remote_qpn;
		return pdata(p, m->u.dreq.private_data, sizeof(m->u.dreq.private_data),
			     &m->u.dreq.private_data_len);
	case ENG_CM_ATTR_DREP:
		m->u.drep.local_comm_id = c->local_id;
		m->u.drep.remote_comm_id = c->remote_id;
		return pdata(p, m->u.drep.private_data, sizeof(m->u.drep.private_data),
			     &m->u.drep.private_data_len);
	case ENG_CM_ATTR_APR:
		/* No private data: the consumer never sees the LAP. */
		m->hdr.tid = a->tid;
		m->u.apr.local_comm_id = c->local_id;
		m->u.apr.remote_comm_id = c->remote_id;
		m->u.apr.ap_status = ENG_CM_APR_UNSUPPORTED;
		return 0;
	default:
		return -EINVAL;
	}
}

static int build_sidr(const struct eng_cm_conn *c, const struct eng_cm_act *a,
		      const struct eng_cm_params *p, struct eng_cm_msg *m)
{
	if (a->send == ENG_CM_ATTR_SIDR_REQ) {
		m->u.sidr_req.request_id = c->local_id;
		m->u.sidr_req.pkey = p->pkey;
		m->u.sidr_req.service_id = p->service_id;
		return pdata(p, m->u.sidr_req.private_data,
			     sizeof(m->u.sidr_req.private_data),
			     &m->u.sidr_req.private_data_len);
	}
	m->u.sidr_rep.request_id = c->remote_id;
	m->u.sidr_rep.status = p->sidr_status;
	m->u.sidr_rep.qpn = c->local_qpn;
	m->u.sidr_rep.service_id = p->service_id;
	m->u.sidr_rep.qkey = p->qkey;
	return pdata(p, m->u.sidr_rep.private_data, sizeof(m->u.sidr_rep.private_data),
		     &m->u.sidr_rep.private_data_len);
}

int eng_cm_build(const struct eng_cm_conn *c, const struct eng_cm_act *act,
		 const struct eng_cm_params *p, struct eng_cm_msg *out)
{
	memset(out, 0, sizeof(*out));
	out->hdr.method = ENG_CM_METHOD_SEND;
	out->hdr.attr_id = act->send;
	out->hdr.tid = c->tid;
	switch (act->send) {
	case ENG_CM_ATTR_REQ:
		return build_req(c, p, &out->u.req);
	case ENG_CM_ATTR_REP:
		return build_rep(c, p, &out->u.rep);
	case ENG_CM_ATTR_REJ:
		return build_rej(c, act, p, &out->u.rej);
	case ENG_CM_ATTR_SIDR_REQ:
	case ENG_CM_ATTR_SIDR_REP:
		return build_sidr(c, act, p, out);
	default:
		return build_small(c, act, p, out);
	}
}
