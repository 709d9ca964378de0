/* SPDX-License-Identifier: MIT */
/*
 * Inside the wire half of the CM (eng_cm_wire.c, eng_cm_wire_rx.c): the
 * connection table and the calls between the two files.  Not for the
 * service side (eng_cm.h's names collide with eng_cm_sm.h's).
 */
#ifndef ENG_CM_WIRE_INT_H
#define ENG_CM_WIRE_INT_H

#include "providers/soft/engine/eng_cm_build.h"
#include "providers/soft/engine/eng_cm_msg.h"
#include "providers/soft/engine/eng_cm_sm.h"
#include "providers/soft/engine/eng_cm_wire.h"

/* The kernel's RDMA CM packet life for RoCE (drivers/infiniband/core/
 * cma.c, CMA_IBOE_PACKET_LIFETIME); its CMA_CM_RESPONSE_TIMEOUT (20) and
 * CMA_MAX_CM_RETRIES (15) are the limits cm_resp_timeout and
 * cm_max_retries (eng_limits.h). */
#define ENG_CM_WIRE_PACKET_LIFE		16
/* Requests of one sender (GID and device) waiting for the listener's
 * accept or reject, over all listeners, are bounded by the limit
 * cm_wire_per_peer (eng_limits.h): a flood from one peer takes no more of
 * the table than that (each listener's backlog bounds it too).  Its
 * default, 1024, is one listener's largest backlog (the kernel ucma's
 * max_backlog): cmtime's 1000 connections at once from one pod need it. */
/* The GSI QP (IBA 13.5.1). */
#define ENG_CM_WIRE_GSI_QPN		1u

/* One IB CM connection on the wire; sm is tab.sm[index]. */
struct eng_cm_wconn {
	struct eng_cm_conn *sm;
	struct eng_cm_id *id;		/* NULL once the id let go */
	struct eng_cm_wire_ep ep;
	uint32_t peer_qp1;		/* the sender QP of the peer's MADs */
	struct eng_cm_params prm;
	uint8_t pd[ENG_CM_SIDR_REQ_PDATA_SIZE];	/* prm.private_data */
	uint8_t mad[ENG_CM_MAD_SIZE];	/* the last one sent: resends */
	uint8_t have_mad;
	uint64_t due_ns;		/* timer; 0: not armed */
};

struct eng_cm_wtab {
	struct eng_cm_conn sm[ENG_CM_WIRE_MAX];
	struct eng_cm_wconn w[ENG_CM_WIRE_MAX];
	uint32_t live;
	int timer_fd;
	struct eng_cm_tab view;
};

/* The table (allocated on first use; NULL when that failed). */
struct eng_cm_wtab *eng_cm_wtab(struct eng *e);
/* A free slot with a fresh comm ID, sm->peer = peer, or NULL. */
struct eng_cm_wconn *eng_cm_wire_alloc(struct eng_cm_wtab *t, uint64_t peer);
struct eng_cm_wconn *eng_cm_wire_of(struct eng_cm_wtab *t,
				    struct eng_cm_conn *sm);
/* Carry out what a step asked for (send, resend, timer, user event,
 * free).  rcv: the message that caused it, or NULL. */
void eng_cm_wire_apply(struct eng *e, struct eng_cm_wconn *w,
		       const struct eng_cm_act *act,
		       const struct eng_cm_msg *rcv);
/* Encodes m and sends it on device dev_id to dgid's QP dqpn. */
int eng_cm_wire_send(struct eng *e, uint32_t dev_id, const uint8_t dgid[16],
		     uint32_t dqpn, uint8_t tos, const struct eng_cm_msg *m,
		     uint8_t *keep);
/* The dispatch key of a sender: its GID and the device it reached. */
uint64_t eng_cm_wire_peer(uint32_t dev_id, const uint8_t gid[16]);

#endif /* ENG_CM_WIRE_INT_H */
