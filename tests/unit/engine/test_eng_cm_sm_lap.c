/* SPDX-License-Identifier: MIT */
/*
 * The IB CM state machines and the messages of path migration and of
 * waiting longer: a LAP of an established connection is answered with an
 * APR "unsupported" in the LAP's transaction (again for a duplicate),
 * with nothing changed; a LAP naming other IDs or another QPN, a LAP
 * outside ESTABLISHED and any APR are dropped; an MRA (IBA 12.6.6)
 * extends the wait of the message it names only, once, and a late MRA
 * does nothing.  Every message goes through the MAD codec, as on the wire.
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

#define LOCAL_ID	0x1001u
#define REMOTE_ID	0x2002u
#define LOCAL_QPN	0x11u

static const struct eng_cm_params params = {
	.service_id = 0x01064e21,
	.local_ca_guid = 0x0202c9fffe000001ull,
	.service_timeout = 20,
	.path = { .hop_limit = 64 },
};

static void wire(const struct eng_cm_msg *in, struct eng_cm_msg *out)
{
	uint8_t b[ENG_CM_MAD_SIZE];

	assert_int_equal(eng_cm_mad_encode(in, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), out), 0);
}

static void conn_in(struct eng_cm_conn *c, uint8_t state, int active)
{
	memset(c, 0, sizeof(*c));
	c->state = state;
	c->active = (uint8_t)active;
	c->local_id = LOCAL_ID;
	c->remote_id = REMOTE_ID;
	c->local_qpn = LOCAL_QPN;
	c->remote_qpn = 0x22;
	c->max_retries = 3;
	c->resp_ms = 100;
	c->timewait_ms = 50;
	c->tid = 0x77;
}

/* A LAP from the peer, as the kernel's ib_send_cm_lap formats one. */
static void lap(struct eng_cm_msg *out, uint32_t from, uint32_t to,
		uint32_t qpn, uint64_t tid)
{
	struct eng_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_LAP;
	m.hdr.tid = tid;
	m.u.lap.local_comm_id = from;
	m.u.lap.remote_comm_id = to;
	m.u.lap.remote_qpn = qpn;
	m.u.lap.remote_cm_response_timeout = 0x1f;
	m.u.lap.alt_hop_limit = 64;
	wire(&m, out);
}

static int rx(struct eng_cm_conn *c, const struct eng_cm_msg *m,
	      struct eng_cm_act *a)
{
	struct eng_cm_event ev = { .type = ENG_CM_EV_RX, .msg = m };

	return eng_cm_step(c, &ev, a);
}

static void test_eng_cm_sm_lap__established_answers_apr(void **state)
{
	struct eng_cm_conn c, before;
	struct eng_cm_msg m, out, got;
	struct eng_cm_act a;

	(void)state;
	for (int active = 0; active <= 1; active++) {
		conn_in(&c, ENG_CM_ESTABLISHED, active);
		before = c;
		lap(&m, REMOTE_ID, LOCAL_ID, LOCAL_QPN, 0xabcdef0123ull);
		assert_int_equal(rx(&c, &m, &a), 0);
		assert_int_equal(a.send, ENG_CM_ATTR_APR);
		assert_int_equal(a.drop, ENG_CM_DROP_NONE);
		assert_int_equal(a.event, ENG_CM_UEV_NONE);
		assert_int_equal(a.timer, ENG_CM_TIMER_KEEP);
		assert_int_equal(a.free, 0);
		/* Nothing of the connection changed, its tid included. */
		assert_memory_equal(&c, &before, sizeof(c));
		assert_int_equal(eng_cm_build(&c, &a, &params, &out), 0);
		wire(&out, &got);
		assert_int_equal(got.hdr.attr_id, ENG_CM_ATTR_APR);
		assert_int_equal(got.hdr.method, ENG_CM_METHOD_SEND);
		assert_true(got.hdr.tid == 0xabcdef0123ull);
		assert_int_equal(got.u.apr.local_comm_id, LOCAL_ID);
		assert_int_equal(got.u.apr.remote_comm_id, REMOTE_ID);
		assert_int_equal(got.u.apr.ap_status, ENG_CM_APR_UNSUPPORTED);
		assert_int_equal(got.u.apr.info_len, 0);
		/* The APR was lost: the resent LAP gets it again. */
		assert_int_equal(rx(&c, &m, &a), 0);
		assert_int_equal(a.send, ENG_CM_ATTR_APR);
		assert_int_equal(c.state, ENG_CM_ESTABLISHED);
		/* The connection still disconnects as usual. */
		struct eng_cm_event dis = { .type = ENG_CM_EV_DISCONNECT };

		assert_int_equal(eng_cm_step(&c, &dis, &a), 0);
		assert_int_equal(a.send, ENG_CM_ATTR_DREQ);
	}
}

static void test_eng_cm_sm_lap__dropped(void **state)
{
	static const uint8_t states[] = { ENG_CM_REQ_SENT, ENG_CM_MRA_REQ_RCVD,
		ENG_CM_REP_SENT, ENG_CM_MRA_REP_RCVD, ENG_CM_REP_RCVD,
		ENG_CM_REQ_RCVD, ENG_CM_DREQ_SENT, ENG_CM_TIMEWAIT };
	struct eng_cm_conn c;
	struct eng_cm_msg m;
	struct eng_cm_act a;

	(void)state;
	/* Another connection's IDs, or our IDs with another QPN. */
	conn_in(&c, ENG_CM_ESTABLISHED, 1);
	lap(&m, REMOTE_ID + 1, LOCAL_ID, LOCAL_QPN, 1);
	assert_int_equal(rx(&c, &m, &a), 0);
	assert_int_equal(a.drop, ENG_CM_DROP_ID);
	assert_int_equal(a.send, 0);
	lap(&m, REMOTE_ID, LOCAL_ID + 1, LOCAL_QPN, 1);
	assert_int_equal(rx(&c, &m, &a), 0);
	assert_int_equal(a.drop, ENG_CM_DROP_ID);
	lap(&m, REMOTE_ID, LOCAL_ID, LOCAL_QPN + 1, 1);
	assert_int_equal(rx(&c, &m, &a), 0);
	assert_int_equal(a.drop, ENG_CM_DROP_ID);
	/* Before the connection is established or once it is leaving. */
	for (size_t i = 0; i < sizeof(states); i++) {
		conn_in(&c, states[i], 1);
		lap(&m, REMOTE_ID, LOCAL_ID, LOCAL_QPN, 1);
		assert_int_equal(rx(&c, &m, &a), 0);
		assert_int_equal(a.send, 0);
		assert_int_not_equal(a.drop, ENG_CM_DROP_NONE);
		assert_int_equal(c.state, states[i]);
	}
}

static void test_eng_cm_sm_lap__apr_dropped(void **state)
{
	static const uint8_t states[] = { ENG_CM_ESTABLISHED, ENG_CM_REQ_SENT,
		ENG_CM_REP_SENT, ENG_CM_DREQ_SENT, ENG_CM_TIMEWAIT };
	struct eng_cm_conn c;
	struct eng_cm_msg m, w;
	struct eng_cm_act a;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_APR;
	m.u.apr.local_comm_id = REMOTE_ID;
	m.u.apr.remote_comm_id = LOCAL_ID;
	m.u.apr.ap_status = ENG_CM_APR_SUCCESS;
	wire(&m, &w);
	/* We never send a LAP: an APR answers nothing of ours. */
	for (size_t i = 0; i < sizeof(states); i++) {
		conn_in(&c, states[i], 1);
		assert_int_equal(rx(&c, &w, &a), 0);
		assert_int_equal(a.drop, ENG_CM_DROP_STATE);
		assert_int_equal(a.send, 0);
		assert_int_equal(a.event, ENG_CM_UEV_NONE);
		assert_int_equal(c.state, states[i]);
	}
}

/* The dispatcher routes a LAP and an APR by comm ID like the other
 * messages, and drops those of no connection (no answer: Linux drops an
 * unmatched LAP too). */
static void test_eng_cm_sm_lap__dispatch(void **state)
{
	struct eng_cm_conn conns[2];
	struct eng_cm_tab t = { .conns = conns, .n = 2 };
	struct eng_cm_conn *got;
	struct eng_cm_msg m, reply;

	(void)state;
	conn_in(&conns[0], ENG_CM_ESTABLISHED, 1);
	conns[0].peer = 0xaaaa;
	conn_in(&conns[1], ENG_CM_IDLE, 0);
	lap(&m, REMOTE_ID, LOCAL_ID, LOCAL_QPN, 1);
	assert_int_equal(eng_cm_dispatch(&t, &m, 0xaaaa, &got, &reply),
			 ENG_CM_DISP_CONN);
	assert_ptr_equal(got, &conns[0]);
	/* From another sender, or to an ID nobody holds. */
	assert_int_equal(eng_cm_dispatch(&t, &m, 0xbbbb, &got, &reply),
			 ENG_CM_DISP_DROP);
	lap(&m, REMOTE_ID, LOCAL_ID + 5, LOCAL_QPN, 1);
	assert_int_equal(eng_cm_dispatch(&t, &m, 0xaaaa, &got, &reply),
			 ENG_CM_DISP_DROP);
}

/* MRA: only for the message outstanding, once; the extended wait is
 * the MRA's service timeout plus our response time. */
static void test_eng_cm_sm_lap__mra_rules(void **state)
{
	struct eng_cm_conn c;
	struct eng_cm_msg m, w;
	struct eng_cm_act a;
	struct eng_cm_event to = { .type = ENG_CM_EV_TIMEOUT };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_MRA;
	m.u.mra.local_comm_id = REMOTE_ID;
	m.u.mra.remote_comm_id = LOCAL_ID;
	m.u.mra.msg_mraed = ENG_CM_MSG_REF_REP;
	m.u.mra.service_timeout = 22;
	wire(&m, &w);
	/* Our REP outstanding (passive): the MRA of it holds the resend. */
	conn_in(&c, ENG_CM_REP_SENT, 0);
	c.retries = 2;
	assert_int_equal(rx(&c, &w, &a), 0);
	assert_int_equal(c.state, ENG_CM_MRA_REP_RCVD);
	assert_int_equal(a.timer, ENG_CM_TIMER_ARM);
	assert_int_equal(a.timer_ms, (1u << 14) + 100);
	assert_int_equal(a.resend, 0);
	assert_int_equal(a.send, 0);
	/* The wait ends: the REP is resent, counted as one more retry. */
	assert_int_equal(eng_cm_step(&c, &to, &a), 0);
	assert_int_equal(a.resend, 1);
	assert_int_equal(c.state, ENG_CM_REP_SENT);
	assert_int_equal(c.retries, 3);
	/* An MRA of the LAP we never sent, or one once established. */
	m.u.mra.msg_mraed = ENG_CM_MSG_REF_OTHER;
	wire(&m, &w);
	assert_int_equal(rx(&c, &w, &a), 0);
	assert_int_equal(a.drop, ENG_CM_DROP_STATE);
	m.u.mra.msg_mraed = ENG_CM_MSG_REF_REP;
	wire(&m, &w);
	conn_in(&c, ENG_CM_ESTABLISHED, 0);
	assert_int_equal(rx(&c, &w, &a), 0);
	assert_int_equal(a.drop, ENG_CM_DROP_STATE);
	assert_int_equal(a.timer, ENG_CM_TIMER_KEEP);
	assert_int_equal(c.state, ENG_CM_ESTABLISHED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_cm_sm_lap__established_answers_apr),
		cmocka_unit_test(test_eng_cm_sm_lap__dropped),
		cmocka_unit_test(test_eng_cm_sm_lap__apr_dropped),
		cmocka_unit_test(test_eng_cm_sm_lap__dispatch),
		cmocka_unit_test(test_eng_cm_sm_lap__mra_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
