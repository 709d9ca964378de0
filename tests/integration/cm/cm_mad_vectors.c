/* SPDX-License-Identifier: MIT */
/*
 * cm-mad-vectors DIR: writes one CM MAD per message kind, encoded by our
 * codec (eng_cm_mad.c) with fixed field values, as DIR/<name>.mad (256
 * bytes each).  tests/integration/cm_mad_tshark.sh wraps them in RoCEv2
 * UD packets to QP1 and has Wireshark's InfiniBand dissector decode
 * them; the same files seed the fuzz_cm_mad corpus.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_mad.h"
#include "providers/soft/engine/eng_cm_pdata.h"

static const char *dir;

static int put(const char *name, const struct eng_cm_msg *m)
{
	uint8_t b[ENG_CM_MAD_SIZE];
	char path[4096];
	FILE *f;
	int ret = eng_cm_mad_encode(m, b, sizeof(b));

	if (ret < 0) {
		fprintf(stderr, "cm-mad-vectors: encode %s: %s\n", name, strerror(-ret));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s.mad", dir, name);
	f = fopen(path, "wbe");
	if (!f || fwrite(b, 1, sizeof(b), f) != sizeof(b) || fclose(f) != 0) {
		fprintf(stderr, "cm-mad-vectors: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static void hdr(struct eng_cm_msg *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->hdr.method = ENG_CM_METHOD_SEND;
	m->hdr.attr_id = attr;
	m->hdr.tid = tid;
}

static int req(void)
{
	struct eng_cm_msg m;
	struct eng_cm_req *r = &m.u.req;
	struct eng_cm_ip_hdr ip = { .ip_version = 4, .src_port = 40001 };
	static const uint8_t user[4] = { 0xde, 0xad, 0xbe, 0xef };

	hdr(&m, ENG_CM_ATTR_REQ, 0x1122334455667788ull);
	r->local_comm_id = 0xa1b2c3d4u;
	r->service_id = eng_cm_service_id(ENG_CM_PS_TCP, 20001);
	r->local_ca_guid = 0x0202c9fffe000001ull;
	r->local_qpn = 0x000123;
	r->responder_resources = 4;
	r->initiator_depth = 2;
	r->remote_cm_response_timeout = 20;
	r->transport_type = ENG_CM_TRANSPORT_RC;
	r->starting_psn = 0xabcdef;
	r->local_cm_response_timeout = 19;
	r->retry_count = 7;
	r->pkey = 0xffff;
	r->path_mtu = 5;
	r->rnr_retry_count = 6;
	r->max_cm_retries = 15;
	r->primary.local_lid = 0xffff;
	r->primary.remote_lid = 0xffff;
	r->primary.local_gid[10] = r->primary.local_gid[11] = 0xff;
	r->primary.local_gid[12] = 10; r->primary.local_gid[15] = 1;
	r->primary.remote_gid[10] = r->primary.remote_gid[11] = 0xff;
	r->primary.remote_gid[12] = 10; r->primary.remote_gid[15] = 2;
	r->primary.flow_label = 0xabcde;
	r->primary.packet_rate = 0x3f;
	r->primary.traffic_class = 0x68;
	r->primary.hop_limit = 64;
	r->primary.local_ack_timeout = 18;
	ip.src_addr[12] = 10; ip.src_addr[15] = 1;
	ip.dst_addr[12] = 10; ip.dst_addr[15] = 2;
	if (eng_cm_pdata_encode(ENG_CM_ATTR_REQ, &ip, user, sizeof(user),
				r->private_data, sizeof(r->private_data),
				&r->private_data_len) < 0)
		return 1;
	if (put("req", &m))
		return 1;
	/* An XRC initiator's (rdma_xclient -c x): the IB port space,
	 * transport EXT with extended type XRC, no receive side's fields. */
	r->service_id = eng_cm_service_id(ENG_CM_PS_IB, 7471);
	r->transport_type = ENG_CM_TRANSPORT_EXT;
	r->ext_transport_type = ENG_CM_EXT_TRANSPORT_XRC;
	r->responder_resources = 0;
	r->retry_count = 0;
	r->rnr_retry_count = 0;
	r->srq = 0;
	return put("req_xrc", &m);
}

static int rep(void)
{
	struct eng_cm_msg m;

	hdr(&m, ENG_CM_ATTR_REP, 0x1122334455667788ull);
	m.u.rep.local_comm_id = 0x11223344;
	m.u.rep.remote_comm_id = 0xa1b2c3d4u;
	m.u.rep.local_qpn = 0xfedcba;
	m.u.rep.starting_psn = 0x123456;
	m.u.rep.responder_resources = 2;
	m.u.rep.initiator_depth = 4;
	m.u.rep.target_ack_delay = 0x11;
	m.u.rep.failover_accepted = 3;
	m.u.rep.e2e_flow_control = 1;
	m.u.rep.rnr_retry_count = 5;
	m.u.rep.srq = 1;
	m.u.rep.local_ca_guid = 0x0102030405060708ull;
	if (put("rep", &m))
		return 1;
	/* An XRC target's: its QPN in the EECN field, SRQ set. */
	m.u.rep.local_qpn = 0;
	m.u.rep.local_eecn = 0xfedcba;
	m.u.rep.initiator_depth = 0;
	m.u.rep.e2e_flow_control = 0;
	return put("rep_xrc", &m);
}

static int small(void)
{
	struct eng_cm_msg m;
	int bad = 0;

	hdr(&m, ENG_CM_ATTR_RTU, 1);
	m.u.rtu.local_comm_id = 0xa1b2c3d4u;
	m.u.rtu.remote_comm_id = 0x11223344;
	bad |= put("rtu", &m);
	hdr(&m, ENG_CM_ATTR_REJ, 2);
	m.u.rej.local_comm_id = 0x11223344;
	m.u.rej.remote_comm_id = 0xa1b2c3d4u;
	m.u.rej.msg_rejected = ENG_CM_MSG_REF_REQ;
	m.u.rej.reason = ENG_CM_REJ_CONSUMER_DEFINED;
	m.u.rej.ari_len = 4;
	m.u.rej.ari[0] = 0xaa;
	bad |= put("rej", &m);
	hdr(&m, ENG_CM_ATTR_MRA, 3);
	m.u.mra.local_comm_id = 0x11223344;
	m.u.mra.remote_comm_id = 0xa1b2c3d4u;
	m.u.mra.service_timeout = 20;
	bad |= put("mra", &m);
	hdr(&m, ENG_CM_ATTR_DREQ, 4);
	m.u.dreq.local_comm_id = 0xa1b2c3d4u;
	m.u.dreq.remote_comm_id = 0x11223344;
	m.u.dreq.remote_qpn = 0xfedcba;
	bad |= put("dreq", &m);
	hdr(&m, ENG_CM_ATTR_DREP, 4);
	m.u.drep.local_comm_id = 0x11223344;
	m.u.drep.remote_comm_id = 0xa1b2c3d4u;
	bad |= put("drep", &m);
	hdr(&m, ENG_CM_ATTR_LAP, 7);
	m.u.lap.local_comm_id = 0xa1b2c3d4u;
	m.u.lap.remote_comm_id = 0x11223344;
	m.u.lap.remote_qpn = 0xfedcba;
	m.u.lap.alt_hop_limit = 64;
	bad |= put("lap", &m);
	hdr(&m, ENG_CM_ATTR_APR, 7);
	m.u.apr.local_comm_id = 0x11223344;
	m.u.apr.remote_comm_id = 0xa1b2c3d4u;
	m.u.apr.ap_status = ENG_CM_APR_UNSUPPORTED;
	bad |= put("apr", &m);
	return bad;
}

static int sidr_cpi(void)
{
	struct eng_cm_msg m, get;
	struct eng_cm_class_port_info cpi;
	int bad = 0;

	hdr(&m, ENG_CM_ATTR_SIDR_REQ, 5);
	m.u.sidr_req.request_id = 0x55;
	m.u.sidr_req.pkey = 0xffff;
	m.u.sidr_req.service_id = eng_cm_service_id(ENG_CM_PS_UDP, 7174);
	bad |= put("sidr_req", &m);
	hdr(&m, ENG_CM_ATTR_SIDR_REP, 5);
	m.u.sidr_rep.request_id = 0x55;
	m.u.sidr_rep.qpn = 0x4242;
	m.u.sidr_rep.qkey = ENG_CM_UDP_QKEY;
	m.u.sidr_rep.service_id = eng_cm_service_id(ENG_CM_PS_UDP, 7174);
	bad |= put("sidr_rep", &m);
	hdr(&get, ENG_CM_ATTR_CLASS_PORT_INFO, 6);
	get.hdr.method = ENG_CM_METHOD_GET;
	bad |= put("cpi_get", &get);
	eng_cm_mad_class_port_info(20, &cpi);
	eng_cm_mad_get_resp(&get.hdr, &cpi, 0, &m);
	bad |= put("cpi_resp", &m);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: cm-mad-vectors DIR\n");
		return 2;
	}
	dir = argv[1];
	return req() | rep() | small() | sidr_cpi();
}
