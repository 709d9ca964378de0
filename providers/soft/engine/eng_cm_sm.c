/* SPDX-License-Identifier: MIT */
/*
 * IB CM connection state machine steps (see eng_cm_sm.h).  States and
 * transitions follow IBA vol 1 §12.9.6 (communication establishment:
 * active and passive), §12.9.7 (release), §12.11 (SIDR); where the spec
 * leaves room the kernel's ib_cm is the model:
 *  - a duplicate REQ while our REP is outstanding resends the REP; in
 *    TIMEWAIT it gets REJ "stale connection"; otherwise it is ignored;
 *  - a duplicate REP once established resends the RTU;
 *  - a DREQ is answered with a DREP at once (the RDMA CM's consumers
 *    see DISCONNECTED either way), again for each duplicate in TIMEWAIT;
 *  - a REQ or REP given up after max_cm_retries resends is followed by
 *    a REJ "timeout" (what the kernel sends when the id is destroyed);
 *  - the first data on the QP establishes a passive connection whose RTU
 *    was lost (ib_cm_notify(IB_EVENT_COMM_EST));
 *  - an MRA (IBA 12.6.6) stops the resending of the message it names and
 *    extends the wait by its service timeout plus our response time; one
 *    for another message, or in another state, is dropped;
 *  - a LAP of an established connection is answered with an APR, status
 *    "unsupported" (no alternate paths here); elsewhere, and every APR,
 *    is dropped.  (Linux's CM drops LAP and APR on a RoCE port without
 *    an answer; the APR tells an IB-style peer at once what the spec's
 *    CM that does not do APM would.)
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_sm.h"

uint32_t eng_cm_time_ms(uint8_t t)
{
	t &= 0x1f;
	/* 4.096 us * 2^t = 2^(t-8) ms, rounded up to 1 ms below t = 8. */
	return t <= 8 ? 1u : 1u << (t - 8);
}

uint32_t eng_cm_resp_ms(uint8_t peer_resp_timeout, uint8_t packet_life)
{
	return 2u * eng_cm_time_ms(packet_life) + eng_cm_time_ms(peer_resp_timeout);
}

uint32_t eng_cm_timewait_ms(uint8_t packet_life)
{
	/* cm_init_av_by_path: av.timeout = packet life + 1; the timewait
	 * lasts that long (cm_enter_timewait). */
	packet_life &= 0x1f;
	return eng_cm_time_ms(packet_life < 0x1f ? packet_life + 1 : 0x1f);
}

const char *eng_cm_state_name(uint8_t state)
{
	static const char *const names[ENG_CM_STATE_MAX] = {
		"IDLE", "LISTEN", "REQ_SENT", "MRA_REQ_RCVD", "REP_RCVD",
		"REQ_RCVD", "REP_SENT", "MRA_REP_RCVD", "ESTABLISHED",
		"DREQ_SENT", "TIMEWAIT", "SIDR_REQ_SENT", "SIDR_REQ_RCVD",
		"MRA_REQ_SENT", "MRA_REP_SENT",
	};

	return state < ENG_CM_STATE_MAX ? names[state] : "?";
}

/* Send msg_attr and wait for its answer. */
static void send_wait(struct eng_cm_conn *c, struct eng_cm_act *a, uint16_t attr,
		      uint8_t next)
{
	a->send = attr;
	a->timer = ENG_CM_TIMER_ARM;
	a->timer_ms = c->resp_ms;
	c->retries = 0;
	c->state = next;
}

static void to_idle(struct eng_cm_conn *c, struct eng_cm_act *a, uint8_t ev,
		    int32_t status)
{
	a->event = ev;
	a->status = status;
	a->timer = ENG_CM_TIMER_CANCEL;
	a->free = 1;
	c->state = ENG_CM_IDLE;
}

static void to_timewait(struct eng_cm_conn *c, struct eng_cm_act *a, uint8_t ev)
{
	a->event = ev;
	a->timer = ENG_CM_TIMER_ARM;
	a->timer_ms = c->timewait_ms;
	c->state = ENG_CM_TIMEWAIT;
}

static void send_rej(struct eng_cm_act *a, uint16_t reason, uint8_t ref)
{
	a->send = ENG_CM_ATTR_REJ;
	a->rej_reason = reason;
	a->msg_ref = ref;
}

/* Whether we owe the peer an answer to its REQ (REP or REJ) or to its
 * REP (RTU or REJ), an MRA sent or not. */
static int awaits_req_answer(const struct eng_cm_conn *c)
{
	return c->state == ENG_CM_REQ_RCVD || c->state == ENG_CM_MRA_REQ_SENT;
}

static int awaits_rep_answer(const struct eng_cm_conn *c)
{
	return c->state == ENG_CM_REP_RCVD || c->state == ENG_CM_MRA_REP_SENT;
}

static int user_step(struct eng_cm_conn *c, const struct eng_cm_event *ev,
		     struct eng_cm_act *a)
{
	switch (ev->type) {
	case ENG_CM_EV_CONNECT:
		if (c->state != ENG_CM_IDLE)
			return -EINVAL;
		c->active = 1;
		send_wait(c, a, ENG_CM_ATTR_REQ, ENG_CM_REQ_SENT);
		return 0;
	case ENG_CM_EV_SIDR_RESOLVE:
		if (c->state != ENG_CM_IDLE)
			return -EINVAL;
		c->active = 1;
		send_wait(c, a, ENG_CM_ATTR_SIDR_REQ, ENG_CM_SIDR_REQ_SENT);
		return 0;
	case ENG_CM_EV_ACCEPT:
		if (c->state != ENG_CM_REQ_RCVD && c->state != ENG_CM_MRA_REQ_SENT)
			return -EINVAL;
		send_wait(c, a, ENG_CM_ATTR_REP, ENG_CM_REP_SENT);
		return 0;
	case ENG_CM_EV_REJECT:
		if (!awaits_req_answer(c) && !awaits_rep_answer(c))
			return -EINVAL;
		send_rej(a, ev->reason, awaits_req_answer(c) ?
			 ENG_CM_MSG_REF_REQ : ENG_CM_MSG_REF_REP);
		to_idle(c, a, ENG_CM_UEV_NONE, 0);
		return 0;
	case ENG_CM_EV_MRA:
		/* IBA 12.6.6: the peer keeps waiting instead of resending. */
		if (c->state != ENG_CM_REQ_RCVD && c->state != ENG_CM_REP_RCVD)
			return -EINVAL;
		a->send = ENG_CM_ATTR_MRA;
		a->msg_ref = c->state == ENG_CM_REQ_RCVD ? ENG_CM_MSG_REF_REQ :
			     ENG_CM_MSG_REF_REP;
		c->state = c->state == ENG_CM_REQ_RCVD ? ENG_CM_MRA_REQ_SENT :
			   ENG_CM_MRA_REP_SENT;
		return 0;
	case ENG_CM_EV_READY:
		if (!awaits_rep_answer(c))
			return -EINVAL;
		a->send = ENG_CM_ATTR_RTU;
		a->event = ENG_CM_UEV_ESTABLISHED;
		c->state = ENG_CM_ESTABLISHED;
		return 0;
	case ENG_CM_EV_DISCONNECT:
		if (c->state != ENG_CM_ESTABLISHED)
			return -EINVAL;
		send_wait(c, a, ENG_CM_ATTR_DREQ, ENG_CM_DREQ_SENT);
		return 0;
	case ENG_CM_EV_SIDR_REPLY:
		if (c->state != ENG_CM_SIDR_REQ_RCVD)
			return -EINVAL;
		a->send = ENG_CM_ATTR_SIDR_REP;
		to_idle(c, a, ENG_CM_UEV_NONE, 0);
		return 0;
	case ENG_CM_EV_DATA:
		/* Only meaningful while the RTU may be lost; else harmless. */
		if (c->state == ENG_CM_REP_SENT || c->state == ENG_CM_MRA_REP_RCVD) {
			a->timer = ENG_CM_TIMER_CANCEL;
			a->event = ENG_CM_UEV_ESTABLISHED;
			c->state = ENG_CM_ESTABLISHED;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

static int timeout_step(struct eng_cm_conn *c, struct eng_cm_act *a)
{
	uint8_t resend_state;

	switch (c->state) {
	case ENG_CM_REQ_SENT:
	case ENG_CM_MRA_REQ_RCVD:
		resend_state = ENG_CM_REQ_SENT;
		break;
	case ENG_CM_REP_SENT:
	case ENG_CM_MRA_REP_RCVD:
		resend_state = ENG_CM_REP_SENT;
		break;
	case ENG_CM_DREQ_SENT:
	case ENG_CM_SIDR_REQ_SENT:
		resend_state = c->state;
		break;
	case ENG_CM_TIMEWAIT:
		to_idle(c, a, ENG_CM_UEV_TIMEWAIT_EXIT, 0);
		return 0;
	default:
		/* A timer the caller failed to cancel: nothing to do. */
		a->drop = ENG_CM_DROP_STATE;
		return 0;
	}
	if (c->retries < c->max_retries) {
		c->retries++;
		a->resend = 1;
		a->timer = ENG_CM_TIMER_ARM;
		a->timer_ms = c->resp_ms;
		c->state = resend_state;
		return 0;
	}
	switch (resend_state) {
	case ENG_CM_DREQ_SENT:
		to_timewait(c, a, ENG_CM_UEV_DISCONNECTED);
		break;
	case ENG_CM_SIDR_REQ_SENT:
		to_idle(c, a, ENG_CM_UEV_UNREACHABLE, -ETIMEDOUT);
		break;
	default:
		/* As the kernel's: "other" (we reject no message of the
		 * peer's), the caller puts our CA GUID in the ARI. */
		send_rej(a, ENG_CM_REJ_TIMEOUT, ENG_CM_MSG_REF_OTHER);
		to_idle(c, a, ENG_CM_UEV_UNREACHABLE, -ETIMEDOUT);
		break;
	}
	return 0;
}

void eng_cm_msg_ids(const struct eng_cm_msg *m, uint32_t *from, uint32_t *to)
{
	*from = *to = 0;
	switch (m->hdr.attr_id) {
	case ENG_CM_ATTR_REQ: *from = m->u.req.local_comm_id; break;
	case ENG_CM_ATTR_MRA: *from = m->u.mra.local_comm_id; *to = m->u.mra.remote_comm_id; break;
	case ENG_CM_ATTR_REJ: *from = m->u.rej.local_comm_id; *to = m->u.rej.remote_comm_id; break;
	case ENG_CM_ATTR_REP: *from = m->u.rep.local_comm_id; *to = m->u.rep.remote_comm_id; break;
	case ENG_CM_ATTR_RTU: *from = m->u.rtu.local_comm_id; *to = m->u.rtu.remote_comm_id; break;
	case ENG_CM_ATTR_DREQ: *from = m->u.dreq.local_comm_id; *to = m->u.dreq.remote_comm_id; break;
	case ENG_CM_ATTR_DREP: *from = m->u.drep.local_comm_id; *to = m->u.drep.remote_comm_id; break;
	case ENG_CM_ATTR_SIDR_REQ: *from = m->u.sidr_req.request_id; break;
	case ENG_CM_ATTR_SIDR_REP: *to = m->u.sidr_rep.request_id; break;
	case ENG_CM_ATTR_LAP: *from = m->u.lap.local_comm_id; *to = m->u.lap.remote_comm_id; break;
	case ENG_CM_ATTR_APR: *from = m->u.apr.local_comm_id; *to = m->u.apr.remote_comm_id; break;
	default: break;
	}
}

/* Whether m belongs to c: it must name our ID, and once we know the
 * peer's ID, come from it.  A REJ of our REQ may not know our peer's ID
 * yet; a REQ/SIDR_REQ is matched by the dispatcher. */
static int ids_match(const struct eng_cm_conn *c, const struct eng_cm_msg *m)
{
	uint32_t from, to;

	eng_cm_msg_ids(m, &from, &to);
	switch (m->hdr.attr_id) {
	case ENG_CM_ATTR_REQ:
	case ENG_CM_ATTR_SIDR_REQ:
		return c->state == ENG_CM_LISTEN || from == c->remote_id;
	case ENG_CM_ATTR_SIDR_REP:
		return to == c->local_id;
	case ENG_CM_ATTR_REP:
		if (c->state == ENG_CM_REQ_SENT || c->state == ENG_CM_MRA_REQ_RCVD)
			return to == c->local_id;
		break;
	case ENG_CM_ATTR_REJ:
		/* A peer giving up before it learnt our ID (REJ timeout). */
		if (to == 0 && c->remote_id != 0 && from == c->remote_id)
			return 1;
		/* fall through */
	case ENG_CM_ATTR_MRA:
		if (to == c->local_id && c->remote_id == 0)
			return 1;
		break;
	case ENG_CM_ATTR_DREQ:
		if (m->u.dreq.remote_qpn != c->local_qpn)
			return 0;
		break;
	case ENG_CM_ATTR_LAP:
		if (m->u.lap.remote_qpn != c->local_qpn)
			return 0;
		break;
	default:
		break;
	}
	return to == c->local_id && from == c->remote_id;
}

/* A message that extends our wait (IBA 12.6.6): the outstanding REQ or
 * REP stays outstanding, answered later than its timeout said. */
static void rx_mra(struct eng_cm_conn *c, const struct eng_cm_mra *mra,
		   uint8_t ref, uint8_t next, struct eng_cm_act *a)
{
	if (mra->msg_mraed != ref) {
		a->drop = ENG_CM_DROP_STATE;
		return;
	}
	if (c->state == next) {
		a->drop = ENG_CM_DROP_DUP;
		return;
	}
	a->timer = ENG_CM_TIMER_ARM;
	a->timer_ms = eng_cm_time_ms(mra->service_timeout) + c->resp_ms;
	c->state = next;
}

static void rx_listen(struct eng_cm_conn *c, const struct eng_cm_msg *m,
		      struct eng_cm_act *a)
{
	if (m->hdr.attr_id == ENG_CM_ATTR_REQ) {
		c->active = 0;
		c->remote_id = m->u.req.local_comm_id;
		c->remote_qpn = m->u.req.local_qpn;
		c->max_retries = m->u.req.max_cm_retries;
		/* How long the active side may take to answer our REP. */
		c->resp_ms = eng_cm_time_ms(m->u.req.local_cm_response_timeout);
		c->state = ENG_CM_REQ_RCVD;
		a->event = ENG_CM_UEV_REQ_RCVD;
	} else if (m->hdr.attr_id == ENG_CM_ATTR_SIDR_REQ) {
		c->active = 0;
		c->remote_id = m->u.sidr_req.request_id;
		c->state = ENG_CM_SIDR_REQ_RCVD;
		a->event = ENG_CM_UEV_SIDR_REQ_RCVD;
	} else {
		a->drop = ENG_CM_DROP_STATE;
	}
}

/* Active side, our REQ outstanding. */
static void rx_req_sent(struct eng_cm_conn *c, const struct eng_cm_msg *m,
			struct eng_cm_act *a)
{
	switch (m->hdr.attr_id) {
	case ENG_CM_ATTR_REP:
		c->remote_id = m->u.rep.local_comm_id;
		c->remote_qpn = c->xrc ? m->u.rep.local_eecn :
					 m->u.rep.local_qpn;
		a->timer = ENG_CM_TIMER_CANCEL;
		a->event = ENG_CM_UEV_REP_RCVD;
		c->state = ENG_CM_REP_RCVD;
		break;
	case ENG_CM_ATTR_MRA:
		rx_mra(c, &m->u.mra, ENG_CM_MSG_REF_REQ, ENG_CM_MRA_REQ_RCVD, a);
		break;
	case ENG_CM_ATTR_REJ:
		to_idle(c, a, ENG_CM_UEV_REJECTED, m->u.rej.reason);
		break;
	default:
		a->drop = ENG_CM_DROP_STATE;
		break;
	}
}

/* Passive side, our REP outstanding. */
static void rx_rep_sent(struct eng_cm_conn *c, const struct eng_cm_msg *m,
			struct eng_cm_act *a)
{
	switch (m->hdr.attr_id) {
	case ENG_CM_ATTR_REQ:
		/* Our REP was lost or is late: send it again, same bytes. */
		a->resend = 1;
		a->drop = ENG_CM_DROP_DUP;
		break;
	case ENG_CM_ATTR_RTU:
		a->timer = ENG_CM_TIMER_CANCEL;
		a->event = ENG_CM_UEV_ESTABLISHED;
		c->state = ENG_CM_ESTABLISHED;
		break;
	case ENG_CM_ATTR_MRA:
		rx_mra(c, &m->u.mra, ENG_CM_MSG_REF_REP, ENG_CM_MRA_REP_RCVD, a);
		break;
	case ENG_CM_ATTR_REJ:
		to_idle(c, a, ENG_CM_UEV_REJECTED, m->u.rej.reason);
		break;
	case ENG_CM_ATTR_DREQ:
		/* The RTU was lost and the peer is already leaving. */
		a->send = ENG_CM_ATTR_DREP;
		to_timewait(c, a, ENG_CM_UEV_DISCONNECTED);
		break;
	default:
		a->drop = ENG_CM_DROP_STATE;
		break;
	}
}

static void rx_established(struct eng_cm_conn *c, const struct eng_cm_msg *m,
			   struct eng_cm_act *a)
{
	switch (m->hdr.attr_id) {
	case ENG_CM_ATTR_REP:
		/* Our RTU was lost: the passive side resent its REP. */
		if (c->active)
			a->send = ENG_CM_ATTR_RTU;
		a->drop = ENG_CM_DROP_DUP;
		break;
	case ENG_CM_ATTR_REQ:
	case ENG_CM_ATTR_RTU:
		a->drop = ENG_CM_DROP_DUP;
		break;
	case ENG_CM_ATTR_DREQ:
		a->send = ENG_CM_ATTR_DREP;
		to_timewait(c, a, ENG_CM_UEV_DISCONNECTED);
		break;
	case ENG_CM_ATTR_LAP:
		/* We load no alternate path (no APM): the APR says so, in
		 * the LAP's transaction, and the connection stays as it is.
		 * A duplicate LAP gets the same answer again. */
		a->send = ENG_CM_ATTR_APR;
		a->tid = m->hdr.tid;
		break;
	default:
		/* An APR too: we never send a LAP. */
		a->drop = ENG_CM_DROP_STATE;
		break;
	}
}

static void rx_release(struct eng_cm_conn *c, const struct eng_cm_msg *m,
		       struct eng_cm_act *a)
{
	uint16_t attr = m->hdr.attr_id;

	if (c->state == ENG_CM_DREQ_SENT && attr == ENG_CM_ATTR_DREP) {
		to_timewait(c, a, ENG_CM_UEV_DISCONNECTED);
	} else if (c->state == ENG_CM_DREQ_SENT && attr == ENG_CM_ATTR_DREQ) {
		/* Both sides disconnect at once. */
		a->send = ENG_CM_ATTR_DREP;
		to_timewait(c, a, ENG_CM_UEV_DISCONNECTED);
	} else if (c->state == ENG_CM_TIMEWAIT && attr == ENG_CM_ATTR_DREQ) {
		/* Our DREP was lost. */
		a->send = ENG_CM_ATTR_DREP;
		a->drop = ENG_CM_DROP_DUP;
	} else if (c->state == ENG_CM_TIMEWAIT && attr == ENG_CM_ATTR_REQ) {
		send_rej(a, ENG_CM_REJ_STALE_CONN, ENG_CM_MSG_REF_REQ);
		a->drop = ENG_CM_DROP_DUP;
	} else if (attr == ENG_CM_ATTR_DREP || attr == ENG_CM_ATTR_RTU) {
		a->drop = ENG_CM_DROP_DUP;
	} else {
		a->drop = ENG_CM_DROP_STATE;
	}
}

static void rx_other(struct eng_cm_conn *c, const struct eng_cm_msg *m,
		     struct eng_cm_act *a)
{
	uint16_t attr = m->hdr.attr_id;

	switch (c->state) {
	case ENG_CM_REP_RCVD:
	case ENG_CM_REQ_RCVD:
	case ENG_CM_MRA_REP_SENT:
	case ENG_CM_MRA_REQ_SENT:
		if (attr == ENG_CM_ATTR_REJ) {
			to_idle(c, a, ENG_CM_UEV_REJECTED, m->u.rej.reason);
		} else if (attr == ENG_CM_ATTR_REP || attr == ENG_CM_ATTR_REQ) {
			/* The peer resent: our MRA was lost, send it again
			 * (the kernel's cm_dup_req_handler / dup_rep). */
			if (c->state == ENG_CM_MRA_REQ_SENT || c->state == ENG_CM_MRA_REP_SENT) {
				a->send = ENG_CM_ATTR_MRA;
				a->msg_ref = c->state == ENG_CM_MRA_REQ_SENT ?
					     ENG_CM_MSG_REF_REQ : ENG_CM_MSG_REF_REP;
			}
			a->drop = ENG_CM_DROP_DUP;
		} else {
			a->drop = ENG_CM_DROP_STATE;
		}
		break;
	case ENG_CM_SIDR_REQ_SENT:
		if (attr == ENG_CM_ATTR_SIDR_REP)
			to_idle(c, a, ENG_CM_UEV_SIDR_REP_RCVD, m->u.sidr_rep.status);
		else
			a->drop = ENG_CM_DROP_STATE;
		break;
	case ENG_CM_SIDR_REQ_RCVD:
		a->drop = attr == ENG_CM_ATTR_SIDR_REQ ? ENG_CM_DROP_DUP :
			  ENG_CM_DROP_STATE;
		break;
	default:
		a->drop = ENG_CM_DROP_STATE;
		break;
	}
}

static int rx_step(struct eng_cm_conn *c, const struct eng_cm_msg *m,
		   struct eng_cm_act *a)
{
	switch (c->state) {
	case ENG_CM_LISTEN:
		rx_listen(c, m, a);
		break;
	case ENG_CM_REQ_SENT:
	case ENG_CM_MRA_REQ_RCVD:
		rx_req_sent(c, m, a);
		break;
	case ENG_CM_REP_SENT:
	case ENG_CM_MRA_REP_RCVD:
		rx_rep_sent(c, m, a);
		break;
	case ENG_CM_ESTABLISHED:
		rx_established(c, m, a);
		break;
	case ENG_CM_DREQ_SENT:
	case ENG_CM_TIMEWAIT:
		rx_release(c, m, a);
		break;
	default:
		rx_other(c, m, a);
		break;
	}
	return 0;
}

int eng_cm_step(struct eng_cm_conn *c, const struct eng_cm_event *ev,
		struct eng_cm_act *act)
{
	memset(act, 0, sizeof(*act));
	if (c->state >= ENG_CM_STATE_MAX)
		return -EINVAL;
	switch (ev->type) {
	case ENG_CM_EV_TIMEOUT:
		return timeout_step(c, act);
	case ENG_CM_EV_RX:
		if (!ev->msg)
			return -EBADMSG;
		if (!ids_match(c, ev->msg)) {
			act->drop = ENG_CM_DROP_ID;
			return 0;
		}
		/* What we send in answer carries the asker's transaction. */
		if (ev->msg->hdr.attr_id == ENG_CM_ATTR_REQ ||
		    ev->msg->hdr.attr_id == ENG_CM_ATTR_SIDR_REQ ||
		    ev->msg->hdr.attr_id == ENG_CM_ATTR_DREQ)
			c->tid = ev->msg->hdr.tid;
		return rx_step(c, ev->msg, act);
	default:
		return user_step(c, ev, act);
	}
}
