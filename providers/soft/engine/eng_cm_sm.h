/* SPDX-License-Identifier: MIT */
/*
 * The IB CM's connection state machines (IBA vol 1 §12.9, figures 157-
 * 160; behaviour matched to the Linux kernel's ib_cm where the spec
 * leaves room), written as steps: eng_cm_step() takes a connection and
 * one event (a user call, a received message, the connection's timer)
 * and returns the next state in the connection plus the actions the
 * caller must take (send or resend a message, arm or cancel the timer,
 * deliver an event to the user, free the connection).  Pure: no I/O, no
 * clock, no allocation; the caller owns connections, timers and MADs.
 *
 * Comm-ID matching (eng_cm_dispatch) routes a received message to its
 * connection in a caller-owned table, or says what to answer without one
 * (REJ "invalid comm ID" for an unknown REP, DREP for an unknown DREQ,
 * REJ "stale connection" for a REQ reusing a connected QPN, REJ "invalid
 * service ID" / SIDR_REP "unsupported" when no listener matches).
 *
 * Retransmission: a message that expects an answer (REQ, REP, DREQ,
 * SIDR_REQ) is sent with the timer armed for resp_ms; each expiry
 * resends it (act.resend: the caller resends the bytes it kept) until
 * max_retries resends, then the connection gives up (UNREACHABLE, or
 * TIMEWAIT for a DREQ).  An MRA extends the wait by its service timeout.
 *
 * Building the messages is the caller's: for act.send == REJ with
 * reason ENG_CM_REJ_TIMEOUT, put our CA GUID in the ARI (ari_len 8), and
 * in REQ_RCVD a REJ's local comm ID is 0, as the kernel's cm_format_rej.
 * A duplicate REQ in REP_SENT is answered with the REP at once (the
 * kernel drops it and lets the REP's own retransmission answer): the
 * caller should bound how often per connection.
 */
#ifndef ENG_CM_SM_H
#define ENG_CM_SM_H

#include <stddef.h>
#include <stdint.h>

#include "providers/soft/engine/eng_cm_msg.h"

enum eng_cm_state {
	ENG_CM_IDLE = 0,	/* free slot, or nothing yet */
	ENG_CM_LISTEN,		/* a passive connection before its REQ */
	ENG_CM_REQ_SENT,
	ENG_CM_MRA_REQ_RCVD,	/* our REQ was MRAed: waiting longer */
	ENG_CM_REP_RCVD,	/* waiting for the user to make the QP ready */
	ENG_CM_REQ_RCVD,	/* waiting for the user's accept/reject */
	ENG_CM_REP_SENT,
	ENG_CM_MRA_REP_RCVD,	/* our REP was MRAed */
	ENG_CM_ESTABLISHED,
	ENG_CM_DREQ_SENT,
	ENG_CM_TIMEWAIT,	/* IDs and QPN not reusable yet */
	ENG_CM_SIDR_REQ_SENT,
	ENG_CM_SIDR_REQ_RCVD,
	ENG_CM_MRA_REQ_SENT,	/* we asked the active side to wait for our REP */
	ENG_CM_MRA_REP_SENT,	/* we asked the passive side to wait for our RTU */
	ENG_CM_STATE_MAX
};

enum eng_cm_ev_type {
	ENG_CM_EV_CONNECT = 1,	/* active: send the REQ */
	ENG_CM_EV_ACCEPT,	/* passive: send the REP */
	ENG_CM_EV_REJECT,	/* passive (REQ_RCVD) or active (REP_RCVD): send a REJ */
	ENG_CM_EV_READY,	/* active, REP_RCVD: QP is RTS, send the RTU */
	ENG_CM_EV_DISCONNECT,	/* send the DREQ */
	ENG_CM_EV_SIDR_RESOLVE,	/* send the SIDR_REQ */
	ENG_CM_EV_SIDR_REPLY,	/* send the SIDR_REP */
	ENG_CM_EV_DATA,		/* passive, REP_SENT: first packet on the QP */
	ENG_CM_EV_TIMEOUT,	/* the connection's timer fired */
	ENG_CM_EV_RX,		/* a decoded message matched to this connection */
	ENG_CM_EV_MRA,		/* REQ_RCVD / REP_RCVD: answer later, send an MRA */
};

/* What the user is told (mapped to RDMA_CM_EVENT_* by the CM service). */
enum eng_cm_user_event {
	ENG_CM_UEV_NONE = 0,
	ENG_CM_UEV_REQ_RCVD,		/* CONNECT_REQUEST */
	ENG_CM_UEV_REP_RCVD,		/* make the QP ready, then EV_READY */
	ENG_CM_UEV_ESTABLISHED,
	ENG_CM_UEV_REJECTED,		/* status = the REJ reason */
	ENG_CM_UEV_UNREACHABLE,		/* status = -ETIMEDOUT */
	ENG_CM_UEV_DISCONNECTED,
	ENG_CM_UEV_TIMEWAIT_EXIT,
	ENG_CM_UEV_SIDR_REQ_RCVD,	/* CONNECT_REQUEST on a UD id */
	ENG_CM_UEV_SIDR_REP_RCVD,	/* ESTABLISHED / UNREACHABLE by status */
};

enum eng_cm_timer_op {
	ENG_CM_TIMER_KEEP = 0,
	ENG_CM_TIMER_ARM,	/* (re)arm for act.timer_ms */
	ENG_CM_TIMER_CANCEL,
};

/* Why a received message was dropped (one counter each). */
enum eng_cm_drop {
	ENG_CM_DROP_NONE = 0,
	ENG_CM_DROP_STATE,	/* not expected in this state (late, reordered) */
	ENG_CM_DROP_DUP,	/* a duplicate, answered or ignored */
	ENG_CM_DROP_ID,		/* comm IDs or QPN do not match the connection */
};

struct eng_cm_conn {
	uint8_t  state;		/* enum eng_cm_state */
	uint8_t  active;	/* 1: we sent the REQ / SIDR_REQ */
	uint8_t  retries;	/* resends of the outstanding message so far */
	uint8_t  max_retries;	/* REQ's max_cm_retries (4 bits) */
	uint32_t local_id;	/* our comm ID (SIDR: request ID) */
	uint32_t remote_id;	/* the peer's, 0 until known */
	uint64_t peer;		/* caller's key of the sender (GID hash, pod) */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	uint8_t  xrc;		/* XRC initiator (active) or target: the
				 * REP's QPN is in its EECN field */
	uint32_t resp_ms;	/* wait for an answer before resending */
	uint32_t timewait_ms;
	uint64_t tid;		/* of the exchange in progress: the step copies
				 * it from a received REQ, SIDR_REQ or DREQ (our
				 * answers reuse it); the caller sets a fresh one
				 * before CONNECT, SIDR_RESOLVE and DISCONNECT */
};

struct eng_cm_event {
	uint8_t  type;			/* enum eng_cm_ev_type */
	uint16_t reason;		/* EV_REJECT: enum eng_cm_rej_reason */
	const struct eng_cm_msg *msg;	/* EV_RX */
};

struct eng_cm_act {
	uint16_t send;		/* ENG_CM_ATTR_* the caller builds and sends, 0 none */
	uint8_t  resend;	/* 1: resend the last message sent, same bytes */
	uint8_t  msg_ref;	/* send == REJ/MRA: enum eng_cm_msg_ref */
	uint16_t rej_reason;	/* send == REJ */
	uint8_t  timer;		/* enum eng_cm_timer_op */
	uint32_t timer_ms;
	uint8_t  event;		/* enum eng_cm_user_event */
	int32_t  status;	/* with the event: REJ reason, -ETIMEDOUT, SIDR status */
	uint8_t  drop;		/* enum eng_cm_drop */
	uint8_t  free;		/* the connection may be released (state IDLE) */
	uint64_t tid;		/* send == APR: the LAP's transaction it answers */
};

/* One step.  *act is fully overwritten.  0 on success (including a
 * dropped message: see act->drop); -EINVAL for a user event not valid in
 * this state (nothing changes); -EBADMSG for EV_RX without a message. */
int eng_cm_step(struct eng_cm_conn *c, const struct eng_cm_event *ev,
		struct eng_cm_act *act);

/* 4.096 us * 2^t in milliseconds, at least 1 (IBA 12.7.x CM timeouts). */
uint32_t eng_cm_time_ms(uint8_t t);

/* The wait for an answer to a message we send with the peer's response
 * timeout: 2 * packet life + the peer's CM response time, as the kernel. */
uint32_t eng_cm_resp_ms(uint8_t peer_resp_timeout, uint8_t packet_life);

/* How long a connection stays in TIMEWAIT for a path's packet life
 * time (5 bits): as the kernel, twice it (one more power of two), so no
 * packet of the old connection can reach a new one with its IDs/QPN. */
uint32_t eng_cm_timewait_ms(uint8_t packet_life);

const char *eng_cm_state_name(uint8_t state);

/* Comm-ID matching over a caller-owned table (slots in state IDLE are
 * free). */
struct eng_cm_tab {
	struct eng_cm_conn *conns;
	size_t n;
};

enum eng_cm_disp {
	ENG_CM_DISP_CONN = 1,	/* step *ret_conn with EV_RX */
	ENG_CM_DISP_LISTEN,	/* a new REQ / SIDR_REQ: find the listener by
				 * service ID; none: answer with
				 * eng_cm_no_listener() */
	ENG_CM_DISP_REPLY,	/* send *reply (no connection); for a stale
				 * REQ, *ret_conn is the connection holding the
				 * QPN, which the caller disconnects */
	ENG_CM_DISP_DROP,	/* nothing matches and nothing is answered */
};

/* Route msg (from sender peer).  *reply is filled for DISP_REPLY. */
int eng_cm_dispatch(const struct eng_cm_tab *t, const struct eng_cm_msg *msg,
		    uint64_t peer, struct eng_cm_conn **ret_conn,
		    struct eng_cm_msg *reply);

/* The answer to a REQ or SIDR_REQ no listener takes: REJ "invalid
 * service ID" or SIDR_REP "unsupported" (as the kernel). */
void eng_cm_no_listener(const struct eng_cm_msg *msg, struct eng_cm_msg *reply);

/* A connection-less REJ answering rcv (IDs swapped, as the kernel's
 * cm_issue_rej), and a DREP answering a DREQ. */
void eng_cm_reply_rej(const struct eng_cm_msg *rcv, uint16_t reason,
		      uint8_t msg_ref, struct eng_cm_msg *reply);
void eng_cm_reply_drep(const struct eng_cm_msg *rcv, struct eng_cm_msg *reply);

/* The comm IDs msg carries: its sender's (local comm ID, SIDR_REQ request
 * ID) and its addressee's (remote comm ID, SIDR_REP request ID); 0 where
 * the message has none. */
void eng_cm_msg_ids(const struct eng_cm_msg *msg, uint32_t *ret_from,
		    uint32_t *ret_to);

/* Whether a comm ID is taken by any connection not IDLE (TIMEWAIT
 * included: IDs are not reused until timewait ends).  0 is never free. */
int eng_cm_id_in_use(const struct eng_cm_tab *t, uint32_t id);

#endif /* ENG_CM_SM_H */
