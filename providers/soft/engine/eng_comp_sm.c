/* SPDX-License-Identifier: MIT */
/*
 * The completer's steps (eng_comp_sm.h).  Each looks at the requester's
 * state for its head WQE and the event, does its one thing, and names
 * the next step; eng_comp_run() walks them.  Retry semantics follow
 * IBA Vol. 1 9.7.5.2 (RNR NAK, rnr_retry 7 = forever), 9.7.6.1.3 (the
 * transport timer: retry_cnt retransmissions, each after one expiry)
 * and 9.7.5.2.1 (a PSN sequence error NAK makes the requester go back N,
 * counted as a retry as Linux rxe counts it); an unexpected reply for
 * the WQE's opcode is IBV_WC_BAD_RESP_ERR.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"

int eng_comp_scatter(const struct eng_seg *dst, uint32_t ndst,
		     const uint8_t *src, uint32_t len)
{
	uint64_t room = 0;

	for (uint32_t i = 0; i < ndst; i++)
		room += dst[i].len;
	if (room < len || (len && !src))
		return -EOVERFLOW;
	for (uint32_t i = 0; i < ndst && len; i++) {
		uint32_t n = dst[i].len < len ? dst[i].len : len;

		/* memmove: a READ of a pod's own memory into an overlapping
		 * range of it is legal (and fuzz_wqe makes one). */
		memmove(dst[i].ptr, src, n);
		src += n;
		len -= n;
	}
	return 0;
}

static enum eng_comp_st fail(struct eng_comp *c, int status)
{
	c->status = status;
	c->timer_kind = ENG_DP_TIMER_NONE;
	return ENG_COMP_ST_ERROR;
}

static bool is_read(uint32_t op)
{
	return op == IBV_WR_RDMA_READ;
}

static bool is_atomic(uint32_t op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static enum eng_comp_st on_event(struct eng_comp *c, enum eng_comp_ev ev)
{
	switch (ev) {
	case ENG_COMP_EV_REPLY:
		return ENG_COMP_ST_CHECK_REPLY;
	case ENG_COMP_EV_SENT:
		/* UC and UD are unacknowledged: sent is done. */
		return c->qp_type == IBV_QPT_RC ? ENG_COMP_ST_ARM_RETRY :
						  ENG_COMP_ST_ACKED;
	case ENG_COMP_EV_TIMER:
		return ENG_COMP_ST_TIMER;
	}
	return fail(c, IBV_WC_GENERAL_ERR);
}

/* Which reply the WQE's opcode may get: READ_RESP for a READ,
 * ATOMIC_ACK for an atomic, ACK for the rest. */
static enum eng_comp_st check_reply(struct eng_comp *c,
				    const struct eng_dp_reply *r)
{
	bool rc = c->qp_type == IBV_QPT_RC;

	if (!r)
		return fail(c, IBV_WC_GENERAL_ERR);
	switch (r->kind) {
	case ENG_DP_REPLY_NONE:
		/* RC: dropped, the transport timer will tell.  UC/UD: the
		 * message is lost, its other chunks would be too. */
		if (rc)
			return ENG_COMP_ST_ARM_RETRY;
		c->status = IBV_WC_SUCCESS;
		return ENG_COMP_ST_DONE;
	case ENG_DP_REPLY_ACK:
		if (rc && (is_read(c->opcode) || is_atomic(c->opcode)))
			break;
		c->msn = r->msn;
		return ENG_COMP_ST_ACKED;
	case ENG_DP_REPLY_RNR_NAK:
		return rc ? ENG_COMP_ST_RNR : fail(c, IBV_WC_BAD_RESP_ERR);
	case ENG_DP_REPLY_NAK:
		return rc ? ENG_COMP_ST_CHECK_NAK : fail(c, IBV_WC_BAD_RESP_ERR);
	case ENG_DP_REPLY_READ_RESP:
		if (!is_read(c->opcode))
			break;
		c->msn = r->msn;
		return ENG_COMP_ST_READ;
	case ENG_DP_REPLY_ATOMIC_ACK:
		if (!is_atomic(c->opcode))
			break;
		c->msn = r->msn;
		return ENG_COMP_ST_ATOMIC;
	}
	return fail(c, IBV_WC_BAD_RESP_ERR);
}

static enum eng_comp_st check_nak(struct eng_comp *c, uint8_t code)
{
	switch (code) {
	case ENG_DP_NAK_PSN_SEQ:	return ENG_COMP_ST_RETRY;
	case ENG_DP_NAK_INV_REQ:	return fail(c, IBV_WC_REM_INV_REQ_ERR);
	case ENG_DP_NAK_REM_ACCESS:	return fail(c, IBV_WC_REM_ACCESS_ERR);
	case ENG_DP_NAK_REM_OP:		return fail(c, IBV_WC_REM_OP_ERR);
	case ENG_DP_NAK_INV_RD_REQ:	return fail(c, IBV_WC_REM_INV_RD_REQ_ERR);
	}
	return fail(c, IBV_WC_BAD_RESP_ERR);	/* reserved codes */
}

/* READ response: exactly the chunk asked for, into the local SGEs. */
static enum eng_comp_st place_read(struct eng_comp *c,
				   const struct eng_dp_reply *r)
{
	if (r->len != c->chunk)
		return fail(c, IBV_WC_BAD_RESP_ERR);
	if (eng_comp_scatter(c->local, c->nlocal, r->data, r->len) < 0)
		return fail(c, IBV_WC_LOC_LEN_ERR);
	return ENG_COMP_ST_ACKED;
}

/* IBA 9.4.5: the original value lands in the WQE's 8-byte local
 * buffer (host order; the wire converts AtomicAckETH's big endian). */
static enum eng_comp_st place_atomic(struct eng_comp *c,
				     const struct eng_dp_reply *r)
{
	uint8_t v[ENG_DP_ATOMIC_BYTES];

	memcpy(v, &r->atomic_orig, sizeof(v));
	if (eng_comp_scatter(c->local, c->nlocal, v, sizeof(v)) < 0)
		return fail(c, IBV_WC_LOC_LEN_ERR);
	return ENG_COMP_ST_ACKED;
}

/* Progress resets both retry budgets (they count consecutive
 * failures of the outstanding request). */
static enum eng_comp_st acked(struct eng_comp *c)
{
	c->rnr_tries = c->retry_tries = 0;
	c->timer_kind = ENG_DP_TIMER_NONE;
	c->status = IBV_WC_SUCCESS;
	return c->last ? ENG_COMP_ST_DONE : ENG_COMP_ST_MORE;
}

static enum eng_comp_st rnr(struct eng_comp *c, uint8_t timer_code)
{
	if (c->rnr_retry != ENG_COMP_RNR_INFINITE &&
	    c->rnr_tries >= c->rnr_retry)
		return fail(c, IBV_WC_RNR_RETRY_EXC_ERR);
	c->rnr_tries++;
	c->timer_kind = ENG_DP_TIMER_RNR;
	c->timer_ns = eng_dp_rnr_ns(timer_code);
	return ENG_COMP_ST_WAIT;
}

static enum eng_comp_st arm_retry(struct eng_comp *c)
{
	uint64_t t = eng_dp_ack_timeout_ns(c->timeout);

	c->timer_kind = ENG_DP_TIMER_RETRY;
	c->timer_ns = t ? t : ENG_COMP_INFINITE_RECHECK_NS;
	return ENG_COMP_ST_WAIT;
}

static enum eng_comp_st timer(struct eng_comp *c)
{
	uint8_t kind = c->timer_kind;

	c->timer_kind = ENG_DP_TIMER_NONE;
	/* RNR: the backoff is over, the same request goes again. */
	return kind == ENG_DP_TIMER_RETRY ? ENG_COMP_ST_RETRY :
					    ENG_COMP_ST_RESEND;
}

static enum eng_comp_st retry(struct eng_comp *c)
{
	c->timer_kind = ENG_DP_TIMER_NONE;
	if (!eng_dp_ack_timeout_ns(c->timeout))
		return ENG_COMP_ST_RESEND;	/* timeout 0: forever */
	if (c->retry_tries >= c->retry_cnt)
		return fail(c, IBV_WC_RETRY_EXC_ERR);
	c->retry_tries++;
	return ENG_COMP_ST_RESEND;
}

enum eng_comp_st eng_comp_step(struct eng_comp *c, enum eng_comp_st st,
			       enum eng_comp_ev ev,
			       const struct eng_dp_reply *r)
{
	switch (st) {
	case ENG_COMP_ST_START:		return on_event(c, ev);
	case ENG_COMP_ST_CHECK_REPLY:	return check_reply(c, r);
	case ENG_COMP_ST_CHECK_NAK:	return check_nak(c, r->code);
	case ENG_COMP_ST_READ:		return place_read(c, r);
	case ENG_COMP_ST_ATOMIC:	return place_atomic(c, r);
	case ENG_COMP_ST_ACKED:		return acked(c);
	case ENG_COMP_ST_RNR:		return rnr(c, r->code);
	case ENG_COMP_ST_ARM_RETRY:	return arm_retry(c);
	case ENG_COMP_ST_TIMER:		return timer(c);
	case ENG_COMP_ST_RETRY:		return retry(c);
	default:			return st;	/* terminal */
	}
}

static bool terminal(enum eng_comp_st st)
{
	return st >= ENG_COMP_ST_MORE;
}

enum eng_comp_st eng_comp_run(struct eng_comp *c, enum eng_comp_ev ev,
			      const struct eng_dp_reply *r)
{
	enum eng_comp_st st = ENG_COMP_ST_START;
	/* Every path ends within a handful of steps; the bound makes a
	 * future cycle a failed WQE rather than a hung engine. */
	for (int i = 0; i < 16 && !terminal(st); i++)
		st = eng_comp_step(c, st, ev, r);
	return terminal(st) ? st : fail(c, IBV_WC_GENERAL_ERR);
}
