/* SPDX-License-Identifier: MIT */
/*
 * The IB CM state machines driven with scripted messages: an active and
 * a passive connection exchange what their steps ask to send, and the
 * scripts lose, duplicate, delay and reorder messages on the way.
 * Messages go through the real MAD codec (encode, then decode) so what a
 * machine receives is what the wire would carry.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_cm_build.h"
#include "providers/soft/engine/eng_cm_mad.h"
#include "providers/soft/engine/eng_cm_sm.h"

#define PEER_A	0xaaaa
#define PEER_P	0xbbbb

struct side {
	struct eng_cm_conn c;
	struct eng_cm_act act;
	struct eng_cm_msg last;	/* last message sent, what act.resend resends */
	struct eng_cm_msg out;	/* what the latest step sent (or resent) */
	int sent;
};

/* The parameters every connection of these scripts negotiated. */
static const struct eng_cm_params params = {
	.service_id = 0x01064e21,
	.local_ca_guid = 0x0202c9fffe000001ull,
	.qkey = 0x01234567,
	.local_cm_response_timeout = 16,
	.remote_cm_response_timeout = 16,
	.path_mtu = 5,
	.service_timeout = 20,
	.path = { .hop_limit = 64 },
};

/* Build the message c's step asked for, as the CM service does. */
static void build(const struct eng_cm_conn *c, const struct eng_cm_act *a,
		  struct eng_cm_msg *m)
{
	assert_int_equal(eng_cm_build(c, a, &params, m), 0);
}

/* Through the wire format and back. */
static void wire(const struct eng_cm_msg *in, struct eng_cm_msg *out)
{
	uint8_t b[ENG_CM_MAD_SIZE];

	assert_int_equal(eng_cm_mad_encode(in, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), out), 0);
}

static int step(struct side *s, uint8_t type, const struct eng_cm_msg *rx)
{
	struct eng_cm_event ev = { .type = type, .msg = rx,
				   .reason = ENG_CM_REJ_CONSUMER_DEFINED };
	int ret = eng_cm_step(&s->c, &ev, &s->act);

	s->sent = 0;
	if (ret == 0 && s->act.send) {
		build(&s->c, &s->act, &s->last);
		wire(&s->last, &s->out);
		s->sent = 1;
	} else if (ret == 0 && s->act.resend) {
		wire(&s->last, &s->out);
		s->sent = 1;
	}
	return ret;
}

static void rx(struct side *s, const struct eng_cm_msg *m)
{
	assert_int_equal(step(s, ENG_CM_EV_RX, m), 0);
}

static void init(struct side *a, struct side *p)
{
	memset(a, 0, sizeof(*a));
	memset(p, 0, sizeof(*p));
	a->c.local_id = 0x1001;
	a->c.local_qpn = 0x11;
	a->c.max_retries = 3;
	a->c.resp_ms = 100;
	a->c.timewait_ms = 50;
	a->c.peer = PEER_P;
	p->c.state = ENG_CM_LISTEN;
	p->c.local_id = 0x2002;
	p->c.local_qpn = 0x22;
	p->c.timewait_ms = 50;
	p->c.peer = PEER_A;
}

/* REQ -> REP -> RTU; both ESTABLISHED. */
static void connect_both(struct side *a, struct side *p)
{
	init(a, p);
	assert_int_equal(step(a, ENG_CM_EV_CONNECT, NULL), 0);
	assert_int_equal(a->act.send, ENG_CM_ATTR_REQ);
	assert_int_equal(a->act.timer, ENG_CM_TIMER_ARM);
	assert_int_equal(a->act.timer_ms, 100);
	rx(p, &a->out);
	assert_int_equal(p->c.state, ENG_CM_REQ_RCVD);
	assert_int_equal(p->act.event, ENG_CM_UEV_REQ_RCVD);
	assert_int_equal(p->c.remote_id, 0x1001);
	assert_int_equal(p->c.remote_qpn, 0x11);
	assert_int_equal(p->c.max_retries, 3);
	assert_int_equal(p->c.resp_ms, eng_cm_time_ms(16));
	assert_int_equal(step(p, ENG_CM_EV_ACCEPT, NULL), 0);
	assert_int_equal(p->act.send, ENG_CM_ATTR_REP);
	assert_int_equal(p->c.state, ENG_CM_REP_SENT);
	rx(a, &p->out);
	assert_int_equal(a->c.state, ENG_CM_REP_RCVD);
	assert_int_equal(a->act.event, ENG_CM_UEV_REP_RCVD);
	assert_int_equal(a->act.timer, ENG_CM_TIMER_CANCEL);
	assert_int_equal(a->c.remote_id, 0x2002);
	assert_int_equal(step(a, ENG_CM_EV_READY, NULL), 0);
	assert_int_equal(a->act.send, ENG_CM_ATTR_RTU);
	assert_int_equal(a->act.event, ENG_CM_UEV_ESTABLISHED);
	rx(p, &a->out);
	assert_int_equal(p->c.state, ENG_CM_ESTABLISHED);
	assert_int_equal(p->act.event, ENG_CM_UEV_ESTABLISHED);
	assert_int_equal(p->act.timer, ENG_CM_TIMER_CANCEL);
}

static void test_eng_cm_sm__connect_disconnect(void **state)
{
	struct side a, p;

	(void)state;
	connect_both(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_DISCONNECT, NULL), 0);
	assert_int_equal(a.act.send, ENG_CM_ATTR_DREQ);
	assert_int_equal(a.c.state, ENG_CM_DREQ_SENT);
	rx(&p, &a.out);
	assert_int_equal(p.act.send, ENG_CM_ATTR_DREP);
	assert_int_equal(p.act.event, ENG_CM_UEV_DISCONNECTED);
	assert_int_equal(p.c.state, ENG_CM_TIMEWAIT);
	assert_int_equal(p.act.timer_ms, 50);
	rx(&a, &p.out);
	assert_int_equal(a.act.event, ENG_CM_UEV_DISCONNECTED);
	assert_int_equal(a.c.state, ENG_CM_TIMEWAIT);
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.event, ENG_CM_UEV_TIMEWAIT_EXIT);
	assert_int_equal(a.act.free, 1);
	assert_int_equal(a.c.state, ENG_CM_IDLE);
}

/* Every REQ lost: max_cm_retries resends, then REJ timeout + UNREACHABLE. */
static void test_eng_cm_sm__req_lost(void **state)
{
	struct side a, p;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
		assert_int_equal(a.act.resend, 1);
		assert_int_equal(a.act.timer, ENG_CM_TIMER_ARM);
		assert_int_equal(a.out.hdr.attr_id, ENG_CM_ATTR_REQ);
		assert_int_equal(a.c.state, ENG_CM_REQ_SENT);
	}
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.resend, 0);
	assert_int_equal(a.act.send, ENG_CM_ATTR_REJ);
	assert_int_equal(a.act.rej_reason, ENG_CM_REJ_TIMEOUT);
	assert_int_equal(a.act.event, ENG_CM_UEV_UNREACHABLE);
	assert_int_equal(a.act.status, -ETIMEDOUT);
	assert_int_equal(a.act.free, 1);
	assert_int_equal(a.out.u.rej.msg_rejected, ENG_CM_MSG_REF_OTHER);
	/* That REJ reaching a listener which never saw the REQ: not its. */
	rx(&p, &a.out);
	assert_int_equal(p.act.drop, ENG_CM_DROP_ID);
	assert_int_equal(p.c.state, ENG_CM_LISTEN);
}

/* REP lost: the active side resends its REQ, the passive side resends
 * the REP (not a new connection); then the RTU is lost too and the REP
 * retransmission makes the active side resend its RTU. */
static void test_eng_cm_sm__rep_and_rtu_lost(void **state)
{
	struct side a, p;
	struct eng_cm_msg rep;
	struct eng_cm_conn tab_conns[1];
	struct eng_cm_tab tab = { tab_conns, 1 };
	struct eng_cm_conn *hit;
	struct eng_cm_msg reply;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rep = p.out;				/* lost */
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.resend, 1);
	/* The dispatcher routes the duplicate REQ to the existing connection. */
	tab_conns[0] = p.c;
	assert_int_equal(eng_cm_dispatch(&tab, &a.out, PEER_A, &hit, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(hit, &tab_conns[0]);
	rx(&p, &a.out);
	assert_int_equal(p.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(p.act.resend, 1);
	assert_int_equal(p.act.event, ENG_CM_UEV_NONE);
	assert_memory_equal(&p.out, &rep, sizeof(rep));
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_REP_RCVD);
	assert_int_equal(step(&a, ENG_CM_EV_READY, NULL), 0);
	/* RTU lost; the REP times out and is resent. */
	assert_int_equal(step(&p, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(p.act.resend, 1);
	assert_int_equal(p.c.retries, 1);
	rx(&a, &p.out);
	assert_int_equal(a.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(a.act.send, ENG_CM_ATTR_RTU);
	rx(&p, &a.out);
	assert_int_equal(p.c.state, ENG_CM_ESTABLISHED);
	/* A late duplicate of that RTU changes nothing. */
	rx(&p, &a.out);
	assert_int_equal(p.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(p.c.state, ENG_CM_ESTABLISHED);
}

/* A kernel active side that gives up sends REJ "timeout" naming only
 * itself (remote comm ID 0, its CA GUID in the ARI): it still reaches
 * our passive connection waiting in REP_SENT. */
static void test_eng_cm_sm__kernel_rej_timeout(void **state)
{
	struct side a, p;
	struct eng_cm_conn conns[2];
	struct eng_cm_tab tab = { conns, 2 };
	struct eng_cm_conn *hit;
	struct eng_cm_msg rej, w, reply;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	memset(&rej, 0, sizeof(rej));
	rej.hdr.method = ENG_CM_METHOD_SEND;
	rej.hdr.attr_id = ENG_CM_ATTR_REJ;
	rej.u.rej.local_comm_id = a.c.local_id;
	rej.u.rej.msg_rejected = ENG_CM_MSG_REF_OTHER;
	rej.u.rej.reason = ENG_CM_REJ_TIMEOUT;
	rej.u.rej.ari_len = 8;
	rej.u.rej.ari[7] = 0x01;
	wire(&rej, &w);
	memset(conns, 0, sizeof(conns));
	conns[1] = p.c;
	assert_int_equal(eng_cm_dispatch(&tab, &w, PEER_A, &hit, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(hit, &conns[1]);
	assert_int_equal(eng_cm_dispatch(&tab, &w, 0x5555, &hit, &reply),
			 ENG_CM_DISP_DROP);
	rx(&p, &w);
	assert_int_equal(p.act.event, ENG_CM_UEV_REJECTED);
	assert_int_equal(p.act.status, ENG_CM_REJ_TIMEOUT);
	assert_int_equal(p.c.state, ENG_CM_IDLE);
}

/* Every RTU lost, but data arrives: the passive side is established. */
static void test_eng_cm_sm__rtu_lost_data_establishes(void **state)
{
	struct side a, p;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(step(&a, ENG_CM_EV_READY, NULL), 0);
	assert_int_equal(step(&p, ENG_CM_EV_DATA, NULL), 0);
	assert_int_equal(p.c.state, ENG_CM_ESTABLISHED);
	assert_int_equal(p.act.event, ENG_CM_UEV_ESTABLISHED);
	assert_int_equal(p.act.timer, ENG_CM_TIMER_CANCEL);
	/* More data later: nothing. */
	assert_int_equal(step(&p, ENG_CM_EV_DATA, NULL), 0);
	assert_int_equal(p.act.event, ENG_CM_UEV_NONE);
}

/* The passive side never gets an RTU nor data: REP retries, then gives up. */
static void test_eng_cm_sm__rep_gives_up(void **state)
{
	struct side a, p;

	(void)state;
	init(&a, &p);
	a.c.max_retries = 1;
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	assert_int_equal(step(&p, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(p.act.resend, 1);
	assert_int_equal(step(&p, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(p.act.send, ENG_CM_ATTR_REJ);
	assert_int_equal(p.act.msg_ref, ENG_CM_MSG_REF_OTHER);
	assert_int_equal(p.act.event, ENG_CM_UEV_UNREACHABLE);
	assert_int_equal(p.c.state, ENG_CM_IDLE);
	/* The REJ reaches the active side, still waiting for a REP. */
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_IDLE);
	assert_int_equal(a.act.event, ENG_CM_UEV_REJECTED);
	assert_int_equal(a.act.status, ENG_CM_REJ_TIMEOUT);
}

static void test_eng_cm_sm__mra(void **state)
{
	struct side a, p;
	struct eng_cm_msg mra, w;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	memset(&mra, 0, sizeof(mra));
	mra.hdr.method = ENG_CM_METHOD_SEND;
	mra.hdr.attr_id = ENG_CM_ATTR_MRA;
	mra.u.mra.local_comm_id = p.c.local_id;
	mra.u.mra.remote_comm_id = a.c.local_id;
	mra.u.mra.msg_mraed = ENG_CM_MSG_REF_REP;	/* wrong message */
	wire(&mra, &w);
	rx(&a, &w);
	assert_int_equal(a.act.drop, ENG_CM_DROP_STATE);
	mra.u.mra.msg_mraed = ENG_CM_MSG_REF_REQ;
	mra.u.mra.service_timeout = 20;
	wire(&mra, &w);
	rx(&a, &w);
	assert_int_equal(a.c.state, ENG_CM_MRA_REQ_RCVD);
	assert_int_equal(a.act.timer, ENG_CM_TIMER_ARM);
	assert_int_equal(a.act.timer_ms, 4096 + 100);
	rx(&a, &w);
	assert_int_equal(a.act.drop, ENG_CM_DROP_DUP);
	/* The extended wait expires: the REQ is resent. */
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.resend, 1);
	assert_int_equal(a.c.state, ENG_CM_REQ_SENT);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_REP_RCVD);
}

/* We ask for time: the passive side MRAs the REQ (its MRA is lost once:
 * the resent REQ gets it again), the active side MRAs the REP; both
 * peers then wait instead of giving up. */
static void test_eng_cm_sm__mra_sent(void **state)
{
	struct side a, p;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_MRA, NULL), 0);
	assert_int_equal(p.act.send, ENG_CM_ATTR_MRA);
	assert_int_equal(p.c.state, ENG_CM_MRA_REQ_SENT);
	assert_int_equal(p.out.u.mra.msg_mraed, ENG_CM_MSG_REF_REQ);
	/* Lost; the REQ is resent and answered with the MRA again. */
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(p.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(p.act.send, ENG_CM_ATTR_MRA);
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_MRA_REQ_RCVD);
	assert_int_equal(a.act.timer_ms, 4096 + 100);
	assert_int_equal(step(&p, ENG_CM_EV_MRA, NULL), -EINVAL);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	assert_int_equal(p.c.state, ENG_CM_REP_SENT);
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_REP_RCVD);
	/* The active side's QP takes long: MRA the REP. */
	assert_int_equal(step(&a, ENG_CM_EV_MRA, NULL), 0);
	assert_int_equal(a.c.state, ENG_CM_MRA_REP_SENT);
	assert_int_equal(a.out.u.mra.msg_mraed, ENG_CM_MSG_REF_REP);
	rx(&p, &a.out);
	assert_int_equal(p.c.state, ENG_CM_MRA_REP_RCVD);
	assert_int_equal(p.act.timer_ms, 4096 + eng_cm_time_ms(16));
	/* The REP is resent after the extended wait: MRA again. */
	assert_int_equal(step(&p, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(p.act.resend, 1);
	rx(&a, &p.out);
	assert_int_equal(a.act.send, ENG_CM_ATTR_MRA);
	assert_int_equal(a.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(step(&a, ENG_CM_EV_READY, NULL), 0);
	assert_int_equal(a.c.state, ENG_CM_ESTABLISHED);
	rx(&p, &a.out);
	assert_int_equal(p.c.state, ENG_CM_ESTABLISHED);

	/* Rejecting after an MRA names the message MRAed. */
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_MRA, NULL), 0);
	assert_int_equal(step(&p, ENG_CM_EV_REJECT, NULL), 0);
	assert_int_equal(p.act.msg_ref, ENG_CM_MSG_REF_REQ);
	assert_int_equal(p.c.state, ENG_CM_IDLE);
	assert_string_equal(eng_cm_state_name(ENG_CM_MRA_REP_SENT), "MRA_REP_SENT");
}

static void test_eng_cm_sm__reject(void **state)
{
	struct side a, p;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_REJECT, NULL), 0);
	assert_int_equal(p.act.send, ENG_CM_ATTR_REJ);
	assert_int_equal(p.act.msg_ref, ENG_CM_MSG_REF_REQ);
	assert_int_equal(p.act.free, 1);
	rx(&a, &p.out);
	assert_int_equal(a.act.event, ENG_CM_UEV_REJECTED);
	assert_int_equal(a.act.status, ENG_CM_REJ_CONSUMER_DEFINED);
	assert_int_equal(a.act.timer, ENG_CM_TIMER_CANCEL);
	assert_int_equal(a.c.state, ENG_CM_IDLE);
	/* A late REP after that finds an IDLE connection: dropped. */
	p.c.state = ENG_CM_REQ_RCVD;
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(a.act.drop, ENG_CM_DROP_ID);
	/* The active side may reject a REP too (its QP failed). */
	connect_both(&a, &p);
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(step(&a, ENG_CM_EV_REJECT, NULL), 0);
	assert_int_equal(a.act.msg_ref, ENG_CM_MSG_REF_REP);
	rx(&p, &a.out);
	assert_int_equal(p.act.event, ENG_CM_UEV_REJECTED);
	assert_int_equal(p.c.state, ENG_CM_IDLE);
}

/* Messages with the wrong IDs, out of order or in the wrong state. */
static void test_eng_cm_sm__wrong_ids_and_order(void **state)
{
	struct side a, p;
	struct eng_cm_msg m;

	(void)state;
	init(&a, &p);
	/* An RTU before any REQ: the listener ignores it. */
	memset(&m, 0, sizeof(m));
	m.hdr.attr_id = ENG_CM_ATTR_RTU;
	rx(&p, &m);
	assert_int_equal(p.act.drop, ENG_CM_DROP_ID);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	/* A REP naming another comm ID. */
	m = p.out;
	m.u.rep.remote_comm_id ^= 1;
	rx(&a, &m);
	assert_int_equal(a.act.drop, ENG_CM_DROP_ID);
	assert_int_equal(a.c.state, ENG_CM_REQ_SENT);
	/* A DREQ before the connection is up: not expected. */
	rx(&a, &p.out);
	memset(&m, 0, sizeof(m));
	m.hdr.attr_id = ENG_CM_ATTR_DREQ;
	m.u.dreq.local_comm_id = p.c.local_id;
	m.u.dreq.remote_comm_id = a.c.local_id;
	m.u.dreq.remote_qpn = a.c.local_qpn;
	rx(&a, &m);
	assert_int_equal(a.act.drop, ENG_CM_DROP_STATE);
	assert_int_equal(step(&a, ENG_CM_EV_READY, NULL), 0);
	rx(&p, &a.out);
	/* A DREQ with the wrong QPN is not ours. */
	m.u.dreq.remote_qpn = 0x999;
	rx(&a, &m);
	assert_int_equal(a.act.drop, ENG_CM_DROP_ID);
	assert_int_equal(a.c.state, ENG_CM_ESTABLISHED);
	/* A DREP while established: stray. */
	m.hdr.attr_id = ENG_CM_ATTR_DREP;
	rx(&a, &m);
	assert_int_equal(a.act.drop, ENG_CM_DROP_STATE);
	/* User calls in the wrong state change nothing. */
	assert_int_equal(step(&a, ENG_CM_EV_ACCEPT, NULL), -EINVAL);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), -EINVAL);
	assert_int_equal(step(&p, ENG_CM_EV_READY, NULL), -EINVAL);
	assert_int_equal(step(&p, ENG_CM_EV_SIDR_REPLY, NULL), -EINVAL);
	assert_int_equal(step(&p, 0, NULL), -EINVAL);
	assert_int_equal(step(&p, ENG_CM_EV_RX, NULL), -EBADMSG);
	assert_int_equal(a.c.state, ENG_CM_ESTABLISHED);
	assert_int_equal(p.c.state, ENG_CM_ESTABLISHED);
	/* A stray timer. */
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.drop, ENG_CM_DROP_STATE);
	assert_int_equal(a.c.state, ENG_CM_ESTABLISHED);
	a.c.state = ENG_CM_STATE_MAX;
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), -EINVAL);
}

static void test_eng_cm_sm__disconnect_races(void **state)
{
	struct side a, p;
	struct eng_cm_msg dreq_a;

	(void)state;
	/* DREP lost: the DREQ is resent and answered again from TIMEWAIT. */
	connect_both(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_DISCONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.resend, 1);
	rx(&p, &a.out);
	assert_int_equal(p.act.send, ENG_CM_ATTR_DREP);
	assert_int_equal(p.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(p.c.state, ENG_CM_TIMEWAIT);
	rx(&a, &p.out);
	assert_int_equal(a.c.state, ENG_CM_TIMEWAIT);
	/* A late DREP in TIMEWAIT: ignored. */
	rx(&a, &p.out);
	assert_int_equal(a.act.drop, ENG_CM_DROP_DUP);

	/* Both disconnect at once. */
	connect_both(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_DISCONNECT, NULL), 0);
	dreq_a = a.out;
	assert_int_equal(step(&p, ENG_CM_EV_DISCONNECT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(a.act.send, ENG_CM_ATTR_DREP);
	assert_int_equal(a.c.state, ENG_CM_TIMEWAIT);
	rx(&p, &dreq_a);
	assert_int_equal(p.act.send, ENG_CM_ATTR_DREP);
	assert_int_equal(p.c.state, ENG_CM_TIMEWAIT);

	/* The peer is gone: every DREQ lost, TIMEWAIT after the retries. */
	connect_both(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_DISCONNECT, NULL), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.event, ENG_CM_UEV_DISCONNECTED);
	assert_int_equal(a.c.state, ENG_CM_TIMEWAIT);
	assert_int_equal(a.act.timer_ms, 50);

	/* RTU lost and the active side disconnects: the passive side,
	 * still in REP_SENT, answers and leaves. */
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	rx(&a, &p.out);
	assert_int_equal(step(&a, ENG_CM_EV_READY, NULL), 0);
	assert_int_equal(step(&a, ENG_CM_EV_DISCONNECT, NULL), 0);
	rx(&p, &a.out);
	assert_int_equal(p.act.send, ENG_CM_ATTR_DREP);
	assert_int_equal(p.act.event, ENG_CM_UEV_DISCONNECTED);
	assert_int_equal(p.c.state, ENG_CM_TIMEWAIT);
}

static void test_eng_cm_sm__sidr(void **state)
{
	struct side a, p;
	struct eng_cm_conn conns[2];
	struct eng_cm_tab tab = { conns, 2 };
	struct eng_cm_conn *hit;
	struct eng_cm_msg reply;

	(void)state;
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_SIDR_RESOLVE, NULL), 0);
	assert_int_equal(a.act.send, ENG_CM_ATTR_SIDR_REQ);
	assert_int_equal(a.c.state, ENG_CM_SIDR_REQ_SENT);
	rx(&p, &a.out);
	assert_int_equal(p.act.event, ENG_CM_UEV_SIDR_REQ_RCVD);
	/* The request is resent (our answer is slow): a duplicate. */
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.resend, 1);
	memset(conns, 0, sizeof(conns));
	conns[1] = p.c;
	assert_int_equal(eng_cm_dispatch(&tab, &a.out, PEER_A, &hit, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(hit, &conns[1]);
	rx(&p, &a.out);
	assert_int_equal(p.act.drop, ENG_CM_DROP_DUP);
	assert_int_equal(step(&p, ENG_CM_EV_SIDR_REPLY, NULL), 0);
	assert_int_equal(p.act.send, ENG_CM_ATTR_SIDR_REP);
	assert_int_equal(p.act.free, 1);
	assert_int_equal(p.out.u.sidr_rep.qkey, 0x01234567);
	rx(&a, &p.out);
	assert_int_equal(a.act.event, ENG_CM_UEV_SIDR_REP_RCVD);
	assert_int_equal(a.act.status, ENG_CM_SIDR_SUCCESS);
	assert_int_equal(a.c.state, ENG_CM_IDLE);
	/* A late second SIDR_REP: the request is gone. */
	rx(&a, &p.out);
	assert_int_equal(a.act.drop, ENG_CM_DROP_STATE);

	/* No answer at all. */
	init(&a, &p);
	a.c.max_retries = 0;
	assert_int_equal(step(&a, ENG_CM_EV_SIDR_RESOLVE, NULL), 0);
	assert_int_equal(step(&a, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(a.act.event, ENG_CM_UEV_UNREACHABLE);
	assert_int_equal(a.act.status, -ETIMEDOUT);
	assert_int_equal(a.act.send, 0);	/* no REJ for SIDR */
}

/* Comm-ID matching and the answers without a connection. */
static void test_eng_cm_sm__dispatch(void **state)
{
	struct side a, p;
	struct eng_cm_conn conns[3];
	struct eng_cm_tab tab = { conns, 3 };
	struct eng_cm_conn *hit;
	struct eng_cm_msg reply, m;

	(void)state;
	memset(conns, 0, sizeof(conns));
	init(&a, &p);
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	/* A new REQ goes to the listener; with none, REJ invalid service ID. */
	assert_int_equal(eng_cm_dispatch(&tab, &a.out, PEER_A, &hit, &reply),
			 ENG_CM_DISP_LISTEN);
	assert_null(hit);
	eng_cm_no_listener(&a.out, &reply);
	assert_int_equal(reply.hdr.attr_id, ENG_CM_ATTR_REJ);
	assert_int_equal(reply.u.rej.reason, ENG_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(reply.u.rej.remote_comm_id, a.c.local_id);
	assert_int_equal(reply.hdr.tid, a.out.hdr.tid);
	rx(&p, &a.out);
	assert_int_equal(step(&p, ENG_CM_EV_ACCEPT, NULL), 0);
	conns[0] = a.c;
	/* A REP for an ID no one has: REJ invalid comm ID, IDs swapped. */
	m = p.out;
	m.u.rep.remote_comm_id = 0x7777;
	assert_int_equal(eng_cm_dispatch(&tab, &m, PEER_P, &hit, &reply),
			 ENG_CM_DISP_REPLY);
	assert_int_equal(reply.hdr.attr_id, ENG_CM_ATTR_REJ);
	assert_int_equal(reply.u.rej.reason, ENG_CM_REJ_INVALID_COMM_ID);
	assert_int_equal(reply.u.rej.msg_rejected, ENG_CM_MSG_REF_REP);
	assert_int_equal(reply.u.rej.local_comm_id, 0x7777);
	assert_int_equal(reply.u.rej.remote_comm_id, p.c.local_id);
	/* The right REP from another peer is not ours either. */
	assert_int_equal(eng_cm_dispatch(&tab, &p.out, 0x5555, &hit, &reply),
			 ENG_CM_DISP_REPLY);
	assert_int_equal(eng_cm_dispatch(&tab, &p.out, PEER_P, &hit, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(hit, &conns[0]);
	/* Unknown DREQ: DREP; unknown RTU/DREP/MRA: dropped. */
	memset(&m, 0, sizeof(m));
	m.hdr.attr_id = ENG_CM_ATTR_DREQ;
	m.u.dreq.local_comm_id = 0x10;
	m.u.dreq.remote_comm_id = 0x20;
	assert_int_equal(eng_cm_dispatch(&tab, &m, PEER_P, &hit, &reply),
			 ENG_CM_DISP_REPLY);
	assert_int_equal(reply.hdr.attr_id, ENG_CM_ATTR_DREP);
	assert_int_equal(reply.u.drep.local_comm_id, 0x20);
	assert_int_equal(reply.u.drep.remote_comm_id, 0x10);
	m.hdr.attr_id = ENG_CM_ATTR_RTU;
	assert_int_equal(eng_cm_dispatch(&tab, &m, PEER_P, &hit, &reply),
			 ENG_CM_DISP_DROP);
	m.hdr.attr_id = ENG_CM_ATTR_CLASS_PORT_INFO;
	assert_int_equal(eng_cm_dispatch(&tab, &m, PEER_P, &hit, &reply),
			 ENG_CM_DISP_DROP);
	/* No listener for a SIDR_REQ: SIDR_REP unsupported. */
	m.hdr.attr_id = ENG_CM_ATTR_SIDR_REQ;
	m.u.sidr_req.request_id = 0x31;
	m.u.sidr_req.service_id = 0x01111c06;
	eng_cm_no_listener(&m, &reply);
	assert_int_equal(reply.hdr.attr_id, ENG_CM_ATTR_SIDR_REP);
	assert_int_equal(reply.u.sidr_rep.status, ENG_CM_SIDR_UNSUPPORTED);
	assert_int_equal(reply.u.sidr_rep.request_id, 0x31);
}

/* A REQ reusing a QPN the peer has connected is stale; a duplicate REQ
 * in TIMEWAIT gets REJ stale; comm IDs in TIMEWAIT are not reused. */
static void test_eng_cm_sm__stale_and_timewait(void **state)
{
	struct side a, p;
	struct eng_cm_conn conns[2];
	struct eng_cm_tab tab = { conns, 2 };
	struct eng_cm_conn *hit;
	struct eng_cm_msg reply, req, m;

	(void)state;
	connect_both(&a, &p);
	memset(conns, 0, sizeof(conns));
	conns[1] = p.c;
	/* The active host rebooted: new comm ID, same QPN. */
	init(&a, &p);
	a.c.local_id = 0x1002;
	assert_int_equal(step(&a, ENG_CM_EV_CONNECT, NULL), 0);
	req = a.out;
	assert_int_equal(eng_cm_dispatch(&tab, &req, PEER_A, &hit, &reply),
			 ENG_CM_DISP_REPLY);
	assert_ptr_equal(hit, &conns[1]);
	assert_int_equal(reply.u.rej.reason, ENG_CM_REJ_STALE_CONN);
	assert_int_equal(reply.u.rej.remote_comm_id, 0x1002);
	/* From another peer, the same QPN is no conflict. */
	assert_int_equal(eng_cm_dispatch(&tab, &req, 0x5555, &hit, &reply),
			 ENG_CM_DISP_LISTEN);
	/* Timewait: the ID stays taken until it ends. */
	assert_int_equal(eng_cm_id_in_use(&tab, 0x2002), 1);
	conns[1].state = ENG_CM_TIMEWAIT;
	assert_int_equal(eng_cm_id_in_use(&tab, 0x2002), 1);
	/* A duplicate of the old REQ reaches the TIMEWAIT connection. */
	m = req;
	m.u.req.local_comm_id = 0x1001;
	assert_int_equal(eng_cm_dispatch(&tab, &m, PEER_A, &hit, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(hit, &conns[1]);
	p.c = conns[1];
	rx(&p, &m);
	assert_int_equal(p.act.send, ENG_CM_ATTR_REJ);
	assert_int_equal(p.act.rej_reason, ENG_CM_REJ_STALE_CONN);
	assert_int_equal(step(&p, ENG_CM_EV_TIMEOUT, NULL), 0);
	assert_int_equal(p.act.event, ENG_CM_UEV_TIMEWAIT_EXIT);
	conns[1] = p.c;
	assert_int_equal(eng_cm_id_in_use(&tab, 0x2002), 0);
	assert_int_equal(eng_cm_id_in_use(&tab, 0), 1);
	/* After timewait the QPN is free too. */
	assert_int_equal(eng_cm_dispatch(&tab, &req, PEER_A, &hit, &reply),
			 ENG_CM_DISP_LISTEN);
}

static void test_eng_cm_sm__times(void **state)
{
	(void)state;
	assert_int_equal(eng_cm_time_ms(0), 1);
	assert_int_equal(eng_cm_time_ms(8), 1);
	assert_int_equal(eng_cm_time_ms(9), 2);
	assert_int_equal(eng_cm_time_ms(20), 4096);	/* ~4.3 s */
	assert_int_equal(eng_cm_time_ms(31), 1u << 23);
	assert_int_equal(eng_cm_time_ms(0xff), 1u << 23);
	assert_int_equal(eng_cm_resp_ms(20, 18), 4096 + 2 * 1024);
	assert_int_equal(eng_cm_timewait_ms(16), 512);	/* RoCE's default life */
	assert_int_equal(eng_cm_timewait_ms(31), 1u << 23);
	assert_string_equal(eng_cm_state_name(ENG_CM_TIMEWAIT), "TIMEWAIT");
	assert_string_equal(eng_cm_state_name(200), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_cm_sm__connect_disconnect),
		cmocka_unit_test(test_eng_cm_sm__req_lost),
		cmocka_unit_test(test_eng_cm_sm__rep_and_rtu_lost),
		cmocka_unit_test(test_eng_cm_sm__kernel_rej_timeout),
		cmocka_unit_test(test_eng_cm_sm__rtu_lost_data_establishes),
		cmocka_unit_test(test_eng_cm_sm__rep_gives_up),
		cmocka_unit_test(test_eng_cm_sm__mra),
		cmocka_unit_test(test_eng_cm_sm__mra_sent),
		cmocka_unit_test(test_eng_cm_sm__reject),
		cmocka_unit_test(test_eng_cm_sm__wrong_ids_and_order),
		cmocka_unit_test(test_eng_cm_sm__disconnect_races),
		cmocka_unit_test(test_eng_cm_sm__sidr),
		cmocka_unit_test(test_eng_cm_sm__dispatch),
		cmocka_unit_test(test_eng_cm_sm__stale_and_timewait),
		cmocka_unit_test(test_eng_cm_sm__times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
