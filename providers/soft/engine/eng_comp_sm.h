/* SPDX-License-Identifier: MIT */
/*
 * The completer as a state machine (pure: no I/O, no engine).  It takes
 * the requester's state for its head WQE and one event -- a reply to the
 * outstanding chunk (eng_dp_reply.h), "the request left and nothing came
 * back yet", or "the armed timer fired" -- and walks steps, each
 * returning the next state, until a terminal one tells the requester
 * what to do:
 *
 *   MORE    the chunk is acknowledged; send the next one
 *   DONE    the WQE completed with c->status (IBV_WC_SUCCESS)
 *   RESEND  retransmit the outstanding chunk now (go back N)
 *   WAIT    a timer is armed (c->timer_kind, c->timer_ns from now); on
 *           expiry feed ENG_COMP_EV_TIMER
 *   ERROR   complete the WQE with c->status, QP to ERR, flush the rest
 *
 * READ data and atomic results are placed by the steps themselves, into
 * c->local (the WQE's local segments for the chunk).
 */
#ifndef ENG_COMP_SM_H
#define ENG_COMP_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"

enum eng_comp_st {
	/* steps */
	ENG_COMP_ST_START = 0,		/* dispatch on the event */
	ENG_COMP_ST_CHECK_REPLY,	/* reply kind against the WQE */
	ENG_COMP_ST_CHECK_NAK,		/* which NAK */
	ENG_COMP_ST_READ,		/* place READ response data */
	ENG_COMP_ST_ATOMIC,		/* write the original value */
	ENG_COMP_ST_ACKED,		/* the chunk is done */
	ENG_COMP_ST_RNR,		/* RNR NAK: back off or give up */
	ENG_COMP_ST_ARM_RETRY,		/* sent, no answer yet: transport timer */
	ENG_COMP_ST_TIMER,		/* an armed timer fired */
	ENG_COMP_ST_RETRY,		/* go back N, counted against retry_cnt */
	/* terminal */
	ENG_COMP_ST_MORE,
	ENG_COMP_ST_DONE,
	ENG_COMP_ST_RESEND,
	ENG_COMP_ST_WAIT,
	ENG_COMP_ST_ERROR,
};

enum eng_comp_ev {
	ENG_COMP_EV_REPLY,		/* r holds the reply to the chunk */
	ENG_COMP_EV_SENT,		/* the chunk left, no reply (yet) */
	ENG_COMP_EV_TIMER,		/* the timer c->timer_kind fired */
};

/* IBA 9.7.5.2.8 / ibv_modify_qp(3): rnr_retry 7 retries forever. */
#define ENG_COMP_RNR_INFINITE		7
/* timeout 0 waits forever for an ACK; same-node still looks again this
 * often (the peer QP may come back), without counting retries. */
#define ENG_COMP_INFINITE_RECHECK_NS	(10ull * 1000 * 1000)

struct eng_comp {
	/* in: the QP's attributes */
	uint8_t qp_type;		/* IBV_QPT_*: only RC retries */
	uint8_t rnr_retry, retry_cnt, timeout;
	/* in: the head WQE and its outstanding chunk */
	uint32_t opcode;		/* enum ibv_wr_opcode */
	bool last;			/* the chunk is the message's last */
	uint32_t chunk;			/* its bytes */
	const struct eng_seg *local;	/* READ/atomic destination */
	uint32_t nlocal;
	/* kept across events of one WQE (the caller stores them; zero at
	 * the WQE's start) */
	uint32_t rnr_tries, retry_tries;
	uint8_t timer_kind;		/* enum eng_dp_timer_kind */
	/* out */
	int status;			/* enum ibv_wc_status at DONE/ERROR */
	uint64_t timer_ns;		/* at WAIT: delay from now */
	uint32_t msn;			/* last MSN acknowledged */
};

/* One step from st; returns the next state (a terminal one ends it). */
enum eng_comp_st eng_comp_step(struct eng_comp *c, enum eng_comp_st st,
			       enum eng_comp_ev ev,
			       const struct eng_dp_reply *r);
/* Runs steps from START to a terminal state and returns it.  r is used
 * only for ENG_COMP_EV_REPLY (may be NULL otherwise). */
enum eng_comp_st eng_comp_run(struct eng_comp *c, enum eng_comp_ev ev,
			      const struct eng_dp_reply *r);
/* Copies len bytes of src into the segment list dst; -EOVERFLOW when
 * the list holds fewer (nothing is copied then). */
int eng_comp_scatter(const struct eng_seg *dst, uint32_t ndst,
		     const uint8_t *src, uint32_t len);

#endif /* ENG_COMP_SM_H */
