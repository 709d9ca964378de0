/* SPDX-License-Identifier: MIT */
/*
 * The RDMA CM across nodes: IB CM MADs on QP1 over the RoCEv2 wire
 * (issue 11, item 3).  Two halves, kept apart because the service's
 * eng_cm.h and the pure IB CM's eng_cm_sm.h/eng_cm_msg.h both name a
 * struct eng_cm_msg / eng_cm_conn of their own:
 *
 *   eng_cm_wire*.c      the wire side (includes eng_cm_sm.h): a table of
 *                       IB CM connections stepped by eng_cm_step(), the
 *                       QP1 sender (UD SEND_ONLY to QP 1, DETH Q_Key
 *                       0x80010000, source QP 1), the strong
 *                       eng_cm_wire_rx(), one timerfd for every
 *                       connection's retransmission and timewait
 *   eng_cm_wire_svc.c   the service side (includes eng_cm.h): turns a
 *                       wire connection's news into RDMA CM events of
 *                       the id it belongs to, and makes the passive id
 *                       at a listener for a REQ
 *
 * Same-node connections keep cm-node's local exchange (eng_cm_conn.c):
 * two ids of one engine hand messages to each other with no loss, so
 * retransmission and timewait have nothing to do there; a connection
 * whose destination no device of this engine holds (dst_dev_id 0 after
 * address resolution) goes through here.
 *
 * Only this header's types cross between the halves.
 */
#ifndef ENG_CM_WIRE_H
#define ENG_CM_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/pv-soft-cm-abi.h"

struct eng;
struct eng_dev;
struct eng_cm_id;
struct eng_cm_wconn;		/* opaque to the service */

/* Wire connections per engine (passive ones in TIMEWAIT included). */
#define ENG_CM_WIRE_MAX		4096

/* The two ends of a connection seen from this engine. */
struct eng_cm_wire_ep {
	uint32_t dev_id;
	uint32_t ps;			/* PV_CM_PS_TCP / _UDP / _IB */
	uint8_t sgid[16];		/* ours: IPv4 as ::ffff:a.b.c.d */
	uint8_t dgid[16];		/* the peer's */
	uint16_t sport, dport;		/* host order */
	uint8_t tos;
	uint8_t ack_timeout;		/* 0: the kernel's for RoCE */
	uint32_t path_mtu;		/* enum ibv_mtu */
	uint8_t xrc;			/* XRC: we are the initiator if we sent
					 * the REQ, else the target */
};

/* Service -> wire.  Private data is the user's (the RDMA CM IP header is
 * added and stripped here).  0 or -errno. */
int eng_cm_wire_connect(struct eng *e, struct eng_cm_id *id,
			const struct eng_cm_wire_ep *ep,
			const struct pv_cm_conn_param *p,
			const uint8_t *pdata, uint32_t len,
			struct eng_cm_wconn **ret);
int eng_cm_wire_accept(struct eng *e, struct eng_cm_wconn *w,
		       const struct pv_cm_conn_param *p,
		       const uint8_t *pdata, uint32_t len);
int eng_cm_wire_reject(struct eng *e, struct eng_cm_wconn *w,
		       const uint8_t *pdata, uint32_t len);
/* Active side, after CONNECT_RESPONSE: the QP is ready, send the RTU. */
int eng_cm_wire_establish(struct eng *e, struct eng_cm_wconn *w);
/* The id lets go of w (disconnect, destroy, its client gone): the peer
 * hears what the kernel's CM sends it (REJ in a handshake, DREQ when
 * connected); w lives on alone for its retransmissions and timewait. */
void eng_cm_wire_detach(struct eng *e, struct eng_cm_wconn *w);
void eng_cm_wire_fini(struct eng *e);
/* Connections in the table (pvctl: cm_wire_conns_live). */
uint32_t eng_cm_wire_count(void);

/* Wire -> service (eng_cm_wire_svc.c). */
/* A REQ / SIDR_REQ (ep from our side: sgid ours, sport the listener's
 * port) reached device d: the new passive id at the listener, with its
 * CONNECT_REQUEST delivered, or NULL and *ret_reason the IB CM reject
 * reason (8 no listener, 28 backlog full / no memory). */
struct eng_cm_id *eng_cm_svc_wire_req(struct eng *e, struct eng_dev *d,
				      struct eng_cm_wconn *w,
				      const struct eng_cm_wire_ep *ep,
				      const struct pv_cm_conn_param *p,
				      const uint8_t *pdata, uint32_t len,
				      int *ret_reason);
/* An RDMA CM event (PV_CM_EV_*) for id from its wire connection; the
 * id's state follows it. */
void eng_cm_svc_wire_event(struct eng_cm_id *id, uint32_t type,
			   int32_t status, const struct pv_cm_conn_param *p,
			   const uint8_t *pdata, uint32_t len);
/* The wire connection of id is freed: id forgets it. */
void eng_cm_svc_wire_gone(struct eng_cm_id *id);

#endif /* ENG_CM_WIRE_H */
