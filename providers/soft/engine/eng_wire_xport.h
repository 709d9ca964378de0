/* SPDX-License-Identifier: MIT */
/*
 * The wire's transports and the calls between them (issue 10):
 *
 *   eng_recv.c       the strong eng_net_rx(): ICRC, parse, classify (the
 *                    checks of rxe's rxe_recv.c), then dispatch: QP1 ->
 *                    eng_cm_wire_rx(), UD -> eng_wire_ud_rx(), RC/UC ->
 *                    eng_wire_rc_rx()
 *   eng_wire_tx.c    eng_wire_tx(): headers, pad, ICRC over the IP/UDP
 *                    headers the kernel will send, queued on eng_net_send
 *   eng_wire_ud.c    UD datagrams both ways
 *   eng_wire_rc*.c   RC/UC: requester window, responder, completer,
 *                    retransmission (another file set; until it is linked
 *                    the weak defaults below count and drop)
 *
 * Wire or local: a requester whose destination GID is owned by no
 * device of this engine, on a device whose socket of that family is up,
 * goes to the wire (eng_wire_route()); everything else stays on the
 * same-node path of eng_dp_req.c (which drops what it cannot find).
 *
 * Everything here runs on the engine's loop thread; nothing blocks.
 */
#ifndef ENG_WIRE_XPORT_H
#define ENG_WIRE_XPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_wire_hdr.h"

struct eng;
struct eng_dev;
struct eng_qp;
struct eng_dp_qp;
struct eng_dp_budget;
struct eng_dp_msg;
struct eng_seg;

/* Where a packet goes.  The source address is always the one d's socket
 * of that family is bound to (the kernel sends from it; the ICRC covers
 * it), so a caller's sgid is not asked for. */
struct eng_wire_dst {
	uint8_t dgid[16];	/* IPv4 as ::ffff:a.b.c.d, else IPv6 */
	uint16_t udp_sport;	/* 0: the socket's (4791) */
	uint8_t tos;		/* TOS / traffic class: the AH's traffic_class */
	uint8_t ttl;		/* TTL / hop limit; 0: the socket's default */
};

/*
 * Builds and queues one packet on d: h's BTH and extension headers (the
 * opcode's set; bth.pad is computed), then npay payload segments of
 * paylen bytes in all (referenced, not copied: they must stay mapped
 * until the loop turn's eng_net_flush, as eng_net_send says), the pad and
 * the ICRC.  The ICRC is computed over the IPv4/IPv6 and UDP headers the
 * kernel sends (IPv4: DF, ID 0, which Linux gives DF datagrams of an
 * unconnected socket).  Returns 0 or -errno: -EHOSTUNREACH (no socket of
 * dgid's family), -EMSGSIZE (paylen above the path MTU or too many
 * segments), -EPROTO/-EINVAL (headers), or what eng_net_send returns.
 * Counted in wire_tx_pkts / wire_tx_errors.
 */
int eng_wire_tx(struct eng *e, struct eng_dev *d,
		const struct eng_wire_dst *dst, const struct eng_pkt_hdrs *h,
		const struct eng_seg *pay, uint32_t npay, uint32_t paylen);

/* True when dgid is on the wire for a requester on d: no device of this
 * engine owns it and d's socket of dgid's family is bound. */
bool eng_wire_route(struct eng *e, const struct eng_dev *d,
		    const uint8_t dgid[16]);

/* Whether d's socket for dgid's family is bound (the wire is up). */
bool eng_wire_up(const struct eng_dev *d, const uint8_t dgid[16]);

/*
 * RC/UC receive: one packet classify has accepted for qp (a QP of d in
 * RTR/RTS/SQD whose type is RC or UC, P_Key matched, ICRC good, source
 * IP equal to the QP's AV dgid).  pkt is the parsed packet (pointers into
 * the receive buffer: valid during the call only); np its addresses.
 * Weak default: counts wire_rx_rc_unclaimed and drops.
 */
void eng_wire_rc_rx(struct eng *e, struct eng_dev *d, struct eng_qp *qp,
		    const struct eng_pkt *pkt, const struct eng_net_pkt *np);

/*
 * RC/UC requester for a QP whose destination is on the wire (the
 * scheduler's eng_dp_req_run hands it over when eng_wire_route() says so;
 * the QP is in RTS, its device present).  Same contract as
 * eng_dp_req_run: does what *b allows, charges it, returns true if
 * anything happened or work is left.  Its timers: dq->timer_at (the
 * scheduler sleeps until the earliest one, then calls this again), so
 * expiry is handled in here as eng_wire_rc_timers().  Weak default:
 * counts wire_tx_rc_unclaimed, returns false (the WQEs wait).
 */
bool eng_wire_rc_req_run(struct eng *e, struct eng_dp_qp *dq,
			 struct eng_dp_budget *b);
/* The transport/RNR timer of dq expired (dq->timer_at passed): called by
 * eng_wire_rc_req_run's owner; weak default does nothing. */
void eng_wire_rc_timers(struct eng *e, struct eng_dp_qp *dq);

/*
 * UD requester: sends m (a whole datagram: UD never chunks) from dq's QP
 * to dqpn at m->dgid with Q_Key qkey (already the QP's when the WR's
 * high bit was set, IBA 10.2.5).  Returns an IBV_WC_* status: UD
 * completes on send; a datagram the wire drops is lost silently.
 */
int eng_wire_ud_send(struct eng *e, struct eng_dp_qp *dq,
		     const struct eng_dp_msg *m, uint32_t dqpn,
		     uint32_t qkey);

/* UD receive: a packet classify accepted for qp (a UD QP of d that
 * receives; Q_Key and P_Key matched): to its RQ/SRQ, the GRH area
 * filled from ip (the IP header as sent, eng_wire_iphdr.h). */
struct eng_wire_ip;
void eng_wire_ud_rx(struct eng *e, struct eng_dev *d, struct eng_qp *qp,
		    const struct eng_pkt *pkt, const struct eng_wire_ip *ip);

/*
 * QP1 (GSI, CM MADs, IBA 13.4.6/ch. 12) on the wire: a packet to dest
 * QPN 1 with a good ICRC, a matching P_Key and the GSI Q_Key 0x80010000
 * (the DETH's sqpn tells the sender's QP).  The CM agent defines it; the
 * weak default counts wire_rx_qp1_unclaimed and drops.
 */
void eng_cm_wire_rx(struct eng *e, struct eng_dev *d,
		    const struct eng_pkt *pkt, const struct eng_net_pkt *np);

/* IBA 13.5.3.3: the well-known Q_Key of QP1. */
#define ENG_WIRE_GSI_QKEY	0x80010000u

#endif /* ENG_WIRE_XPORT_H */
