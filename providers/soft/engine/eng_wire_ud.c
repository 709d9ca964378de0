/* SPDX-License-Identifier: MIT */
/*
 * UD on the wire (IBA 9.8.4 datagrams over RoCEv2): a send is one
 * SEND_ONLY or SEND_ONLY_WITH_IMMEDIATE packet with a DETH (the Q_Key,
 * the source QPN), the device's P_Key, the AH's traffic class as TOS and
 * the route's TTL, the payload referenced in registered memory and
 * read by the kernel's copy only; it completes at once (a datagram the
 * network loses is lost silently, as same-node's).  A receive goes to
 * the responder of eng_dp_resp.c with the 40-byte GRH area holding the
 * packet's IP header as it was sent (eng_wire_iphdr.h): 20 zero bytes
 * then IPv4's 20, or IPv6's 40 (its flow label is not reported by the
 * socket: 0).  No receive posted: dropped and counted (RNR does not
 * exist for UD).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_iphdr.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

/* The largest UD payload: the largest path MTU (IBA 4096). */
static uint8_t ud_bounce[4096];

int eng_wire_ud_send(struct eng *e, struct eng_dp_qp *dq,
		     const struct eng_dp_msg *m, uint32_t dqpn,
		     uint32_t qkey)
{
	struct eng_qp *qp = dq->qp;
	struct eng_dev *d = qp->o.conn->dev;
	bool imm = eng_wr_has_imm(m->opcode);
	struct eng_pkt_hdrs h = {
		.bth = { .opcode = imm ? ENG_OP_UD_SEND_ONLY_IMM :
					 ENG_OP_UD_SEND_ONLY,
			 .se = (m->send_flags & IBV_SEND_SOLICITED) != 0,
			 .pkey = d->pkey, .dqpn = dqpn & ENG_QPN_MASK,
			 .psn = qp->attr.sq_psn & ENG_PSN_MASK },
		.deth = { .qkey = qkey, .sqpn = qp->qp_num },
		.imm = imm ? ntohl(m->imm_data) : 0,
	};
	/* TTL: the route's (the socket's default), not the AH's hop limit,
	 * as Linux does for every RoCE AH (ib_resolve_unicast_gid_dmac
	 * replaces it with the route's hop limit): ibv_*_pingpong ask for
	 * 1, which no routed pod network would carry. */
	struct eng_wire_dst dst = { .tos = m->traffic_class };
	int ret;

	const struct eng_seg *segs = m->segs;
	uint32_t nsegs = m->nsegs;
	struct eng_seg one;
	bool bounced = false;

	memcpy(dst.dgid, m->dgid, 16);
	/* IBA 9.8.4: a UD QP's PSN advances per packet sent. */
	qp->attr.sq_psn = (qp->attr.sq_psn + 1) & ENG_PSN_MASK;
	/* More segments than a queued packet holds (max_sge goes to 32):
	 * gathered into the engine's one bounce buffer, sent at once. */
	if (nsegs > ENG_NET_IOV_MAX && m->len <= sizeof(ud_bounce)) {
		one = (struct eng_seg){ .ptr = ud_bounce, .len = m->len };
		if (eng_dp_copy(&one, 1, segs, nsegs, m->len) == 0) {
			segs = &one;
			nsegs = 1;
			bounced = true;
		}
	}
	ret = eng_wire_tx(e, d, &dst, &h, segs, nsegs, m->len);
	eng_hwc_wire_tx(d, qp, ret, m->len);
	if (ret == -EMSGSIZE)
		return IBV_WC_LOC_LEN_ERR;
	if (ret < 0) {
		eng_stat_inc(wire_ud_tx_lost);
		return IBV_WC_SUCCESS;
	}
	eng_stat_inc(wire_ud_tx);
	/* The payload is referenced until the flush: once the application
	 * sees the completion it may reuse the buffer, and inline bytes
	 * live in dq->cur, which the next WQE overwrites.  Send now what is
	 * queued, and drop what the socket could not take. */
	if (bounced || (m->send_flags & (IBV_SEND_SIGNALED | IBV_SEND_INLINE)) ||
	    qp->init.sq_sig_all) {
		eng_net_flush(e);
		eng_net_tx_purge(e, d);
	}
	return IBV_WC_SUCCESS;
}

/* The SL a UD CQE reports: the RoCEv2 network header type, as mlx5 does
 * (eng_dp_grh_wc_sl(); UCX 1.13 reads sl & 7 == 2 as "IPv4 header at byte
 * 20 of the GRH area", and drops the datagram otherwise). */
static uint8_t sl_of(const struct eng_wire_ip *ip)
{
	return ENG_DP_WC_SL_ROCE_UDP |
	       (ip->iplen == 20 ? ENG_DP_WC_SL_IPV4 : ENG_DP_WC_SL_IPV6);
}

void eng_wire_ud_rx(struct eng *e, struct eng_dev *d, struct eng_qp *qp,
		    const struct eng_pkt *pkt, const struct eng_wire_ip *ip)
{
	bool imm = pkt->h.bth.opcode == ENG_OP_UD_SEND_ONLY_IMM;
	struct eng_seg seg = { .ptr = (uint8_t *)pkt->payload,
			       .len = pkt->paylen };
	uint8_t grh[ENG_DP_GRH_BYTES] = { 0 };
	struct eng_dp_msg m = {
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = pkt->h.bth.se ? IBV_SEND_SOLICITED : 0,
		.imm_data = imm ? htonl(pkt->h.imm) : 0,
		.len = pkt->paylen, .chunk = pkt->paylen,
		.first = true, .last = true,
		.segs = &seg, .nsegs = pkt->paylen ? 1 : 0,
		.src_qpn = pkt->h.deth.sqpn, .grh = grh, .sl = sl_of(ip),
	};
	struct eng_dp_reply r;

	if (pkt->h.bth.opcode != ENG_OP_UD_SEND_ONLY && !imm) {
		eng_stat_inc(wire_rx_bad_opcode);
		return;
	}
	if (!qp->dp) {
		eng_stat_inc(wire_ud_rx_dropped);
		return;
	}
	if (ip->iplen == 20)
		memcpy(grh + 20, ip->ip, 20);
	else
		memcpy(grh, ip->ip, ENG_DP_GRH_BYTES);
	eng_dp_resp_deliver(e, qp, &m, &r);
	if (r.kind == ENG_DP_REPLY_ACK)
		eng_stat_inc(wire_ud_rx);
	else
		eng_stat_inc(wire_ud_rx_dropped);
}
