/* SPDX-License-Identifier: MIT */
/*
 * recv: what a RoCEv2 packet from a device's socket is, and whether it
 * may go anywhere (eng_recv.c).  eng_recv_classify() is the decision
 * alone, without I/O or side effects beyond its result (unit-tested with
 * scripted packets); eng_net_rx() counts the verdict and dispatches.
 */
#ifndef ENG_RECV_H
#define ENG_RECV_H

#include <stdint.h>

#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_iphdr.h"

struct eng;
struct eng_dev;
struct eng_qp;

enum eng_recv_verdict {
	ENG_RECV_UD = 0,	/* to qp: eng_wire_ud_rx */
	ENG_RECV_RC,		/* to qp (RC or UC): eng_wire_rc_rx */
	ENG_RECV_QP1,		/* GSI: eng_cm_wire_rx */
	ENG_RECV_PARSE,		/* headers malformed or truncated */
	ENG_RECV_NOT_OURS,	/* destination IP not one of d's GIDs */
	ENG_RECV_ICRC,		/* ICRC wrong for every possible header */
	ENG_RECV_SRC_LOCAL,	/* source IP owned by a device of this
				 * engine: a pod on the same node would not
				 * use the wire, so it is spoofed */
	ENG_RECV_NO_QP,		/* no such QP on d (or QP0) */
	ENG_RECV_PKEY,		/* IBA 10.9.3: no match with d's P_Key */
	ENG_RECV_QP_STATE,	/* the QP does not receive (not RTR/RTS/SQD) */
	ENG_RECV_OPCODE,	/* opcode of another transport, or a kind the
				 * QP never receives */
	ENG_RECV_SRC,		/* RC/UC: source IP is not the QP's peer */
	ENG_RECV_QKEY,		/* UD/QP1: Q_Key differs from the QP's */
	ENG_RECV_MCAST,		/* UD to a group d joined: eng_mcast_wire_rx */
	ENG_RECV_MCAST_ECHO,	/* to a group, from a device of this engine,
				 * which delivered it here already */
};

/* A packet that passed: its parse, its headers (with the IPv4 ID the
 * ICRC gave) and its QP (NULL for QP1). */
struct eng_recv {
	struct eng_pkt pkt;
	struct eng_wire_ip ip;
	struct eng_qp *qp;
};

/*
 * Classifies np, which arrived on d, in the order of rxe's rxe_recv.c:
 * parse, destination address, ICRC, source address, QP, P_Key, state,
 * transport, then per transport the peer (RC/UC) or Q_Key (UD); except
 * that a packet for no QP of d is refused before its ICRC (cheap before
 * costly: a garbage flood).  Fills
 * *out for the ENG_RECV_UD/RC/QP1 verdicts.
 */
enum eng_recv_verdict eng_recv_classify(struct eng *e, struct eng_dev *d,
					const struct eng_net_pkt *np,
					struct eng_recv *out);

#endif /* ENG_RECV_H */
