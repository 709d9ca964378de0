/* SPDX-License-Identifier: MIT */
/*
 * Multicast on one engine: UD QPs attached to groups (ibv_attach_mcast),
 * and a UD send to a group's GID with QPN 0xFFFFFF handed to every QP
 * attached to it (IBA 10.5.2.4, 9.8.1).  Across nodes (RoCEv2: the group
 * GID is an IP multicast address): a device's first attachment to a group
 * joins it on the pod's interface and its last one leaves
 * (eng_net_mcast.c); a send to a group also leaves as one datagram to the
 * group's address (eng_dp_req.c), and what a joined device receives goes
 * to its attached QPs (eng_mcast_wire_rx).
 *
 * Rules: a connection attaches only its own QPs (handles are per
 * connection), only UD QPs, only multicast GIDs; a datagram reaches the
 * attached QPs whose device shares the sender's partition (P_Keys match,
 * IBA 10.9.3), whose port is up and whose Q_Key matches; the sender's own
 * QP only if it is attached itself.  Bounds: ENG_MCAST_MAX attachments
 * per engine, ENG_MCAST_PER_GROUP QPs of one device per group (a pod
 * cannot fill a group others want to join), ENG_MCAST_PER_QP groups per
 * QP, ENG_MCAST_PER_DEV attachments per device (pod); a send to a group
 * costs at most one pass over the ENG_MCAST_MAX entries.
 */
#ifndef ENG_MCAST_H
#define ENG_MCAST_H

#include <stdbool.h>
#include <stdint.h>

struct eng;
struct eng_qp;
struct eng_req;
struct eng_dp_msg;

#define ENG_MCAST_MAX		4096
#define ENG_MCAST_PER_GROUP	64
#define ENG_MCAST_PER_QP	16
#define ENG_MCAST_PER_DEV	256
#define ENG_MCAST_QPN		0xFFFFFFu	/* IBA 9.8.1: "the multicast QP" */

/* ff00::/8, or RoCEv2's IPv4 mapping ::ffff:224.0.0.0/4 (pure). */
bool eng_mcast_gid_is_group(const uint8_t gid[16]);

/* eng_mcast_ops.c: the requests. */
int eng_op_qp_mcast_attach(struct eng_req *r);
int eng_op_qp_mcast_detach(struct eng_req *r);

/* The table (eng_mcast.c).  attach: 0 (also when attached already) or
 * -ENOMEM past a bound, *why naming it; detach: -EINVAL if not attached. */
int eng_mcast_attach(struct eng *e, struct eng_qp *qp, const uint8_t gid[16],
		     const char **why);
int eng_mcast_detach(struct eng *e, struct eng_qp *qp, const uint8_t gid[16]);

/* The QP goes: its attachments with it (from qp_release). */
void eng_mcast_qp_gone(struct eng *e, struct eng_qp *qp);

/* Hands m (UD, m->dgid the group) to every member src may reach with
 * qkey; returns how many got it. */
uint32_t eng_mcast_deliver(struct eng *e, struct eng_qp *src,
			   const struct eng_dp_msg *m, uint32_t qkey);

/* A datagram to group gid that d's group socket received (eng_recv.c
 * checked its ICRC, P_Key and that it is no echo of this engine's): to
 * each of d's QPs attached to gid that receives and whose Q_Key it
 * carries. */
struct eng_dev;
struct eng_pkt;
struct eng_wire_ip;
void eng_mcast_wire_rx(struct eng *e, struct eng_dev *d,
		       const struct eng_pkt *pkt, const struct eng_wire_ip *ip,
		       const uint8_t gid[16]);

#endif /* ENG_MCAST_H */
