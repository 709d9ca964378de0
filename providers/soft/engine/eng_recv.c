/* SPDX-License-Identifier: MIT */
/*
 * recv: the strong eng_net_rx() (eng_net.h's hook): every RoCEv2 packet
 * a device's socket receives is classified (eng_recv.h) and either
 * dropped, with a counter per reason (wire_rx_*, pvctl stats), or handed
 * to its transport: QP1 to the CM agent, UD to eng_wire_ud.c, RC/UC to
 * eng_wire_rc*.c (eng_wire_xport.h).  The checks are rxe's (rxe_recv.c:
 * destination GID, QPN, P_Key, QP state, Q_Key or the peer's address,
 * ICRC), in an order that makes the counters say what was wrong: a
 * corrupt packet is counted as such before any of its fields is trusted.
 *
 * The IP header: the socket reports the addresses, TOS and TTL, not the
 * IPv4 Identification, which the ICRC covers; eng_wire_iphdr.h recovers
 * it from the ICRC instead of reading it through a raw or packet socket
 * (which needs CAP_NET_RAW, dropped by eng_caps.h, and would see a copy
 * of every UDP packet of the pod).  Measured on the 2-core development
 * machine under a load average of ~8: the recovery costs one 32x32 GF(2)
 * product per set bit of the distance (at most 18); the whole check of a
 * 1 KiB packet with a non-zero ID runs at 0.7-4.8 million/s
 * (test_eng_wire_iphdr prints it), while UD end to end across two engines
 * moves ~70k datagrams/s (ib_send_bw -c UD, 64 bytes; 500k/s same-node):
 * the check is not what limits receive.  Own packets (ID 0) need no
 * recovery: the first comparison matches.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_gid_own.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_recv.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

__attribute__((weak)) void eng_wire_rc_rx(struct eng *e, struct eng_dev *d,
					  struct eng_qp *qp,
					  const struct eng_pkt *pkt,
					  const struct eng_net_pkt *np)
{
	eng_stat_inc(wire_rx_rc_unclaimed);
}

__attribute__((weak)) void eng_cm_wire_rx(struct eng *e, struct eng_dev *d,
					  const struct eng_pkt *pkt,
					  const struct eng_net_pkt *np)
{
	eng_stat_inc(wire_rx_qp1_unclaimed);
}

/* IBA 10.9.3: base values equal, at least one a full member. */
static bool pkey_ok(uint16_t a, uint16_t b)
{
	return (a & ENG_PKEY_BASE_MASK) == (b & ENG_PKEY_BASE_MASK) &&
	       ((a | b) & ENG_PKEY_FULL_MEMBER);
}

/* O(1) per packet (eng_gidmap.h), not a walk over every device's table:
 * the engine may hold hundreds of pods' devices. */
static bool gid_local(const struct eng *e, const uint8_t gid[16])
{
	return eng_gidmap_get(&e->gids, gid) != 0;
}

/* The transport of a QP type, as the BTH opcode's top bits say it. */
static int qp_tp(uint32_t qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return ENG_TP_RC;
	case IBV_QPT_UC:
		return ENG_TP_UC;
	case IBV_QPT_UD:
		return ENG_TP_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return ENG_TP_XRC;
	default:
		return -1;
	}
}

/* The per-QP checks, once the packet itself is known good. */
static enum eng_recv_verdict classify_qp(struct eng_dev *d,
					 const struct eng_net_pkt *np,
					 struct eng_recv *out)
{
	const struct eng_bth *b = &out->pkt.h.bth;
	struct eng_qp *qp;

	if (b->dqpn == 1) {
		if (eng_wire_op_tp(b->opcode) != ENG_TP_UD)
			return ENG_RECV_OPCODE;
		if (!pkey_ok(b->pkey, d->pkey))
			return ENG_RECV_PKEY;
		if (out->pkt.h.deth.qkey != ENG_WIRE_GSI_QKEY)
			return ENG_RECV_QKEY;
		return ENG_RECV_QP1;
	}
	qp = b->dqpn ? eng_idtab_get(&d->qps, b->dqpn) : NULL;
	if (!qp)
		return ENG_RECV_NO_QP;
	if (!pkey_ok(b->pkey, d->pkey))
		return ENG_RECV_PKEY;
	if (!eng_qps_receives(qp->state))
		return ENG_RECV_QP_STATE;
	if (qp_tp(qp->init.qp_type) != (int)eng_wire_op_tp(b->opcode))
		return ENG_RECV_OPCODE;
	out->qp = qp;
	/* XRC (IBA 19.2.5): requests go to an XRC_RECV QP, responses to an
	 * XRC_SEND one; from here on the packet is handled as RC's opcode
	 * (the XRCETH stays in its headers). */
	if (qp->init.qp_type == IBV_QPT_XRC_SEND ||
	    qp->init.qp_type == IBV_QPT_XRC_RECV) {
		if (!(out->pkt.mask & ENG_OPF_RESP) !=
		    (qp->init.qp_type == IBV_QPT_XRC_RECV))
			return ENG_RECV_OPCODE;
		out->pkt.h.bth.opcode -= ENG_OP_XRC_BASE;
	}
	if (qp->init.qp_type == IBV_QPT_UD) {
		/* Only datagrams come in (the opcode table has no others
		 * for UD); a controlled Q_Key (high bit) can only match a
		 * QP whose own Q_Key is one, which pods cannot set. */
		if (out->pkt.h.deth.qkey != qp->attr.qkey) {
			d->rguard.qkey_errors++;
			return ENG_RECV_QKEY;
		}
		return ENG_RECV_UD;
	}
	/* A connected packet names only its destination QP: the source
	 * address must be the peer the QP was connected to, or any pod
	 * could speak into the connection. */
	if (memcmp(np->src.gid, qp->attr.ah_attr.dgid, 16) != 0)
		return ENG_RECV_SRC;
	return ENG_RECV_RC;
}

/* ICRC of a packet whose headers parsed, over the header as it came. */
static enum eng_recv_verdict check_icrc(const struct eng_net_pkt *np,
					struct eng_recv *out)
{
	uint16_t id;
	int ret;

	if (eng_wire_ip_build(&out->ip, np->src.gid, np->dst, np->src.port,
			      ENG_NET_ROCE_PORT, np->len, np->tos, np->ttl,
			      0) < 0)
		return ENG_RECV_PARSE;
	ret = eng_wire_icrc_check_rx(&out->ip, np->data, np->len, &id);
	if (ret < 0)
		return ret == -EBADMSG ? ENG_RECV_ICRC : ENG_RECV_PARSE;
	if (id)
		eng_stat_inc(wire_rx_ipid_recovered);
	return ENG_RECV_UD;
}

/* To a group (only the socket d holds for a group it joined receives
 * these, eng_net_mcast.c): a UD datagram to the multicast QP (IBA
 * 9.8.1), in d's partition; the members' Q_Keys are checked per QP. */
static enum eng_recv_verdict classify_mcast(struct eng *e, struct eng_dev *d,
					    const struct eng_net_pkt *np,
					    struct eng_recv *out)
{
	const struct eng_bth *b = &out->pkt.h.bth;
	enum eng_recv_verdict v;

	if (b->dqpn != ENG_MCAST_QPN)
		return ENG_RECV_NO_QP;
	v = check_icrc(np, out);
	if (v != ENG_RECV_UD)
		return v;
	if (gid_local(e, np->src.gid))
		return ENG_RECV_MCAST_ECHO;
	if (eng_wire_op_tp(b->opcode) != ENG_TP_UD)
		return ENG_RECV_OPCODE;
	if (!pkey_ok(b->pkey, d->pkey))
		return ENG_RECV_PKEY;
	return ENG_RECV_MCAST;
}

enum eng_recv_verdict eng_recv_classify(struct eng *e, struct eng_dev *d,
					const struct eng_net_pkt *np,
					struct eng_recv *out)
{
	enum eng_recv_verdict v;

	memset(out, 0, sizeof(*out));
	if (eng_wire_parse(np->data, np->len, &out->pkt) < 0)
		return ENG_RECV_PARSE;
	if (eng_mcast_gid_is_group(np->dst))
		return classify_mcast(e, d, np, out);
	if (!eng_gidmap_has(&e->gids, np->dst, d->id))
		return ENG_RECV_NOT_OURS;
	/* Cheap before costly: a packet for no QP of d goes before its
	 * ICRC is computed (an O(1) look-up instead of a CRC over the
	 * whole packet and the IPv4 ID's recovery): a flood of RoCEv2-
	 * looking garbage at random QPNs is dropped for the price of a
	 * parse.  Such a packet is counted as wire_rx_no_qp even when it
	 * was corrupt. */
	if (out->pkt.h.bth.dqpn != 1 &&
	    (!out->pkt.h.bth.dqpn ||
	     !eng_idtab_get(&d->qps, out->pkt.h.bth.dqpn)))
		return ENG_RECV_NO_QP;
	v = check_icrc(np, out);
	if (v != ENG_RECV_UD)
		return v;
	if (gid_local(e, np->src.gid))
		return ENG_RECV_SRC_LOCAL;
	return classify_qp(d, np, out);
}

/* A datagram with a wrong Q_Key from another node: dropped and counted
 * (classify_qp), and, as between two pods of one engine (eng_dp_rguard.c),
 * warned about at most once a second per device.  The sender's error
 * budget is not charged: its device is another engine's. */
static void qkey_warn(struct eng_dev *d, const struct eng_recv *r,
		      const struct eng_net_pkt *p)
{
	struct netns_gid g;
	struct timespec ts;
	char txt[40];
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - d->rguard.qkey_warn_ns < ENG_RGUARD_WARN_NS)
		return;
	d->rguard.qkey_warn_ns = now;
	memcpy(g.raw, p->src.gid, 16);
	netns_gid_format(&g, txt);
	eng_warn("device %s (%u): %" PRIu64 " datagrams dropped for a wrong "
		 "Q_Key (last: to QP %u from %s QP %u, over the wire)",
		 d->name, d->id, d->rguard.qkey_errors,
		 r->qp ? r->qp->qp_num : 0, txt, r->pkt.h.deth.sqpn);
}

void eng_net_rx(struct eng *e, struct eng_dev *d, const struct eng_net_pkt *p)
{
	enum eng_recv_verdict v;
	struct eng_recv r;

	eng_stat_inc(wire_rx_pkts);
	eng_hwc_dev_add(d, rcvd_pkts, 1);
	r.qp = NULL;
	v = eng_recv_classify(e, d, p, &r);
	if (v == ENG_RECV_UD || v == ENG_RECV_RC || v == ENG_RECV_QP1) {
		eng_hwc_dev_add(d, rcvd_bytes, r.pkt.paylen);
		if (v != ENG_RECV_QP1) {
			eng_hwc_bump(NULL, &r.qp->hw, ENG_HWC_rcvd_pkts, 1);
			eng_hwc_bump(NULL, &r.qp->hw, ENG_HWC_rcvd_bytes,
				     r.pkt.paylen);
		}
	}
	switch (v) {
	case ENG_RECV_UD:
		eng_dp_wire_work(e);
		eng_wire_ud_rx(e, d, r.qp, &r.pkt, &r.ip);
		return;
	case ENG_RECV_RC:
		eng_dp_wire_work(e);
		eng_wire_rc_rx(e, d, r.qp, &r.pkt, p);
		return;
	case ENG_RECV_QP1:
		eng_cm_wire_rx(e, d, &r.pkt, p);
		return;
	case ENG_RECV_MCAST:
		eng_stat_inc(wire_rx_mcast);
		eng_mcast_wire_rx(e, d, &r.pkt, &r.ip, p->dst);
		return;
	case ENG_RECV_MCAST_ECHO:
		eng_stat_inc(wire_rx_mcast_echo);
		return;
	case ENG_RECV_PARSE:
		eng_stat_inc(wire_rx_parse_err);
		return;
	case ENG_RECV_NOT_OURS:
		eng_stat_inc(wire_rx_not_our_ip);
		return;
	case ENG_RECV_ICRC:
		eng_stat_inc(wire_rx_icrc_err);
		eng_hwc_dev_add(d, icrc_err, 1);
		return;
	case ENG_RECV_SRC_LOCAL:
		eng_stat_inc(wire_rx_src_local);
		return;
	case ENG_RECV_NO_QP:
		eng_stat_inc(wire_rx_no_qp);
		return;
	case ENG_RECV_PKEY:
		eng_stat_inc(wire_rx_pkey);
		eng_hwc_add(d, r.qp, pkey_drops, 1);
		return;
	case ENG_RECV_QP_STATE:
		eng_stat_inc(wire_rx_qp_state);
		return;
	case ENG_RECV_OPCODE:
		eng_stat_inc(wire_rx_bad_opcode);
		return;
	case ENG_RECV_SRC:
		eng_stat_inc(wire_rx_src_mismatch);
		eng_hwc_add(d, r.qp, gid_drops, 1);
		return;
	case ENG_RECV_QKEY:
		eng_stat_inc(wire_rx_qkey);
		eng_hwc_add(d, r.qp, qkey_drops, 1);
		if (r.qp)
			qkey_warn(d, &r, p);
		return;
	}
}
