/* SPDX-License-Identifier: MIT */
/*
 * The engine's connection manager service (same node): RDMA CM ids held
 * for their event-channel connections, their addresses and ports,
 * listeners, and the connection exchange between two local ids.
 *
 * The exchange is modelled as the IB CM's messages (IBA 12.6: REQ, REP,
 * RTU, REJ, DREQ, DREP) handed from one id to the other, carrying the
 * same fields and private data, so that the cross-node wire can carry the
 * same messages later.  The names here (eng_cmid_*, ENG_CMID_*, struct
 * eng_cm_chan) stay clear of the CM agent's (eng_cm_msg.h, eng_cm_sm.h:
 * struct eng_cmid_msg, struct eng_cm_conn, enum eng_cm_state), which the
 * wire will translate struct eng_cmid_msg to and from.
 *
 * Bounds: ids per connection ENG_CM_IDS_PER_CONN, per pod (netns)
 * ENG_CM_IDS_PER_POD, per engine ENG_CM_IDS_MAX; a listener's pending requests its backlog (at most
 * ENG_CM_BACKLOG_MAX).  Events go out with MSG_DONTWAIT; those the socket
 * has no room for queue in the engine up to ENG_CM_EVQ_MAX per channel
 * and leave on EPOLLOUT, in order; the loop never waits for a client.
 */
#ifndef ENG_CM_H
#define ENG_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/pv-soft-cm-abi.h"

struct eng_req;

#define ENG_CM_IDS_PER_CONN	1024
#define ENG_CM_IDS_PER_POD	8192	/* over all of a netns's connections */
#define ENG_CM_IDS_MAX		65536
#define ENG_CM_BACKLOG_MAX	1024
#define ENG_CM_BACKLOG_DEFAULT	1024	/* backlog <= 0: the kernel ucma's max_backlog */
#define ENG_OBJ_CM_ID		20	/* handle kind in eng_conn.handles */
/* Ephemeral ports, as Linux's default ip_local_port_range. */
#define ENG_CM_PORT_LO		32768
#define ENG_CM_PORT_HI		60999

enum eng_cmid_state {
	ENG_CMID_IDLE,
	ENG_CMID_BOUND,
	ENG_CMID_ADDR,		/* address resolved */
	ENG_CMID_ROUTE,		/* route resolved */
	ENG_CMID_LISTEN,
	ENG_CMID_REQ_SENT,	/* active: REQ out, waiting for REP/REJ */
	ENG_CMID_REQ_RCVD,	/* passive: CONNECT_REQUEST delivered */
	ENG_CMID_REP_SENT,	/* passive: accepted, waiting for RTU */
	ENG_CMID_REP_RCVD,	/* active: REP delivered, RTU not yet sent */
	ENG_CMID_ESTABLISHED,
	ENG_CMID_DISCONNECTED,
};

/* The CM messages handed between two ids (IBA 12.6). */
enum eng_cmid_msg_type {
	ENG_CMID_MSG_REQ, ENG_CMID_MSG_REP, ENG_CMID_MSG_RTU,
	ENG_CMID_MSG_REJ, ENG_CMID_MSG_DREQ, ENG_CMID_MSG_DREP,
};

struct eng_cmid_msg {
	enum eng_cmid_msg_type type;
	uint32_t reason;		/* REJ: IB CM reject reason */
	struct pv_cm_conn_param p;	/* REQ, REP */
	uint8_t pdata[PV_CM_PDATA_MAX];	/* p.pdata_len bytes used */
};

struct eng_cm_id {
	struct eng_list all_link;	/* in eng_cm.ids */
	struct eng_list conn_link;	/* in eng_cm_chan.ids */
	struct eng_conn *conn;
	uint32_t handle;
	uint64_t cookie;
	uint32_t ps, qp_type;
	enum eng_cmid_state state;
	bool bound, reuseaddr, afonly;
	uint8_t tos, ack_timeout;
	struct pv_cm_addr src, dst;
	uint32_t dev_id;		/* 0: wildcard */
	char dev_name[PV_NAME_MAX];	/* dev_id's, for events */
	uint32_t gid_index;
	uint8_t sgid[16], dgid[16];
	uint32_t dst_dev_id;
	uint32_t path_mtu;
	uint32_t backlog, pending;	/* listener */
	struct eng_cm_id *listener;	/* REQ_RCVD child: its listener */
	struct eng_cm_id *peer;		/* the other end of a connection */
	struct pv_cm_conn_param local, remote;
	struct eng_cm_wconn *wire;	/* peer on another node (eng_cm_wire.h) */
};

/* Events the socket had no room for wait here, bounded (a client that
 * never reads loses the newest, counted); EPOLLOUT flushes them. */
#define ENG_CM_EVQ_MAX		2048

struct eng_cm_chan {
	struct eng_pollable evp;	/* evp.fd: engine end of the event
					 * socket; in the epoll set (EPOLLOUT)
					 * only while evq holds events */
	struct eng *e;
	struct pv_cm_event *evq;	/* ring */
	uint32_t evq_head, evq_len, evq_cap;
	bool evq_polled;
	uint32_t nids;
	struct eng_list ids;
};

struct eng_cm {
	struct eng_list ids;
	uint32_t nids;
};

/* eng_cm_id.c: the id requests. */
int eng_op_cm_open(struct eng_req *r);
int eng_op_cm_id_create(struct eng_req *r);
int eng_op_cm_id_destroy(struct eng_req *r);
int eng_op_cm_bind(struct eng_req *r);
int eng_op_cm_resolve_addr(struct eng_req *r);
int eng_op_cm_resolve_route(struct eng_req *r);
int eng_op_cm_listen(struct eng_req *r);
int eng_op_cm_option(struct eng_req *r);
/* eng_cm_mcast.c: rdma_join_multicast's event (same node). */
int eng_op_cm_join(struct eng_req *r);
/* Every id of c goes (its peers told); called by eng_conn_close. */
void eng_cm_conn_close(struct eng *e, struct eng_conn *c);

/* eng_cm_core.c: ids, events, look-ups (a leaf of the CM files). */
void eng_cm_fini(struct eng *e);
/* The event socket's pollable callback, and its teardown (frees cm). */
void eng_cm_ev_ready(struct eng *e, struct eng_pollable *p, uint32_t events);
void eng_cm_ev_close(struct eng *e, struct eng_cm_chan *cm);
/* The id behind handle on r's connection, or NULL (counted). */
struct eng_cm_id *eng_cm_id_get(struct eng_req *r, uint32_t handle);
struct eng_cm_id *eng_cm_id_new(struct eng *e, struct eng_conn *c, int *err);
void eng_cm_id_free(struct eng *e, struct eng_cm_id *id);
void eng_cm_event(struct eng_cm_id *id, uint32_t type, int32_t status,
		  const struct eng_cmid_msg *m);
int eng_cm_bad(struct eng_req *r, int err, const char *why);
/* The device visible to c whose GID table holds a (IPv4-mapped for
 * IPv4), and the index; NULL when none. */
struct eng_dev *eng_cm_dev_of_addr(struct eng *e, const struct eng_conn *c,
				   const uint8_t a[16], uint32_t *ret_index);
/* Any device of the engine holding a, whoever's (same-node peers). */
struct eng_dev *eng_cm_dev_any(struct eng *e, const uint8_t a[16],
			       uint32_t *ret_index);
/* A listener of ps on port that accepts dst in namespace ns, or NULL. */
struct eng_cm_id *eng_cm_listener(struct eng *e, const struct netns_id *ns,
				  uint32_t ps, const struct pv_cm_addr *dst);
bool eng_cm_addr_any(const struct pv_cm_addr *a);

/* eng_cm_conn.c: the exchange. */
int eng_op_cm_connect(struct eng_req *r);
int eng_op_cm_accept(struct eng_req *r);
int eng_op_cm_reject(struct eng_req *r);
int eng_op_cm_establish(struct eng_req *r);
int eng_op_cm_disconnect(struct eng_req *r);
/* id is going away: its peer (or pending requester) is told. */
void eng_cm_conn_abort(struct eng *e, struct eng_cm_id *id);

/* id's destination is on the wire (dst_dev_id 0):
 * its REQ goes out as a MAD; 0 or -errno. */
int eng_cm_svc_wire_connect(struct eng *e, struct eng_cm_id *id,
			    const struct eng_cmid_msg *m);

/* eng_cm_qpt.c: the QP types an id of port space ps may have, as the
 * kernel's ucma gives them: TCP RC, UDP UD, IB the library's own choice
 * among the connected ones served here (RC, XRC_SEND, XRC_RECV). */
bool eng_cm_qpt_ok(uint32_t ps, uint32_t qp_type);
/* An XRC initiator (XRC_SEND) connects only to an XRC target listener
 * (XRC_RECV), any other connected type only to its like (the REQ's
 * transport type names XRC): false is a REJ "invalid transport". */
bool eng_cm_qpt_match(uint32_t active_qpt, uint32_t listener_qpt);

#endif /* ENG_CM_H */
