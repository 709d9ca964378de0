/* SPDX-License-Identifier: MIT */
/*
 * The IB CM MAD codec: hand-computed byte vectors at the offsets of IBA
 * vol 1 §12.6 (REQ table 106, REP table 110, REJ 108, SIDR_REP 119,
 * ClassPortInfo 132; LAP and APR at the kernel's cm_msgs.h offsets),
 * encode/decode round trips of every message, and
 * the decoder's refusals.  MAD offsets below are header (24) + the
 * spec's body offset.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_cm_mad.h"

#define H ENG_CM_MAD_HDR_SIZE

static const uint8_t gid_a[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				   10, 0, 0, 1 };	/* ::ffff:10.0.0.1 */
static const uint8_t gid_b[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				   10, 0, 0, 2 };

/* A REQ as the kernel's RDMA CM sends it over RoCEv2 for an RC QP. */
static void roce_req(struct eng_cm_msg *m)
{
	struct eng_cm_req *r = &m->u.req;

	memset(m, 0, sizeof(*m));
	m->hdr.method = ENG_CM_METHOD_SEND;
	m->hdr.tid = 0x0000000112345678ull;
	m->hdr.attr_id = ENG_CM_ATTR_REQ;
	r->local_comm_id = 0xa1b2c3d4u;
	r->service_id = 0x0000000001064e21ull;	/* RDMA_PS_TCP, port 20001 */
	r->local_ca_guid = 0x0202c9fffe000001ull;
	r->local_qpn = 0x000123;
	r->responder_resources = 4;
	r->initiator_depth = 2;
	r->remote_cm_response_timeout = 20;
	r->transport_type = ENG_CM_TRANSPORT_RC;
	r->starting_psn = 0xabcdef;
	r->local_cm_response_timeout = 20;
	r->retry_count = 7;
	r->pkey = 0xffff;
	r->path_mtu = 5;			/* 4096 */
	r->rnr_retry_count = 6;
	r->max_cm_retries = 15;
	r->srq = 0;
	r->primary.local_lid = 0xffff;
	r->primary.remote_lid = 0xffff;
	memcpy(r->primary.local_gid, gid_a, 16);
	memcpy(r->primary.remote_gid, gid_b, 16);
	r->primary.flow_label = 0xabcde;
	r->primary.packet_rate = 0x3f;
	r->primary.traffic_class = 0x68;
	r->primary.hop_limit = 64;
	r->primary.sl = 0xa;
	r->primary.subnet_local = 1;
	r->primary.local_ack_timeout = 18;
	r->private_data_len = 3;
	r->private_data[0] = 0x00;	/* RDMA CM header version */
	r->private_data[1] = 0x40;	/* IPv4 */
	r->private_data[2] = 0x9c;
}

static void test_eng_cm_mad__req_bytes(void **state)
{
	struct eng_cm_msg m;
	uint8_t b[ENG_CM_MAD_SIZE];
	static const uint8_t hdr[24] = { 1, 0x07, 2, 0x03, 0, 0, 0, 0,
		0, 0, 0, 0x01, 0x12, 0x34, 0x56, 0x78, 0x00, 0x10, 0, 0, 0, 0, 0, 0 };

	(void)state;
	roce_req(&m);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_memory_equal(b, hdr, 24);
	/* 0: local comm ID; 8: service ID; 16: CA GUID. */
	assert_int_equal(b[H + 0], 0xa1); assert_int_equal(b[H + 3], 0xd4);
	assert_int_equal(b[H + 13], 0x06); assert_int_equal(b[H + 14], 0x4e);
	assert_int_equal(b[H + 15], 0x21);
	assert_int_equal(b[H + 16], 0x02); assert_int_equal(b[H + 23], 0x01);
	/* 32: QPN 24 bits then responder resources; 36: EECN, initiator depth. */
	assert_int_equal(b[H + 32], 0x00); assert_int_equal(b[H + 33], 0x01);
	assert_int_equal(b[H + 34], 0x23); assert_int_equal(b[H + 35], 4);
	assert_int_equal(b[H + 39], 2);
	/* 43: remote CM response timeout (5) | transport (2) | e2e (1):
	 * 20 = 10100 -> 1010 0000. */
	assert_int_equal(b[H + 43], 0xa0);
	/* 44: PSN; 47: local CM response timeout (5) | retry count (3). */
	assert_int_equal(b[H + 44], 0xab); assert_int_equal(b[H + 46], 0xef);
	assert_int_equal(b[H + 47], (20 << 3) | 7);
	/* 48: P_Key; 50: MTU (4) | RDC (1) | RNR (3); 51: max CM retries (4)
	 * | SRQ (1) | ext transport (3). */
	assert_int_equal(b[H + 48], 0xff); assert_int_equal(b[H + 49], 0xff);
	assert_int_equal(b[H + 50], (5 << 4) | 6);
	assert_int_equal(b[H + 51], 15 << 4);
	/* 52, 54: LIDs; 56, 72: GIDs. */
	assert_int_equal(b[H + 52], 0xff); assert_int_equal(b[H + 55], 0xff);
	assert_memory_equal(b + H + 56, gid_a, 16);
	assert_memory_equal(b + H + 72, gid_b, 16);
	/* 88: flow label (20) | reserved (6) | rate (6):
	 * abcde << 12 = ab cd e0 00, rate 3f in the low 6 bits of 91. */
	assert_int_equal(b[H + 88], 0xab); assert_int_equal(b[H + 89], 0xcd);
	assert_int_equal(b[H + 90], 0xe0); assert_int_equal(b[H + 91], 0x3f);
	/* 92: TC; 93: hop limit; 94: SL (4) | subnet local (1); 95: ack
	 * timeout (5): 18 = 10010 -> 1001 0000. */
	assert_int_equal(b[H + 92], 0x68); assert_int_equal(b[H + 93], 64);
	assert_int_equal(b[H + 94], 0xa8); assert_int_equal(b[H + 95], 0x90);
	/* No alternate path: 96..139 all zero; private data at 140. */
	for (int i = 96; i < 140; i++)
		assert_int_equal(b[H + i], 0);
	assert_int_equal(b[H + 140], 0x00); assert_int_equal(b[H + 141], 0x40);
	assert_int_equal(b[H + 142], 0x9c); assert_int_equal(b[H + 143], 0);
	/* Reserved words 4..7 and 24..27 stay zero. */
	for (int i = 4; i < 8; i++)
		assert_int_equal(b[H + i], 0);
	for (int i = 24; i < 28; i++)
		assert_int_equal(b[H + i], 0);
}

static void test_eng_cm_mad__req_round_trip(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	roce_req(&m);
	m.u.req.has_alternate = 1;
	m.u.req.alternate = m.u.req.primary;
	m.u.req.alternate.flow_label = 0x12345;
	m.u.req.local_qkey = 0xdeadbeef;
	m.u.req.e2e_flow_control = 1;
	m.u.req.srq = 1;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.hdr.base_version, 1);
	assert_int_equal(d.hdr.mgmt_class, 7);
	assert_int_equal(d.hdr.class_version, 2);
	assert_int_equal(d.u.req.private_data_len, ENG_CM_REQ_PDATA_SIZE);
	/* Decode reports the full field: make m comparable, then compare
	 * the whole struct (both were zeroed before filling). */
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = 7;
	m.hdr.class_version = 2;
	m.u.req.private_data_len = ENG_CM_REQ_PDATA_SIZE;
	assert_memory_equal(&m, &d, sizeof(m));
}

static void test_eng_cm_mad__rep_bytes(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_REP;
	m.u.rep.local_comm_id = 0x11223344;
	m.u.rep.remote_comm_id = 0xa1b2c3d4u;
	m.u.rep.local_qpn = 0xfedcba;
	m.u.rep.starting_psn = 0x123456;
	m.u.rep.responder_resources = 2;
	m.u.rep.initiator_depth = 4;
	m.u.rep.target_ack_delay = 0x1f;
	m.u.rep.failover_accepted = 3;
	m.u.rep.e2e_flow_control = 1;
	m.u.rep.rnr_retry_count = 7;
	m.u.rep.srq = 1;
	m.u.rep.local_ca_guid = 0x0102030405060708ull;
	m.u.rep.private_data_len = ENG_CM_REP_PDATA_SIZE;
	memset(m.u.rep.private_data, 0x5a, ENG_CM_REP_PDATA_SIZE);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[16], 0x00); assert_int_equal(b[17], 0x13);
	assert_int_equal(b[H + 4], 0xa1); assert_int_equal(b[H + 7], 0xd4);
	assert_int_equal(b[H + 12], 0xfe); assert_int_equal(b[H + 14], 0xba);
	assert_int_equal(b[H + 15], 0);
	assert_int_equal(b[H + 20], 0x12); assert_int_equal(b[H + 23], 0);
	assert_int_equal(b[H + 24], 2); assert_int_equal(b[H + 25], 4);
	assert_int_equal(b[H + 26], 0xff);
	assert_int_equal(b[H + 27], 0xf0);	/* RNR 111, SRQ 1, reserved 0000 */
	assert_int_equal(b[H + 28], 0x01); assert_int_equal(b[H + 35], 0x08);
	assert_int_equal(b[H + 36], 0x5a); assert_int_equal(b[255], 0x5a);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = 7;
	m.hdr.class_version = 2;
	assert_memory_equal(&m.u.rep, &d.u.rep, sizeof(m.u.rep));
}

static void test_eng_cm_mad__rej_ari(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_REJ;
	m.u.rej.local_comm_id = 7;
	m.u.rej.msg_rejected = ENG_CM_MSG_REF_REQ;
	m.u.rej.reason = ENG_CM_REJ_CONSUMER_DEFINED;
	m.u.rej.ari_len = 2;
	m.u.rej.ari[0] = 0xaa;
	m.u.rej.ari[1] = 0xbb;
	m.u.rej.ari[2] = 0xcc;	/* beyond ari_len: not sent */
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[H + 8], 0x00);
	assert_int_equal(b[H + 9], 2 << 1);
	assert_int_equal(b[H + 10], 0); assert_int_equal(b[H + 11], 28);
	assert_int_equal(b[H + 12], 0xaa); assert_int_equal(b[H + 13], 0xbb);
	assert_int_equal(b[H + 14], 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.u.rej.reason, 28);
	assert_int_equal(d.u.rej.ari_len, 2);
	/* Bytes past ari_len are not taken from the wire. */
	b[H + 14] = 0xcc;
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.u.rej.ari[2], 0);
	/* A CM message's body is sent whatever the header status says. */
	m.hdr.status = 0x1c;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[H + 12], 0xaa);
	m.hdr.status = 0;
	/* An ARI length past the 72-byte field is refused. */
	b[H + 9] = 73 << 1;
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), -EINVAL);
	m.u.rej.ari_len = 73;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), -EINVAL);
	/* msg_rejected is 2 bits. */
	m.u.rej.ari_len = 0;
	m.u.rej.msg_rejected = 4;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), -EINVAL);
}

static void test_eng_cm_mad__sidr_rep_bytes(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_SIDR_REP;
	m.u.sidr_rep.request_id = 0x01020304;
	m.u.sidr_rep.status = ENG_CM_SIDR_SUCCESS;
	m.u.sidr_rep.qpn = 0x00abcd;
	m.u.sidr_rep.service_id = 0x0000000002114e21ull;	/* RDMA_PS_UDP */
	m.u.sidr_rep.qkey = 0x01234567;			/* RDMA_UDP_QKEY */
	m.u.sidr_rep.private_data_len = 1;
	m.u.sidr_rep.private_data[0] = 0x77;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[H + 8], 0x00); assert_int_equal(b[H + 10], 0xcd);
	assert_int_equal(b[H + 12 + 4], 0x02); assert_int_equal(b[H + 19], 0x21);
	assert_int_equal(b[H + 20], 0x01); assert_int_equal(b[H + 23], 0x67);
	assert_int_equal(b[H + 96], 0x77);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.u.sidr_rep.qkey, 0x01234567);
	assert_int_equal(d.u.sidr_rep.service_id, 0x0000000002114e21ull);
	assert_int_equal(d.u.sidr_rep.private_data_len, ENG_CM_SIDR_REP_PDATA_SIZE);
	b[H + 5] = 73;	/* additional info length */
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), -EINVAL);
}

/* Every other message survives encode -> decode unchanged. */
static void test_eng_cm_mad__round_trips(void **state)
{
	static const uint16_t attrs[] = { ENG_CM_ATTR_MRA, ENG_CM_ATTR_RTU,
		ENG_CM_ATTR_DREQ, ENG_CM_ATTR_DREP, ENG_CM_ATTR_SIDR_REQ };
	static const size_t pd[] = { ENG_CM_MRA_PDATA_SIZE, ENG_CM_RTU_PDATA_SIZE,
		ENG_CM_DREQ_PDATA_SIZE, ENG_CM_DREP_PDATA_SIZE,
		ENG_CM_SIDR_REQ_PDATA_SIZE };
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.hdr.method = ENG_CM_METHOD_SEND;
		m.hdr.attr_id = attrs[i];
		m.hdr.tid = 0x1122334455667788ull + i;
		m.hdr.attr_mod = 0xcafe;
		switch (attrs[i]) {
		case ENG_CM_ATTR_MRA:
			m.u.mra.local_comm_id = 1;
			m.u.mra.remote_comm_id = 2;
			m.u.mra.msg_mraed = ENG_CM_MSG_REF_REP;
			m.u.mra.service_timeout = 31;
			m.u.mra.private_data_len = (uint8_t)pd[i];
			memset(m.u.mra.private_data, 0xe1, pd[i]);
			break;
		case ENG_CM_ATTR_RTU:
			m.u.rtu.local_comm_id = 3;
			m.u.rtu.remote_comm_id = 4;
			m.u.rtu.private_data_len = (uint8_t)pd[i];
			memset(m.u.rtu.private_data, 0xe2, pd[i]);
			break;
		case ENG_CM_ATTR_DREQ:
			m.u.dreq.local_comm_id = 5;
			m.u.dreq.remote_comm_id = 6;
			m.u.dreq.remote_qpn = 0xffffff;
			m.u.dreq.private_data_len = (uint8_t)pd[i];
			memset(m.u.dreq.private_data, 0xe3, pd[i]);
			break;
		case ENG_CM_ATTR_DREP:
			m.u.drep.local_comm_id = 7;
			m.u.drep.remote_comm_id = 8;
			m.u.drep.private_data_len = (uint8_t)pd[i];
			memset(m.u.drep.private_data, 0xe4, pd[i]);
			break;
		default:
			m.u.sidr_req.request_id = 9;
			m.u.sidr_req.pkey = 0xffff;
			m.u.sidr_req.service_id = ~0ull;
			m.u.sidr_req.private_data_len = (uint8_t)pd[i];
			memset(m.u.sidr_req.private_data, 0xe5, pd[i]);
			break;
		}
		assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
		/* The last byte of every private-data field is the MAD's. */
		assert_int_equal(b[255] & 0xe0, 0xe0);
		assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
		m.hdr.base_version = 1;
		m.hdr.mgmt_class = 7;
		m.hdr.class_version = 2;
		assert_memory_equal(&m, &d, sizeof(m));
	}
}

static void test_eng_cm_mad__class_port_info(void **state)
{
	struct eng_cm_msg get, resp, d;
	struct eng_cm_class_port_info cpi;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	memset(&get, 0, sizeof(get));
	get.hdr.method = ENG_CM_METHOD_GET;
	get.hdr.attr_id = ENG_CM_ATTR_CLASS_PORT_INFO;
	get.hdr.tid = 42;
	assert_int_equal(eng_cm_mad_encode(&get, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.hdr.method, ENG_CM_METHOD_GET);

	eng_cm_mad_class_port_info(20, &cpi);
	eng_cm_mad_get_resp(&d.hdr, &cpi, 0, &resp);
	assert_int_equal(eng_cm_mad_encode(&resp, b, sizeof(b)), 0);
	assert_int_equal(b[3], 0x81);
	assert_int_equal(b[15], 42);
	assert_int_equal(b[H + 0], 1);		/* base version */
	assert_int_equal(b[H + 1], 2);		/* class version */
	assert_int_equal(b[H + 7], 20);		/* RespTimeValue, low 5 bits */
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.u.cpi.resp_time_value, 20);

	/* A Get of a CM message attribute: unsupported method/attribute. */
	get.hdr.attr_id = ENG_CM_ATTR_REQ;
	eng_cm_mad_get_resp(&get.hdr, &cpi, 0, &resp);
	assert_int_equal(resp.hdr.status, ENG_CM_MAD_STATUS_UNSUP_METHOD_ATTR);
	eng_cm_mad_get_resp(&get.hdr, &cpi, 1, &resp);
	assert_int_equal(resp.hdr.status, ENG_CM_MAD_STATUS_BAD_VERSION);
	assert_int_equal(eng_cm_mad_encode(&resp, b, sizeof(b)), 0);
	assert_int_equal(b[5], 0x04);
	for (int i = H; i < (int)ENG_CM_MAD_SIZE; i++)
		assert_int_equal(b[i], 0);
}

static void test_eng_cm_mad__decode_refusals(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE], c[ENG_CM_MAD_SIZE];

	(void)state;
	roce_req(&m);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(eng_cm_mad_decode(b, 255, &d), -EMSGSIZE);
	assert_int_equal(eng_cm_mad_decode(b, 0, &d), -EMSGSIZE);
	memcpy(c, b, sizeof(c)); c[0] = 2;
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EPROTO);
	memcpy(c, b, sizeof(c)); c[1] = 0x04;	/* GSA class, not CM */
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EPROTO);
	memcpy(c, b, sizeof(c)); c[2] = 1;
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EPROTONOSUPPORT);
	assert_int_equal(d.hdr.tid, m.hdr.tid);	/* still answerable */
	memcpy(c, b, sizeof(c)); c[3] = ENG_CM_METHOD_GET;
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EOPNOTSUPP);
	memcpy(c, b, sizeof(c)); c[17] = 0x1b;	/* after APR: not the CM's */
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EOPNOTSUPP);
	memcpy(c, b, sizeof(c)); c[17] = 0x99;
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), -EOPNOTSUPP);
	/* Reserved bits set by a peer are ignored. */
	memcpy(c, b, sizeof(c)); c[H + 4] = 0xff; c[H + 35 - 0] = 4;
	c[H + 90] |= 0x0f; c[H + 95] |= 0x07;
	assert_int_equal(eng_cm_mad_decode(c, sizeof(c), &d), 0);
	assert_int_equal(d.u.req.primary.flow_label, 0xabcde);
	assert_int_equal(d.u.req.primary.local_ack_timeout, 18);
	assert_int_equal(eng_cm_mad_encode(&m, c, 100), -ENOSPC);
	m.hdr.attr_id = 0x1b;
	assert_int_equal(eng_cm_mad_encode(&m, c, sizeof(c)), -EOPNOTSUPP);
	roce_req(&m);
	m.u.req.local_qpn = 1u << 24;
	assert_int_equal(eng_cm_mad_encode(&m, c, sizeof(c)), -EINVAL);
	roce_req(&m);
	m.u.req.private_data_len = ENG_CM_REQ_PDATA_SIZE + 1;
	assert_int_equal(eng_cm_mad_encode(&m, c, sizeof(c)), -EINVAL);
}

/* LAP and APR at the kernel's offsets (cm_msgs.h: CM_LAP_* and CM_APR_*
 * IBA_FIELD locations, data offset + 24): a LAP's alternate path has the
 * flow label, then 4 reserved bits and the traffic class in one word,
 * the packet rate in the low 6 bits of byte 61. */
static void test_eng_cm_mad__lap_apr_bytes(void **state)
{
	struct eng_cm_msg m, d;
	uint8_t b[ENG_CM_MAD_SIZE];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_LAP;
	m.hdr.tid = 0x0102030405060708ull;
	m.u.lap.local_comm_id = 0x11223344;
	m.u.lap.remote_comm_id = 0x55667788;
	m.u.lap.remote_qpn = 0xabcdef;
	m.u.lap.remote_cm_response_timeout = 0x1f;
	m.u.lap.alt_local_lid = 0x1234;
	m.u.lap.alt_remote_lid = 0x5678;
	memcpy(m.u.lap.alt_local_gid, gid_a, 16);
	memcpy(m.u.lap.alt_remote_gid, gid_b, 16);
	m.u.lap.alt_flow_label = 0xabcde;
	m.u.lap.alt_traffic_class = 0x68;
	m.u.lap.alt_hop_limit = 64;
	m.u.lap.alt_packet_rate = 0x3f;
	m.u.lap.alt_sl = 0xa;
	m.u.lap.alt_subnet_local = 1;
	m.u.lap.alt_local_ack_timeout = 18;
	m.u.lap.private_data_len = ENG_CM_LAP_PDATA_SIZE;
	memset(m.u.lap.private_data, 0x77, ENG_CM_LAP_PDATA_SIZE);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[16], 0x00); assert_int_equal(b[17], 0x19);
	assert_int_equal(b[H + 0], 0x11); assert_int_equal(b[H + 7], 0x88);
	assert_int_equal(b[H + 8], 0); assert_int_equal(b[H + 11], 0);
	assert_int_equal(b[H + 12], 0xab); assert_int_equal(b[H + 14], 0xef);
	assert_int_equal(b[H + 15], 0xf8);	/* timeout 11111, reserved 000 */
	assert_int_equal(b[H + 20], 0x12); assert_int_equal(b[H + 23], 0x78);
	assert_memory_equal(b + H + 24, gid_a, 16);
	assert_memory_equal(b + H + 40, gid_b, 16);
	assert_int_equal(b[H + 56], 0xab); assert_int_equal(b[H + 57], 0xcd);
	assert_int_equal(b[H + 58], 0xe0);	/* label's last nibble, reserved */
	assert_int_equal(b[H + 59], 0x68);
	assert_int_equal(b[H + 60], 64);
	assert_int_equal(b[H + 61], 0x3f);
	assert_int_equal(b[H + 62], 0xa8);	/* SL 1010, subnet local 1 */
	assert_int_equal(b[H + 63], 18 << 3);
	assert_int_equal(b[H + 64], 0x77); assert_int_equal(b[255], 0x77);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_memory_equal(&m.u.lap, &d.u.lap, sizeof(m.u.lap));
	assert_int_equal(d.hdr.tid, m.hdr.tid);

	memset(&m, 0, sizeof(m));
	m.hdr.method = ENG_CM_METHOD_SEND;
	m.hdr.attr_id = ENG_CM_ATTR_APR;
	m.u.apr.local_comm_id = 0x01020304;
	m.u.apr.remote_comm_id = 0x05060708;
	m.u.apr.ap_status = ENG_CM_APR_UNSUPPORTED;
	m.u.apr.info_len = 2;
	m.u.apr.info[0] = 0xaa;
	m.u.apr.info[1] = 0xbb;
	m.u.apr.private_data_len = ENG_CM_APR_PDATA_SIZE;
	memset(m.u.apr.private_data, 0x66, ENG_CM_APR_PDATA_SIZE);
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), 0);
	assert_int_equal(b[17], 0x1a);
	assert_int_equal(b[H + 3], 0x04); assert_int_equal(b[H + 7], 0x08);
	assert_int_equal(b[H + 8], 2);		/* additional info length */
	assert_int_equal(b[H + 9], 2);		/* AP status: unsupported */
	assert_int_equal(b[H + 12], 0xaa); assert_int_equal(b[H + 13], 0xbb);
	assert_int_equal(b[H + 14], 0);
	assert_int_equal(b[H + 83], 0);
	assert_int_equal(b[H + 84], 0x66); assert_int_equal(b[255], 0x66);
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), 0);
	assert_memory_equal(&m.u.apr, &d.u.apr, sizeof(m.u.apr));
	/* An info length past its 72 bytes: refused both ways. */
	b[H + 8] = ENG_CM_APR_INFO_SIZE + 1;
	assert_int_equal(eng_cm_mad_decode(b, sizeof(b), &d), -EINVAL);
	m.u.apr.info_len = ENG_CM_APR_INFO_SIZE + 1;
	assert_int_equal(eng_cm_mad_encode(&m, b, sizeof(b)), -EINVAL);
	assert_string_equal(eng_cm_attr_name(ENG_CM_ATTR_LAP), "LAP");
	assert_string_equal(eng_cm_attr_name(ENG_CM_ATTR_APR), "APR");
}

static void test_eng_cm_mad__req_check(void **state)
{
	struct eng_cm_msg m;

	(void)state;
	roce_req(&m);
	assert_int_equal(eng_cm_req_check(&m.u.req), 0);
	m.u.req.transport_type = ENG_CM_TRANSPORT_RD;
	assert_int_equal(eng_cm_req_check(&m.u.req), ENG_CM_REJ_INVALID_TRANSPORT_TYPE);
	roce_req(&m);
	m.u.req.path_mtu = 6;
	assert_int_equal(eng_cm_req_check(&m.u.req), ENG_CM_REJ_INVALID_MTU);
	roce_req(&m);
	m.u.req.primary.hop_limit = 0;
	assert_int_equal(eng_cm_req_check(&m.u.req), ENG_CM_REJ_INVALID_HOP_LIMIT);
	roce_req(&m);
	m.u.req.local_qpn = 1;
	assert_int_equal(eng_cm_req_check(&m.u.req), ENG_CM_REJ_UNSUPPORTED);
	assert_string_equal(eng_cm_attr_name(ENG_CM_ATTR_DREP), "DREP");
	assert_string_equal(eng_cm_attr_name(0x1234), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_cm_mad__req_bytes),
		cmocka_unit_test(test_eng_cm_mad__req_round_trip),
		cmocka_unit_test(test_eng_cm_mad__rep_bytes),
		cmocka_unit_test(test_eng_cm_mad__rej_ari),
		cmocka_unit_test(test_eng_cm_mad__sidr_rep_bytes),
		cmocka_unit_test(test_eng_cm_mad__round_trips),
		cmocka_unit_test(test_eng_cm_mad__class_port_info),
		cmocka_unit_test(test_eng_cm_mad__decode_refusals),
		cmocka_unit_test(test_eng_cm_mad__req_check),
		cmocka_unit_test(test_eng_cm_mad__lap_apr_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
