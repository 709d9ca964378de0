/* SPDX-License-Identifier: MIT */
/* Unit tests of receive classify (eng_recv.h) with scripted packets on an
 * engine of two in-memory devices: a UD QP, an RC QP connected to a
 * remote peer, a UD QP in INIT; each check of eng_recv_classify() hit by
 * one packet that breaks only it, and the good ones accepted. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_recv.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_xport.h"

#define GID4(a, b, c, d) { [10] = 0xff, [11] = 0xff, a, b, c, d }

static const uint8_t me[16] = GID4(10, 0, 0, 2);	/* dev 1 */
static const uint8_t other_local[16] = GID4(10, 0, 0, 9);	/* dev 2 */
static const uint8_t peer[16] = GID4(10, 0, 1, 5);	/* remote */
static const uint8_t stranger[16] = GID4(10, 0, 1, 6);	/* remote */

enum { QPN_UD = 0x11, QPN_RC = 0x12, QPN_INIT = 0x13, QPN_XT = 0x14,
       QPN_XI = 0x15 };
#define QKEY 0x1111u

struct fx {
	struct eng e;
	struct eng_dev d1, d2;
	struct eng_qp ud, rc, init, xrc_recv, xrc_send;
};

static struct fx fx;

static void add_qp(struct eng_qp *q, uint32_t qpn, uint32_t type,
		   uint32_t state)
{
	q->qp_num = qpn;
	q->init.qp_type = type;
	q->state = state;
	q->attr.qkey = QKEY;
	memcpy(q->attr.ah_attr.dgid, peer, 16);
	assert_int_equal(eng_idtab_alloc_at(&fx.d1.qps, qpn, q), 0);
}

static int setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	eng_idtab_init(&fx.e.devs, 1, 16);
	fx.d1.id = 1;
	fx.d1.ns_fd = -1;
	fx.d1.pkey = 0xffff;
	fx.d1.gid_count = 1;
	memcpy(fx.d1.gid[0].gid, me, 16);
	eng_idtab_init(&fx.d1.qps, 2, 0xfffffe);
	fx.d2 = fx.d1;
	fx.d2.id = 2;
	memcpy(fx.d2.gid[0].gid, other_local, 16);
	eng_idtab_init(&fx.d2.qps, 2, 0xfffffe);
	assert_int_equal(eng_idtab_alloc_at(&fx.e.devs, 1, &fx.d1), 0);
	assert_int_equal(eng_idtab_alloc_at(&fx.e.devs, 2, &fx.d2), 0);
	/* what eng_device.c keeps for every device's table */
	eng_gidmap_init(&fx.e.gids, 42);
	assert_int_equal(eng_gidmap_put(&fx.e.gids, me, 1), 0);
	assert_int_equal(eng_gidmap_put(&fx.e.gids, other_local, 2), 0);
	add_qp(&fx.ud, QPN_UD, IBV_QPT_UD, IBV_QPS_RTS);
	add_qp(&fx.rc, QPN_RC, IBV_QPT_RC, IBV_QPS_RTR);
	add_qp(&fx.init, QPN_INIT, IBV_QPT_UD, IBV_QPS_INIT);
	add_qp(&fx.xrc_recv, QPN_XT, IBV_QPT_XRC_RECV, IBV_QPS_RTR);
	add_qp(&fx.xrc_send, QPN_XI, IBV_QPT_XRC_SEND, IBV_QPS_RTS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	eng_idtab_fini(&fx.d1.qps);
	eng_idtab_fini(&fx.d2.qps);
	eng_idtab_fini(&fx.e.devs);
	eng_gidmap_fini(&fx.e.gids);
	return 0;
}

/* A scripted packet: headers h, paylen bytes, sealed over the headers of
 * src -> dst with IPv4 ID ip_id (as a kernel would send it). */
struct pkt {
	uint8_t buf[2048];
	struct eng_net_pkt np;
};

static void make(struct pkt *p, const struct eng_pkt_hdrs *h,
		 uint32_t paylen, const uint8_t *src, const uint8_t *dst,
		 uint16_t ip_id)
{
	uint8_t pay[1024];
	struct eng_wire_ip ip;
	ssize_t n;

	memset(pay, 0x5a, sizeof(pay));
	n = eng_wire_build(h, pay, paylen, p->buf, sizeof(p->buf));
	assert_true(n > 0);
	assert_int_equal(eng_wire_ip_build(&ip, src, dst, 49152, 4791,
					   (uint32_t)n, 0, 64, ip_id), 0);
	assert_int_equal(eng_icrc_seal(ip.ip, ip.iplen, ip.udp, p->buf,
				       (size_t)n), 0);
	memset(&p->np, 0, sizeof(p->np));
	p->np.data = p->buf;
	p->np.len = (uint32_t)n;
	memcpy(p->np.src.gid, src, 16);
	p->np.src.port = 49152;
	memcpy(p->np.dst, dst, 16);
	p->np.ttl = 61;		/* routers changed it: masked */
}

static struct eng_pkt_hdrs ud_hdrs(uint32_t dqpn, uint32_t qkey,
				   uint16_t pkey)
{
	return (struct eng_pkt_hdrs){
		.bth = { .opcode = ENG_OP_UD_SEND_ONLY, .pkey = pkey,
			 .dqpn = dqpn, .psn = 1 },
		.deth = { .qkey = qkey, .sqpn = 0x77 },
	};
}

static enum eng_recv_verdict classify(struct pkt *p, struct eng_recv *r)
{
	return eng_recv_classify(&fx.e, &fx.d1, &p->np, r);
}

static void test_recv__ud_accepted_with_its_ip_id(void **state)
{
	struct eng_pkt_hdrs h = ud_hdrs(QPN_UD, QKEY, 0xffff);
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &h, 100, peer, me, 0xabcd);
	assert_int_equal(classify(&p, &r), ENG_RECV_UD);
	assert_ptr_equal(r.qp, &fx.ud);
	assert_int_equal(r.pkt.h.deth.sqpn, 0x77);
	assert_int_equal(r.pkt.paylen, 100);
	/* The header as sent, for the GRH: ID and TTL included. */
	assert_int_equal(r.ip.ip[4] << 8 | r.ip.ip[5], 0xabcd);
	assert_int_equal(r.ip.ip[8], 61);
	/* A limited-member P_Key of the same partition matches a full one. */
	h = ud_hdrs(QPN_UD, QKEY, 0x7fff);
	make(&p, &h, 4, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_UD);
}

static void test_recv__truncated_and_malformed(void **state)
{
	struct eng_pkt_hdrs h = ud_hdrs(QPN_UD, QKEY, 0xffff);
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &h, 0, peer, me, 0);
	p.np.len = ENG_BTH_LEN + 4 + ENG_ICRC_LEN;	/* half a DETH */
	assert_int_equal(classify(&p, &r), ENG_RECV_PARSE);
	make(&p, &h, 8, peer, me, 0);
	p.np.len -= 2;				/* not whole words */
	assert_int_equal(classify(&p, &r), ENG_RECV_PARSE);
	make(&p, &h, 8, peer, me, 0);
	p.buf[0] = 0x40;			/* an RD opcode: unknown */
	assert_int_equal(classify(&p, &r), ENG_RECV_PARSE);
	make(&p, &h, 8, peer, me, 0);
	p.buf[1] |= 0x01;			/* TVer 1 */
	assert_int_equal(classify(&p, &r), ENG_RECV_PARSE);
	/* FECN/BECN/reserved (BTH byte 4): set by the network, masked out
	 * of the ICRC, never a reason to drop. */
	make(&p, &h, 8, peer, me, 0);
	p.buf[4] = 0xc0;
	assert_int_equal(classify(&p, &r), ENG_RECV_UD);
}

static void test_recv__oversized_claims_and_bad_icrc(void **state)
{
	struct eng_pkt_hdrs h = ud_hdrs(QPN_UD, QKEY, 0xffff);
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &h, 1000, peer, me, 0x1234);
	p.buf[40] ^= 0x01;			/* a payload bit */
	assert_int_equal(classify(&p, &r), ENG_RECV_ICRC);
	make(&p, &h, 1000, peer, me, 0);
	p.buf[p.np.len - 1] ^= 0x80;		/* the ICRC itself */
	assert_int_equal(classify(&p, &r), ENG_RECV_ICRC);
	/* A packet longer than it was sealed (trailing bytes claimed as
	 * payload): its ICRC no longer matches. */
	make(&p, &h, 1000, peer, me, 0);
	memset(p.buf + p.np.len, 0, 4);
	p.np.len += 4;
	assert_int_equal(classify(&p, &r), ENG_RECV_ICRC);
	/* The source address the socket reports differs from the one the
	 * ICRC was computed over (a NAT, or a forger). */
	make(&p, &h, 64, peer, me, 0x55);
	memcpy(p.np.src.gid, stranger, 16);
	assert_int_equal(classify(&p, &r), ENG_RECV_ICRC);
}

static void test_recv__addresses(void **state)
{
	struct eng_pkt_hdrs h = ud_hdrs(QPN_UD, QKEY, 0xffff);
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &h, 64, peer, other_local, 0);	/* dev 2's address */
	assert_int_equal(classify(&p, &r), ENG_RECV_NOT_OURS);
	make(&p, &h, 64, other_local, me, 0);	/* from dev 2 by the wire */
	assert_int_equal(classify(&p, &r), ENG_RECV_SRC_LOCAL);
}

static void test_recv__qp_checks(void **state)
{
	struct eng_pkt_hdrs h;
	struct eng_recv r;
	struct pkt p;

	(void)state;
	h = ud_hdrs(0x999, QKEY, 0xffff);
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_NO_QP);
	/* refused before its ICRC is looked at: a garbage flood at
	 * random QPNs costs no ICRC computation */
	p.buf[p.np.len - 1] ^= 0x80;
	assert_int_equal(classify(&p, &r), ENG_RECV_NO_QP);
	h = ud_hdrs(0, QKEY, 0xffff);			/* QP0: none */
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_NO_QP);
	h = ud_hdrs(QPN_UD, QKEY, 0x1234);		/* other partition */
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_PKEY);
	fx.d1.pkey = 0x7fff;				/* both limited */
	h = ud_hdrs(QPN_UD, QKEY, 0x7fff);
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_PKEY);
	fx.d1.pkey = 0xffff;
	h = ud_hdrs(QPN_INIT, QKEY, 0xffff);
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_QP_STATE);
	h = ud_hdrs(QPN_UD, QKEY + 1, 0xffff);
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_QKEY);
	h = ud_hdrs(QPN_UD, QKEY | 0x80000000u, 0xffff);	/* controlled */
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_QKEY);
	/* An RC SEND to the UD QP, a UD datagram to the RC QP. */
	h = (struct eng_pkt_hdrs){ .bth = { .opcode = ENG_OP_RC_SEND_ONLY,
					    .pkey = 0xffff, .dqpn = QPN_UD } };
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
	h = ud_hdrs(QPN_RC, QKEY, 0xffff);
	make(&p, &h, 64, peer, me, 0);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
}

static void test_recv__rc_peer_and_qp1(void **state)
{
	struct eng_pkt_hdrs h = { .bth = { .opcode = ENG_OP_RC_SEND_ONLY,
					   .pkey = 0xffff, .dqpn = QPN_RC } };
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &h, 64, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_RC);
	assert_ptr_equal(r.qp, &fx.rc);
	/* Any other sender into the connection. */
	make(&p, &h, 64, stranger, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_SRC);
	/* QP1: the GSI Q_Key only. */
	h = ud_hdrs(1, ENG_WIRE_GSI_QKEY, 0xffff);
	make(&p, &h, 256, stranger, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_QP1);
	assert_null(r.qp);
	h = ud_hdrs(1, QKEY, 0xffff);
	make(&p, &h, 256, stranger, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_QKEY);
}

/* XRC (IBA 19.2.5): requests only at an XRC_RECV QP, responses only at
 * an XRC_SEND one, XRC opcodes at no other QP; an accepted packet goes
 * on as RC's opcode with its XRCETH's SRQ number. */
static void test_recv__xrc(void **state)
{
	struct eng_pkt_hdrs req = {
		.bth = { .opcode = ENG_OP_XRC_BASE + ENG_OP_RC_SEND_ONLY,
			 .pkey = 0xffff, .dqpn = QPN_XT },
		.xrcsrq = 0xabcdef,
	};
	struct eng_pkt_hdrs ack = {
		.bth = { .opcode = ENG_OP_XRC_BASE + ENG_OP_RC_ACK,
			 .pkey = 0xffff, .dqpn = QPN_XI },
		.aeth = { .syndrome = 0x1f, .msn = 1 },
	};
	struct eng_recv r;
	struct pkt p;

	(void)state;
	make(&p, &req, 64, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_RC);
	assert_ptr_equal(r.qp, &fx.xrc_recv);
	assert_int_equal(r.pkt.h.bth.opcode, ENG_OP_RC_SEND_ONLY);
	assert_int_equal(r.pkt.h.xrcsrq, 0xabcdef);
	make(&p, &ack, 0, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_RC);
	assert_ptr_equal(r.qp, &fx.xrc_send);
	assert_int_equal(r.pkt.h.bth.opcode, ENG_OP_RC_ACK);
	/* The wrong way round. */
	req.bth.dqpn = QPN_XI;
	make(&p, &req, 64, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
	ack.bth.dqpn = QPN_XT;
	make(&p, &ack, 0, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
	/* XRC opcodes at an RC QP, RC opcodes at an XRC one. */
	req.bth.dqpn = QPN_RC;
	make(&p, &req, 64, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
	req.bth.dqpn = QPN_XT;
	req.bth.opcode = ENG_OP_RC_SEND_ONLY;
	make(&p, &req, 64, peer, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_OPCODE);
	/* The connection's peer only. */
	req.bth.opcode = ENG_OP_XRC_BASE + ENG_OP_RC_SEND_ONLY;
	make(&p, &req, 64, stranger, me, 0x42);
	assert_int_equal(classify(&p, &r), ENG_RECV_SRC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recv__ud_accepted_with_its_ip_id),
		cmocka_unit_test(test_recv__truncated_and_malformed),
		cmocka_unit_test(test_recv__oversized_claims_and_bad_icrc),
		cmocka_unit_test(test_recv__addresses),
		cmocka_unit_test(test_recv__qp_checks),
		cmocka_unit_test(test_recv__rc_peer_and_qp1),
		cmocka_unit_test(test_recv__xrc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
