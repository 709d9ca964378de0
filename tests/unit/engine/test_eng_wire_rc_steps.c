/* SPDX-License-Identifier: MIT */
/*
 * The RC transport's decisions driven by scripted packets, no sockets:
 *
 *  - the responder: real packets (eng_wire_build, ICRC sealed over the
 *    IP/UDP headers a kernel sends) go through the receive path's parse
 *    and ICRC check, then eng_rc_resp_classify() and, when it says
 *    execute, the opcode sequence and length rules; a miniature responder
 *    keeps epsn and the saved READ/atomic resources as eng_wire_rc_resp.c
 *    does.  Loss, duplicates, reorder, bad ICRC, truncated, oversized,
 *    a held request, the 2^24 wrap.
 *  - the requester: eng_rc_ack_scan() (what an ACK completes, when a
 *    READ passed without its response sends it back), eng_rc_probe_at()
 *    (which packet the tail probe resends) and the completer's state
 *    machine (eng_comp_sm.c) on NAK / RNR NAK / timeout sequences:
 *    go back N counted against retry_cnt, reset by progress.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"
#include "providers/soft/engine/eng_resp_res.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_iphdr.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"

#define MTU	1024u
#define GID4(a, b, c, d) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d }

static const uint8_t src_gid[16] = GID4(10, 80, 1, 10);
static const uint8_t dst_gid[16] = GID4(10, 80, 2, 10);

struct wire_pkt {
	uint8_t buf[MTU + 256];
	size_t len;
};

/* A request as a sender puts it on the wire: headers, paylen bytes of
 * 0x5a, pad, ICRC sealed over the IPv4/UDP headers (DF, ID 0). */
static void mk(struct wire_pkt *p, uint8_t opcode, uint32_t psn, bool ackreq,
	       uint32_t paylen)
{
	struct eng_pkt_hdrs h = {
		.bth = { .opcode = opcode, .pkey = 0xffff, .dqpn = 0x1234,
			 .psn = psn & ENG_PSN_MASK, .ackreq = ackreq },
		.reth = { .va = 0x10000, .rkey = 0xabc,
			  .dmalen = opcode == ENG_OP_RC_READ_REQ ? 4 * MTU :
				    paylen },
		.atmeth = { .va = 0x20000, .rkey = 0xabc, .swap_add = 1 },
	};
	uint8_t pay[MTU + 64];
	struct eng_wire_ip ip;
	ssize_t n;

	memset(pay, 0x5a, sizeof(pay));
	n = eng_wire_build(&h, pay, paylen, p->buf, sizeof(p->buf));
	assert_true(n > 0);
	assert_int_equal(eng_wire_ip_build(&ip, src_gid, dst_gid, 49152, 4791,
					   (uint32_t)n, 0, 64, 0), 0);
	assert_int_equal(eng_icrc_seal(ip.ip, ip.iplen, ip.udp, p->buf,
				       (size_t)n), 0);
	p->len = (size_t)n;
}

/* The miniature responder. */
struct rsp {
	struct eng_psn_rx rx;
	struct eng_resp_res res;
	bool holding;
	int req_prev;
	uint64_t target;		/* the atomic's 8 bytes */
	unsigned executed;		/* requests executed */
	unsigned naks_inv;		/* refused: sequence or length */
};

/* What feeding a packet came to: an eng_rc_ract, or these. */
enum { FED_PARSE = 100, FED_ICRC, FED_NAK_INV };

static void rsp_init(struct rsp *r, uint32_t epsn)
{
	memset(r, 0, sizeof(*r));
	eng_psn_rx_init(&r->rx, epsn);
	eng_resp_res_init(&r->res, 4);
	r->req_prev = ENG_OP_NONE;
	r->target = 100;
}

static int execute(struct rsp *r, const struct eng_pkt *pkt)
{
	uint8_t op = pkt->h.bth.opcode;
	uint32_t npsn = 1;

	if (!eng_wire_op_seq_ok(r->req_prev, op) ||
	    !eng_rc_req_len_ok(op, pkt->paylen, MTU)) {
		r->naks_inv++;
		return FED_NAK_INV;
	}
	if (op == ENG_OP_RC_READ_REQ) {
		npsn = eng_rc_npsn(IBV_WR_RDMA_READ, pkt->h.reth.dmalen, MTU);
		eng_resp_res_save_read(&r->res, pkt->h.bth.psn, npsn,
				       pkt->h.reth.rkey, pkt->h.reth.va,
				       pkt->h.reth.dmalen);
	} else if (op == ENG_OP_RC_FETCH_ADD) {
		eng_resp_res_save_atomic(&r->res, pkt->h.bth.psn, r->target);
		r->target += pkt->h.atmeth.swap_add;
	}
	r->req_prev = op;
	r->executed++;
	eng_psn_rx_advance(&r->rx, npsn);
	return ENG_RC_R_EXECUTE;
}

/* A packet off the wire, len bytes of it (shorter: truncated). */
static int feed_len(struct rsp *r, const struct wire_pkt *p, size_t len,
		    struct eng_rc_rdec *dec)
{
	struct eng_wire_ip ip;
	struct eng_pkt pkt;
	uint16_t id;

	if (eng_wire_parse(p->buf, len, &pkt) < 0)
		return FED_PARSE;
	assert_int_equal(eng_wire_ip_build(&ip, src_gid, dst_gid, 49152, 4791,
					   (uint32_t)len, 0, 61, 0), 0);
	if (eng_wire_icrc_check_rx(&ip, p->buf, len, &id) < 0)
		return FED_ICRC;
	if (eng_rc_resp_classify(&r->rx, &r->res, r->holding,
				 pkt.h.bth.opcode, pkt.h.bth.psn,
				 pkt.h.bth.ackreq, dec) != ENG_RC_R_EXECUTE)
		return dec->act;
	return execute(r, &pkt);
}

static int feed(struct rsp *r, uint8_t opcode, uint32_t psn, bool ackreq,
		uint32_t paylen)
{
	struct eng_rc_rdec dec;
	struct wire_pkt p;

	mk(&p, opcode, psn, ackreq, paylen);
	return feed_len(r, &p, p.len, &dec);
}

static void test_rc_steps__loss_naks_once_per_gap(void **state)
{
	struct rsp r;

	(void)state;
	rsp_init(&r, 10);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_FIRST, 10, false, MTU),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 11, false, MTU),
			 ENG_RC_R_EXECUTE);
	/* 12 is lost: 13 opens the gap (one NAK), the rest are dropped */
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 13, false, MTU),
			 ENG_RC_R_NAK_SEQ);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 14, true, MTU),
			 ENG_RC_R_OOS_DROP);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_LAST, 15, true, 100),
			 ENG_RC_R_OOS_DROP);
	/* the tail probe resends 15 with AckReq: the gap's top again, so
	 * the NAK went missing; NAK'd again.  Without AckReq, not. */
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_LAST, 15, false, 100),
			 ENG_RC_R_OOS_DROP);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_LAST, 15, true, 100),
			 ENG_RC_R_NAK_SEQ);
	/* an older packet of the flight with AckReq is no probe */
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 14, true, MTU),
			 ENG_RC_R_OOS_DROP);
	assert_int_equal(r.rx.epsn, 12);
	/* go back N from 12: all accepted, in order */
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 12, false, MTU),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_MIDDLE, 13, false, MTU),
			 ENG_RC_R_EXECUTE);
	/* a second gap gets its own NAK */
	assert_int_equal(feed(&r, ENG_OP_RC_WRITE_LAST, 15, true, 100),
			 ENG_RC_R_NAK_SEQ);
	assert_int_equal(r.executed, 4);
}

static void test_rc_steps__duplicates_never_execute_twice(void **state)
{
	struct eng_rc_rdec dec;
	struct wire_pkt p;
	struct rsp r;

	(void)state;
	rsp_init(&r, 20);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 20, true, 64),
			 ENG_RC_R_EXECUTE);
	/* its ACK was lost: the resend is re-ACKed when it asks */
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 20, true, 64),
			 ENG_RC_R_DUP_ACK);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 20, false, 64),
			 ENG_RC_R_DUP_DROP);
	/* a READ of 4 MTUs takes PSNs 21..24 */
	assert_int_equal(feed(&r, ENG_OP_RC_READ_REQ, 21, true, 0),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(r.rx.epsn, 25);
	/* asked again from its third response: re-served from k = 2 of
	 * the saved request, not executed */
	mk(&p, ENG_OP_RC_READ_REQ, 23, true, 0);
	assert_int_equal(feed_len(&r, &p, p.len, &dec), ENG_RC_R_DUP_READ);
	assert_non_null(dec.res);
	assert_int_equal(dec.k, 2);
	assert_int_equal(dec.res->first_psn, 21);
	assert_int_equal(dec.res->npsn, 4);
	assert_int_equal(dec.res->len, 4 * MTU);
	/* a fetch-and-add: the duplicate gets the saved original */
	assert_int_equal(feed(&r, ENG_OP_RC_FETCH_ADD, 25, true, 0),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(r.target, 101);
	mk(&p, ENG_OP_RC_FETCH_ADD, 25, true, 0);
	assert_int_equal(feed_len(&r, &p, p.len, &dec), ENG_RC_R_DUP_ATOMIC);
	assert_int_equal(dec.res->orig, 100);
	assert_int_equal(r.target, 101);
	/* a duplicate atomic nothing saved (never served here) is not
	 * answered with anything made up */
	mk(&p, ENG_OP_RC_FETCH_ADD, 19, true, 0);
	assert_int_equal(feed_len(&r, &p, p.len, &dec), ENG_RC_R_DUP_DROP);
	assert_int_equal(r.executed, 3);
}

static void test_rc_steps__reorder_is_a_gap_then_in_order(void **state)
{
	struct rsp r;

	(void)state;
	rsp_init(&r, 50);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 50, false, 8),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 52, false, 8),
			 ENG_RC_R_NAK_SEQ);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 51, false, 8),
			 ENG_RC_R_EXECUTE);
	/* 52 was dropped; its resend (go back N from the NAK) is taken */
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 52, false, 8),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(r.executed, 3);
	assert_int_equal(r.rx.epsn, 53);
}

static void test_rc_steps__bad_icrc_truncated_oversized(void **state)
{
	struct eng_rc_rdec dec;
	struct wire_pkt p;
	struct rsp r;

	(void)state;
	rsp_init(&r, 60);
	/* a corrupted payload byte: dropped before the responder sees it */
	mk(&p, ENG_OP_RC_SEND_ONLY, 60, true, 256);
	p.buf[40] ^= 0x01;
	assert_int_equal(feed_len(&r, &p, p.len, &dec), FED_ICRC);
	/* cut short: its ICRC (or its headers) no longer hold */
	mk(&p, ENG_OP_RC_SEND_ONLY, 60, true, 256);
	assert_true(feed_len(&r, &p, p.len - 10, &dec) >= FED_PARSE);
	assert_int_equal(feed_len(&r, &p, 8, &dec), FED_PARSE);
	assert_int_equal(r.rx.epsn, 60);
	assert_false(r.rx.nak_sent);
	/* so the next good one shows the gap */
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 61, false, 8),
			 ENG_RC_R_NAK_SEQ);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 60, true, 256),
			 ENG_RC_R_EXECUTE);
	/* more than the path MTU, or a MIDDLE that is not one MTU: an
	 * invalid request, nothing executed */
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 61, true, MTU + 4),
			 FED_NAK_INV);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_FIRST, 61, false, MTU),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_MIDDLE, 62, false, MTU - 4),
			 FED_NAK_INV);
	/* a new message in the middle of one breaks the sequence */
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 62, false, 8),
			 FED_NAK_INV);
	assert_int_equal(r.executed, 2);
	assert_int_equal(r.naks_inv, 3);
}

static void test_rc_steps__held_request_waits_alone(void **state)
{
	struct rsp r;

	(void)state;
	rsp_init(&r, 70);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 69, true, 8),
			 ENG_RC_R_DUP_ACK);
	/* 70 found no receive WQE and is held: it again, and what
	 * follows, wait without a NAK; duplicates are answered */
	r.holding = true;
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 70, true, 8),
			 ENG_RC_R_HELD_AGAIN);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 71, true, 8),
			 ENG_RC_R_HELD_DROP);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 69, true, 8),
			 ENG_RC_R_DUP_ACK);
	assert_false(r.rx.nak_sent);
	assert_int_equal(r.rx.epsn, 70);
	assert_int_equal(r.executed, 0);
	/* the wait is never longer than the RNR timer it stands in for */
	assert_int_equal(eng_rc_hold_ns(655360000ull, 4000000ull), 4000000ull);
	assert_int_equal(eng_rc_hold_ns(640000ull, 4000000ull), 640000ull);
	assert_int_equal(eng_rc_hold_ns(640000ull, 0), 0);
}

static void test_rc_steps__psn_wrap(void **state)
{
	struct rsp r;

	(void)state;
	rsp_init(&r, 0xfffffe);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 0xfffffe, false, 8),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 0, false, 8),
			 ENG_RC_R_NAK_SEQ);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 0xffffff, false, 8),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 0, false, 8),
			 ENG_RC_R_EXECUTE);
	assert_int_equal(feed(&r, ENG_OP_RC_SEND_ONLY, 0xfffffe, true, 8),
			 ENG_RC_R_DUP_ACK);
	assert_int_equal(r.rx.epsn, 1);
}

/* ---- the requester ---- */

static struct eng_wire_rc *win_new(void)
{
	struct eng_wire_rc *w = calloc(1, sizeof(*w) + 8 * sizeof(w->win[0]));

	assert_non_null(w);
	w->cap = 8;
	w->mtu = MTU;
	w->req_init = true;
	return w;
}

/* Appends a WQE of op and len bytes at the next PSN. */
static void win_add(struct eng_wire_rc *w, uint32_t op, uint64_t len)
{
	struct eng_rc_went *x = &w->win[(w->head + w->n) % w->cap];

	memset(x, 0, sizeof(*x));
	x->sw.w.opcode = op;
	x->total = len;
	x->psn = w->next_psn;
	x->npsn = eng_rc_npsn(op, len, MTU);
	w->next_psn = eng_psn_add(w->next_psn, x->npsn);
	w->n++;
}

/* SEND 3 MTUs @100, WRITE 2 @103, READ 4 @105, SEND 1 @109; all sent. */
static struct eng_wire_rc *win_std(void)
{
	struct eng_wire_rc *w = win_new();

	w->next_psn = w->una = 100;
	win_add(w, IBV_WR_SEND, 3 * MTU);
	win_add(w, IBV_WR_RDMA_WRITE, 2 * MTU);
	win_add(w, IBV_WR_RDMA_READ, 4 * MTU);
	win_add(w, IBV_WR_SEND, 64);
	w->sent = 4;
	w->tx_psn = w->next_psn;
	assert_int_equal(w->tx_psn, 110);
	return w;
}

static void test_rc_steps__ack_scan(void **state)
{
	struct eng_wire_rc *w = win_std();
	struct eng_rc_acked a;

	(void)state;
	/* inside the first message: nothing completes, una moves */
	eng_rc_ack_scan(w, 101, &a);
	assert_int_equal(a.ncomplete, 0);
	assert_int_equal(a.una, 102);
	assert_false(a.go_back);
	/* up to the WRITE's last PSN: two complete, the READ waits */
	eng_rc_ack_scan(w, 104, &a);
	assert_int_equal(a.ncomplete, 2);
	assert_int_equal(a.una, 105);
	assert_false(a.go_back);
	/* inside the READ: its PSNs are its responses', not ACKed */
	eng_rc_ack_scan(w, 106, &a);
	assert_int_equal(a.ncomplete, 2);
	assert_int_equal(a.una, 105);
	assert_false(a.go_back);
	/* past the READ without its responses: they were lost, go back */
	eng_rc_ack_scan(w, 109, &a);
	assert_int_equal(a.ncomplete, 2);
	assert_int_equal(a.una, 105);
	assert_true(a.go_back);
	/* an old (duplicate) ACK changes nothing */
	eng_rc_ack_scan(w, 99, &a);
	assert_int_equal(a.ncomplete, 0);
	assert_int_equal(a.una, 100);
	/* a WQE whose local side failed and never left completes with
	 * its error when the ACK reaches it */
	w->win[1].status = IBV_WC_LOC_PROT_ERR;
	w->sent = 1;
	eng_rc_ack_scan(w, 104, &a);
	assert_int_equal(a.ncomplete, 1);
	assert_true(a.local_err);
	free(w);
}

/* max_rd_atomic counts READ requests: a READ WQE split into requests of
 * rd_chunk PSNs holds one per request sent whose responses are not all
 * in; atomics one each; SEND/WRITEs none. */
static void test_rc_steps__rd_reqs_out(void **state)
{
	struct eng_wire_rc *w = win_new();

	(void)state;
	w->next_psn = w->una = w->tx_hi = 100;
	win_add(w, IBV_WR_RDMA_READ, 10 * MTU);		/* 100..109 */
	w->win[0].rd_chunk = 4;				/* 4, 4, 2 */
	win_add(w, IBV_WR_SEND, 2 * MTU);		/* 110..111 */
	win_add(w, IBV_WR_ATOMIC_FETCH_AND_ADD, 8);	/* 112 */
	assert_int_equal(eng_rc_rd_reqs_out(w), 0);	/* nothing sent */
	w->tx_hi = 104;					/* first request */
	assert_int_equal(eng_rc_rd_reqs_out(w), 1);
	w->tx_hi = 110;					/* all three */
	assert_int_equal(eng_rc_rd_reqs_out(w), 3);
	w->una = 103;			/* the first is still arriving */
	assert_int_equal(eng_rc_rd_reqs_out(w), 3);
	w->una = 104;			/* the first is all in */
	assert_int_equal(eng_rc_rd_reqs_out(w), 2);
	w->tx_hi = 113;			/* the SEND and the atomic too */
	assert_int_equal(eng_rc_rd_reqs_out(w), 3);
	w->una = 112;			/* the READ is in, the atomic not */
	assert_int_equal(eng_rc_rd_reqs_out(w), 1);
	w->una = 113;
	assert_int_equal(eng_rc_rd_reqs_out(w), 0);
	/* unsplit (rd_chunk 0): one request, across a PSN wrap */
	memset(w, 0, sizeof(*w));
	w->cap = 8;
	w->mtu = MTU;
	w->next_psn = w->una = 0xfffffe;
	win_add(w, IBV_WR_RDMA_READ, 5 * MTU);
	w->tx_hi = 3;
	assert_int_equal(eng_rc_rd_reqs_out(w), 1);
	w->una = 3;
	assert_int_equal(eng_rc_rd_reqs_out(w), 0);
	free(w);
}

static void test_rc_steps__probe_resends_the_tail_only(void **state)
{
	struct eng_wire_rc *w = win_std();
	uint64_t off = 0;
	uint32_t i = 0;

	(void)state;
	/* everything sent: the last packet, the SEND at 109 */
	assert_true(eng_rc_probe_at(w, &i, &off));
	assert_int_equal(i, 3);
	assert_int_equal(off, 0);
	/* a go back N in progress, resent up to 101: that packet, the
	 * second MTU of the first SEND */
	w->tx_psn = 102;
	w->sent = 0;
	assert_true(eng_rc_probe_at(w, &i, &off));
	assert_int_equal(i, 0);
	assert_int_equal(off, MTU);
	/* the READ last: asked again from what it placed */
	w->tx_psn = 109;
	w->sent = 3;
	w->win[2].rd_done = 2 * MTU;
	assert_true(eng_rc_probe_at(w, &i, &off));
	assert_int_equal(i, 2);
	assert_int_equal(off, 2 * MTU);
	/* nothing unacknowledged: no probe */
	w->una = w->tx_psn;
	assert_false(eng_rc_probe_at(w, &i, &off));
	free(w);
}

static enum eng_comp_st comp_ev(struct eng_comp *c, enum eng_comp_ev ev,
				uint8_t kind, uint8_t code)
{
	struct eng_dp_reply r = { .kind = kind, .code = code };

	return eng_comp_run(c, ev, ev == ENG_COMP_EV_REPLY ? &r : NULL);
}

static void test_rc_steps__go_back_n_retry_counting(void **state)
{
	struct eng_comp c = { .qp_type = IBV_QPT_RC, .retry_cnt = 7,
			      .rnr_retry = 3, .timeout = 14,
			      .opcode = IBV_WR_SEND, .last = true };

	(void)state;
	/* a PSN sequence NAK: go back N, one retry */
	assert_int_equal(comp_ev(&c, ENG_COMP_EV_REPLY, ENG_DP_REPLY_NAK,
				 ENG_DP_NAK_PSN_SEQ), ENG_COMP_ST_RESEND);
	assert_int_equal(c.retry_tries, 1);
	/* timeouts without progress count on ... */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(comp_ev(&c, ENG_COMP_EV_SENT, 0, 0),
				 ENG_COMP_ST_WAIT);
		assert_int_equal(c.timer_kind, ENG_DP_TIMER_RETRY);
		assert_int_equal(c.timer_ns, 4096ull << 14);
		assert_int_equal(comp_ev(&c, ENG_COMP_EV_TIMER, 0, 0),
				 ENG_COMP_ST_RESEND);
	}
	assert_int_equal(c.retry_tries, 6);
	/* ... and progress (the resend was ACKed) starts them again */
	assert_int_equal(comp_ev(&c, ENG_COMP_EV_REPLY, ENG_DP_REPLY_ACK, 0),
			 ENG_COMP_ST_DONE);
	assert_int_equal(c.retry_tries, 0);
	/* retry_cnt 7: the eighth consecutive timeout fails the WQE */
	for (int i = 0; i < 7; i++) {
		c.timer_kind = ENG_DP_TIMER_RETRY;
		assert_int_equal(comp_ev(&c, ENG_COMP_EV_TIMER, 0, 0),
				 ENG_COMP_ST_RESEND);
	}
	c.timer_kind = ENG_DP_TIMER_RETRY;
	assert_int_equal(comp_ev(&c, ENG_COMP_EV_TIMER, 0, 0),
			 ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_RETRY_EXC_ERR);
	/* RNR NAKs wait the responder's timer, rnr_retry times */
	c = (struct eng_comp){ .qp_type = IBV_QPT_RC, .retry_cnt = 7,
			       .rnr_retry = 2, .timeout = 14,
			       .opcode = IBV_WR_SEND, .last = true };
	for (int i = 0; i < 2; i++) {
		assert_int_equal(comp_ev(&c, ENG_COMP_EV_REPLY,
					 ENG_DP_REPLY_RNR_NAK, 12),
				 ENG_COMP_ST_WAIT);
		assert_int_equal(c.timer_kind, ENG_DP_TIMER_RNR);
		assert_int_equal(c.timer_ns, eng_dp_rnr_ns(12));
		assert_int_equal(comp_ev(&c, ENG_COMP_EV_TIMER, 0, 0),
				 ENG_COMP_ST_RESEND);
	}
	assert_int_equal(c.retry_tries, 0);	/* RNR is not a retry */
	assert_int_equal(comp_ev(&c, ENG_COMP_EV_REPLY, ENG_DP_REPLY_RNR_NAK,
				 12), ENG_COMP_ST_ERROR);
	assert_int_equal(c.status, IBV_WC_RNR_RETRY_EXC_ERR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_steps__loss_naks_once_per_gap),
		cmocka_unit_test(test_rc_steps__duplicates_never_execute_twice),
		cmocka_unit_test(test_rc_steps__reorder_is_a_gap_then_in_order),
		cmocka_unit_test(test_rc_steps__bad_icrc_truncated_oversized),
		cmocka_unit_test(test_rc_steps__held_request_waits_alone),
		cmocka_unit_test(test_rc_steps__psn_wrap),
		cmocka_unit_test(test_rc_steps__ack_scan),
		cmocka_unit_test(test_rc_steps__rd_reqs_out),
		cmocka_unit_test(test_rc_steps__probe_resends_the_tail_only),
		cmocka_unit_test(test_rc_steps__go_back_n_retry_counting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
