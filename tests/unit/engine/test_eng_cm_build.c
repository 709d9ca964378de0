/* SPDX-License-Identifier: MIT */
/*
 * Building CM messages from connections: the kernel's formatting rules a
 * Linux peer relies on (cm.c's cm_format_*, cm_acquire_rejected_id) and
 * the private-data limits.
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

static struct eng_cm_params params(void)
{
	struct eng_cm_params p = {
		.service_id = 0x01064e21,
		.local_ca_guid = 0x0102030405060708ull,
		.starting_psn = 0x123456,
		.pkey = 0xffff,
		.responder_resources = 4,
		.initiator_depth = 2,
		.local_cm_response_timeout = 20,
		.remote_cm_response_timeout = 18,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.path_mtu = 3,
		.path = { .hop_limit = 64, .traffic_class = 0x20,
			  .local_ack_timeout = 14 },
	};

	return p;
}

static void test_eng_cm_build__req(void **state)
{
	struct eng_cm_conn c = { .local_id = 9, .local_qpn = 0x33, .max_retries = 15,
				 .tid = 0xabc };
	struct eng_cm_act a = { .send = ENG_CM_ATTR_REQ };
	struct eng_cm_params p = params();
	struct eng_cm_msg m;
	uint8_t b[ENG_CM_MAD_SIZE], pd[ENG_CM_REQ_PDATA_SIZE + 1] = { 1, 2, 3 };

	(void)state;
	p.private_data = pd;
	p.private_data_len = 3;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.hdr.attr_id, ENG_CM_ATTR_REQ);
	assert_int_equal(m.hdr.method, ENG_CM_METHOD_SEND);
	assert_int_equal(m.hdr.tid, 0xabc);
	assert_int_equal(m.u.req.local_comm_id, 9);
	assert_int_equal(m.u.req.local_qpn, 0x33);
	assert_int_equal(m.u.req.max_cm_retries, 15);
	assert_int_equal(m.u.req.primary.local_lid, 0xffff);
	assert_int_equal(m.u.req.primary.remote_lid, 0xffff);
	assert_int_equal(m.u.req.primary.subnet_local, 0);
	assert_int_equal(m.u.req.primary.traffic_class, 0x20);
	assert_int_equal(m.u.req.private_data[2], 3);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	/* One hop: subnet local. */
	p.path.hop_limit = 1;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.u.req.primary.subnet_local, 1);
	/* 93 bytes do not fit a REQ. */
	p.private_data_len = ENG_CM_REQ_PDATA_SIZE + 1;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), -EINVAL);
	p.private_data_len = 0;
	a.send = 0;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), -EINVAL);
	a.send = ENG_CM_ATTR_LAP;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), -EINVAL);
}

/* The passive side's answers reuse the REQ's transaction ID, which the
 * step copied; its REJ of the REQ names no local ID. */
static void test_eng_cm_build__passive_answers(void **state)
{
	struct eng_cm_conn c = { .state = ENG_CM_LISTEN, .local_id = 0x77,
				 .local_qpn = 0x44 };
	struct eng_cm_msg req, m;
	struct eng_cm_event ev = { .type = ENG_CM_EV_RX, .msg = &req };
	struct eng_cm_act a;
	struct eng_cm_params p = params();

	(void)state;
	memset(&req, 0, sizeof(req));
	req.hdr.attr_id = ENG_CM_ATTR_REQ;
	req.hdr.tid = 0x1122334455667788ull;
	req.u.req.local_comm_id = 0x55;
	req.u.req.local_qpn = 0x66;
	assert_int_equal(eng_cm_step(&c, &ev, &a), 0);
	assert_int_equal(c.tid, 0x1122334455667788ull);
	ev.type = ENG_CM_EV_ACCEPT;
	assert_int_equal(eng_cm_step(&c, &ev, &a), 0);
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.hdr.tid, 0x1122334455667788ull);
	assert_int_equal(m.u.rep.local_comm_id, 0x77);
	assert_int_equal(m.u.rep.remote_comm_id, 0x55);
	assert_int_equal(m.u.rep.local_qpn, 0x44);
	assert_int_equal(m.u.rep.starting_psn, 0x123456);
	assert_int_equal(m.u.rep.local_ca_guid, 0x0102030405060708ull);

	struct eng_cm_act rej = { .send = ENG_CM_ATTR_REJ, .msg_ref = ENG_CM_MSG_REF_REQ,
				  .rej_reason = ENG_CM_REJ_CONSUMER_DEFINED };
	assert_int_equal(eng_cm_build(&c, &rej, &p, &m), 0);
	assert_int_equal(m.u.rej.local_comm_id, 0);
	assert_int_equal(m.u.rej.remote_comm_id, 0x55);
	assert_int_equal(m.u.rej.ari_len, 0);
}

/* XRC (IBA 14.6.3.2, the kernel's cm_format_req/cm_format_rep): the
 * initiator's REQ says transport EXT, extended type XRC, and leaves the
 * receive side's fields zero; the target's REP puts its QPN in the EECN
 * field with the SRQ bit set; the initiator takes the target's QPN from
 * there.  Both survive the wire encoding. */
static void test_eng_cm_build__xrc(void **state)
{
	struct eng_cm_conn ini = { .local_id = 9, .local_qpn = 0x33,
				   .max_retries = 15, .xrc = 1 };
	struct eng_cm_conn tgt = { .state = ENG_CM_LISTEN, .local_id = 0x77,
				   .local_qpn = 0x44, .xrc = 1 };
	struct eng_cm_act a = { .send = ENG_CM_ATTR_REQ };
	struct eng_cm_params p = params();
	struct eng_cm_event ev = { .type = ENG_CM_EV_CONNECT };
	struct eng_cm_msg m, back;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	p.transport_type = ENG_CM_TRANSPORT_EXT;
	p.ext_transport_type = ENG_CM_EXT_TRANSPORT_XRC;
	p.responder_resources = p.retry_count = p.rnr_retry_count = 0;
	assert_int_equal(eng_cm_step(&ini, &ev, &a), 0);
	assert_int_equal(eng_cm_build(&ini, &a, &p, &m), 0);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &back), 0);
	assert_int_equal(back.u.req.transport_type, ENG_CM_TRANSPORT_EXT);
	assert_int_equal(back.u.req.ext_transport_type, ENG_CM_EXT_TRANSPORT_XRC);
	assert_int_equal(back.u.req.local_qpn, 0x33);
	assert_int_equal(eng_cm_req_check(&back.u.req), 0);
	/* Another extended type, or XRC's bits on an RC REQ: refused. */
	back.u.req.ext_transport_type = 2;
	assert_int_equal(eng_cm_req_check(&back.u.req),
			 ENG_CM_REJ_INVALID_TRANSPORT_TYPE);
	back.u.req.transport_type = ENG_CM_TRANSPORT_RC;
	back.u.req.ext_transport_type = ENG_CM_EXT_TRANSPORT_XRC;
	assert_int_equal(eng_cm_req_check(&back.u.req), ENG_CM_REJ_UNSUPPORTED);

	/* The target takes the REQ and answers. */
	ev = (struct eng_cm_event){ .type = ENG_CM_EV_RX, .msg = &m };
	assert_int_equal(eng_cm_step(&tgt, &ev, &a), 0);
	ev = (struct eng_cm_event){ .type = ENG_CM_EV_ACCEPT };
	assert_int_equal(eng_cm_step(&tgt, &ev, &a), 0);
	p = params();
	p.xrc_tgt = 1;
	assert_int_equal(eng_cm_build(&tgt, &a, &p, &m), 0);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &back), 0);
	assert_int_equal(back.u.rep.local_qpn, 0);
	assert_int_equal(back.u.rep.local_eecn, 0x44);
	assert_int_equal(back.u.rep.srq, 1);
	assert_int_equal(back.u.rep.initiator_depth, 0);
	/* The initiator pairs with the EECN's QPN (its DREQ names it). */
	ev = (struct eng_cm_event){ .type = ENG_CM_EV_RX, .msg = &back };
	assert_int_equal(eng_cm_step(&ini, &ev, &a), 0);
	assert_int_equal(ini.remote_qpn, 0x44);
	/* An RC connection still reads the QPN field. */
	ini = (struct eng_cm_conn){ .local_id = 10, .local_qpn = 0x35 };
	ev = (struct eng_cm_event){ .type = ENG_CM_EV_CONNECT };
	assert_int_equal(eng_cm_step(&ini, &ev, &a), 0);
	back.u.rep.local_qpn = 0x55;
	back.u.rep.remote_comm_id = 10;
	ev = (struct eng_cm_event){ .type = ENG_CM_EV_RX, .msg = &back };
	assert_int_equal(eng_cm_step(&ini, &ev, &a), 0);
	assert_int_equal(ini.remote_qpn, 0x55);
}

/* Giving up: REJ "timeout" with our CA GUID as ARI, big-endian. */
static void test_eng_cm_build__rej_timeout(void **state)
{
	struct eng_cm_conn c = { .active = 1, .local_id = 3, .max_retries = 0 };
	struct eng_cm_event ev = { .type = ENG_CM_EV_CONNECT };
	struct eng_cm_act a;
	struct eng_cm_params p = params();
	struct eng_cm_msg m;
	uint8_t b[ENG_CM_MAD_SIZE];
	static const uint8_t guid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	(void)state;
	c.active = 0;
	assert_int_equal(eng_cm_step(&c, &ev, &a), 0);
	ev.type = ENG_CM_EV_TIMEOUT;
	assert_int_equal(eng_cm_step(&c, &ev, &a), 0);
	assert_int_equal(a.send, ENG_CM_ATTR_REJ);
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.u.rej.reason, ENG_CM_REJ_TIMEOUT);
	assert_int_equal(m.u.rej.local_comm_id, 3);
	assert_int_equal(m.u.rej.msg_rejected, ENG_CM_MSG_REF_OTHER);
	assert_int_equal(m.u.rej.ari_len, 8);
	assert_memory_equal(m.u.rej.ari, guid, 8);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_memory_equal(b + ENG_CM_MAD_HDR_SIZE + 12, guid, 8);
}

static void test_eng_cm_build__others(void **state)
{
	struct eng_cm_conn c = { .local_id = 1, .remote_id = 2, .local_qpn = 0x10,
				 .remote_qpn = 0x20, .tid = 5 };
	struct eng_cm_act a = { 0 };
	struct eng_cm_params p = params();
	struct eng_cm_msg m;
	uint8_t big[ENG_CM_RTU_PDATA_SIZE + 1] = { 0 };
	static const uint16_t kinds[] = { ENG_CM_ATTR_MRA, ENG_CM_ATTR_RTU,
		ENG_CM_ATTR_DREQ, ENG_CM_ATTR_DREP, ENG_CM_ATTR_SIDR_REQ,
		ENG_CM_ATTR_SIDR_REP };
	static const size_t max[] = { ENG_CM_MRA_PDATA_SIZE, ENG_CM_RTU_PDATA_SIZE,
		ENG_CM_DREQ_PDATA_SIZE, ENG_CM_DREP_PDATA_SIZE,
		ENG_CM_SIDR_REQ_PDATA_SIZE, ENG_CM_SIDR_REP_PDATA_SIZE };
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	p.private_data = big;
	p.qkey = 0x01234567;
	p.service_timeout = 21;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		a.send = kinds[i];
		p.private_data_len = (uint8_t)max[i];
		assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
		assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
		p.private_data_len = (uint8_t)(max[i] + 1);
		assert_int_equal(eng_cm_build(&c, &a, &p, &m), -EINVAL);
	}
	p.private_data_len = 0;
	a.send = ENG_CM_ATTR_DREQ;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.u.dreq.remote_qpn, 0x20);
	assert_int_equal(m.hdr.tid, 5);
	a.send = ENG_CM_ATTR_MRA;
	a.msg_ref = ENG_CM_MSG_REF_REP;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.u.mra.service_timeout, 21);
	assert_int_equal(m.u.mra.msg_mraed, ENG_CM_MSG_REF_REP);
	a.send = ENG_CM_ATTR_SIDR_REP;
	assert_int_equal(eng_cm_build(&c, &a, &p, &m), 0);
	assert_int_equal(m.u.sidr_rep.request_id, 2);
	assert_int_equal(m.u.sidr_rep.qpn, 0x10);
	assert_int_equal(m.u.sidr_rep.qkey, 0x01234567);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_cm_build__req),
		cmocka_unit_test(test_eng_cm_build__passive_answers),
		cmocka_unit_test(test_eng_cm_build__xrc),
		cmocka_unit_test(test_eng_cm_build__rej_timeout),
		cmocka_unit_test(test_eng_cm_build__others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
