/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's part of the soft device's IPC ABI, between
 * librdmacm.so.1 and the engine's CM service (eng_cm_*.c).  Same framing
 * and rules as pv-soft-abi.h (fixed-width fields, host order except where
 * a field says _be, reserved fields zero).
 *
 * An rdma_event_channel is its own connection to the engine: connect,
 * HELLO with the netns proof, then CM_OPEN, whose reply passes one fd:
 * the read end of a SOCK_SEQPACKET pair on which the engine pushes one
 * struct pv_cm_event per datagram.  That fd is rdma_event_channel.fd
 * (pollable; O_NONBLOCK gives EAGAIN).  Ids are handles of that
 * connection; they die with it.  Addresses are those of the devices the
 * connection's namespace sees (the engine finds the device from the
 * address: the one whose GID table holds it).
 */
#ifndef PV_SOFT_CM_ABI_H
#define PV_SOFT_CM_ABI_H

#include <stdint.h>

#include "providers/soft/pv-soft-abi.h"

/* Ops 64..95 are the CM's (the others: pv-soft-abi.h, pv-soft-ring-abi.h). */
enum {
	PV_OP_CM_OPEN		= 64,	/* empty; reply pv_ipc_handle + fd */
	PV_OP_CM_ID_CREATE	= 65,	/* pv_ipc_cm_id_create -> cm_ref */
	PV_OP_CM_ID_DESTROY	= 66,	/* pv_ipc_cm_ref */
	PV_OP_CM_BIND		= 67,	/* pv_ipc_cm_addr -> cm_bound */
	PV_OP_CM_RESOLVE_ADDR	= 68,	/* pv_ipc_cm_addr -> cm_bound; event */
	PV_OP_CM_RESOLVE_ROUTE	= 69,	/* pv_ipc_cm_ref; event */
	PV_OP_CM_LISTEN		= 70,	/* pv_ipc_cm_ref (arg: backlog) */
	PV_OP_CM_CONNECT	= 71,	/* pv_ipc_cm_conn (REQ) */
	PV_OP_CM_ACCEPT		= 72,	/* pv_ipc_cm_conn (REP) */
	PV_OP_CM_REJECT		= 73,	/* pv_ipc_cm_conn (REJ) */
	PV_OP_CM_ESTABLISH	= 74,	/* pv_ipc_cm_ref (RTU) */
	PV_OP_CM_DISCONNECT	= 75,	/* pv_ipc_cm_ref (DREQ) */
	PV_OP_CM_OPTION		= 76,	/* pv_ipc_cm_ref (arg: option, val) */
	PV_OP_CM_JOIN		= 77,	/* pv_ipc_cm_addr (dst: the group); event */
};

/* Event types: the values of enum rdma_cm_event_type (rdma/rdma_cma.h),
 * checked by tests/unit/engine/test_eng_cm.c. */
enum pv_cm_event_type {
	PV_CM_EV_ADDR_RESOLVED		= 0,
	PV_CM_EV_ADDR_ERROR		= 1,
	PV_CM_EV_ROUTE_RESOLVED		= 2,
	PV_CM_EV_ROUTE_ERROR		= 3,
	PV_CM_EV_CONNECT_REQUEST	= 4,
	PV_CM_EV_CONNECT_RESPONSE	= 5,
	PV_CM_EV_CONNECT_ERROR		= 6,
	PV_CM_EV_UNREACHABLE		= 7,
	PV_CM_EV_REJECTED		= 8,
	PV_CM_EV_ESTABLISHED		= 9,
	PV_CM_EV_DISCONNECTED		= 10,
	PV_CM_EV_DEVICE_REMOVAL		= 11,
	PV_CM_EV_MULTICAST_JOIN		= 12,	/* dgid: the group's GID */
	PV_CM_EV_MULTICAST_ERROR	= 13,
	PV_CM_EV_TIMEWAIT_EXIT		= 15,
};

/* Port spaces (enum rdma_port_space). */
#define PV_CM_PS_TCP	0x0106
#define PV_CM_PS_UDP	0x0111
#define PV_CM_PS_IB	0x013f	/* connected QPs of the id's own type: RC, XRC */

/* Private data limits of the kernel's RDMA CM over IB CM (IBA 12.6: REQ
 * 92, REP 196, REJ 148 bytes; the RDMA CM's own 36-byte header takes
 * REQ's first 36 on the wire, leaving the consumer 56). */
#define PV_CM_REQ_PDATA		56
#define PV_CM_REP_PDATA		196
#define PV_CM_REJ_PDATA		148
#define PV_CM_PDATA_MAX		196
/* SIDR (UD, RDMA_PS_UDP): SIDR_REQ 216 less the same 36, SIDR_REP 136. */
#define PV_CM_SIDR_REQ_PDATA	180
#define PV_CM_SIDR_REP_PDATA	136

/* IB CM reject reasons the RDMA CM reports as event status (IBA 12.6.7.2,
 * table 112). */
#define PV_CM_REJ_TIMEOUT		1	/* the other end went away */
#define PV_CM_REJ_INVALID_SERVICE_ID	8	/* no listener */
#define PV_CM_REJ_INVALID_TRANSPORT	9	/* XRC against a non-XRC id */
#define PV_CM_REJ_CONSUMER_DEFINED	28	/* rdma_reject */

/* An IP endpoint: IPv4 as an IPv4-mapped IPv6 address (as GIDs hold it). */
struct pv_cm_addr {
	uint16_t family;	/* AF_INET, AF_INET6, 0: none */
	uint16_t port_be;	/* network order */
	uint32_t scope_id;
	uint8_t  addr[16];
};
_Static_assert(sizeof(struct pv_cm_addr) == 24, "pv_cm_addr size");

struct pv_ipc_cm_id_create {
	uint32_t ps;		/* enum rdma_port_space: TCP or UDP */
	uint32_t qp_type;	/* enum ibv_qp_type */
	uint64_t cookie;	/* echoed in events; the engine never reads */
};
_Static_assert(sizeof(struct pv_ipc_cm_id_create) == 16, "cm_id_create");

/* An id, and an argument: backlog, option name/value... */
struct pv_ipc_cm_ref {
	uint32_t id;
	uint32_t arg;
	uint32_t arg2;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_cm_ref) == 16, "pv_ipc_cm_ref size");

/* PV_OP_CM_OPTION names (arg). */
#define PV_CM_OPT_REUSEADDR	1	/* arg2: 0/1 */
#define PV_CM_OPT_AFONLY	2
#define PV_CM_OPT_TOS		3
#define PV_CM_OPT_ACK_TIMEOUT	4

struct pv_ipc_cm_addr {
	uint32_t id;
	uint32_t timeout_ms;
	struct pv_cm_addr src;	/* family 0: the id's bound address */
	struct pv_cm_addr dst;	/* RESOLVE_ADDR only */
};
_Static_assert(sizeof(struct pv_ipc_cm_addr) == 56, "pv_ipc_cm_addr size");

/* Where an id is bound (BIND, RESOLVE_ADDR replies). */
struct pv_ipc_cm_bound {
	struct pv_cm_addr src;
	uint32_t dev_id;	/* 0: none (wildcard bind) */
	uint32_t gid_index;
	char     dev_name[PV_NAME_MAX];
	uint8_t  sgid[16];
};
_Static_assert(sizeof(struct pv_ipc_cm_bound) == 112, "pv_ipc_cm_bound");

/* The connection parameters REQ and REP carry (IBA 12.7.26/12.7.27). */
struct pv_cm_conn_param {
	uint32_t qp_num;	/* 24 bits */
	uint32_t psn;		/* starting PSN of the sender's SQ, 24 bits */
	uint8_t  responder_resources;
	uint8_t  initiator_depth;
	uint8_t  flow_control;
	uint8_t  retry_count;
	uint8_t  rnr_retry_count;
	uint8_t  srq;
	uint8_t  pdata_len;
	uint8_t  reserved;
	uint32_t qkey;		/* UD only */
};
_Static_assert(sizeof(struct pv_cm_conn_param) == 20, "pv_cm_conn_param");

struct pv_ipc_cm_conn {
	uint32_t id;
	struct pv_cm_conn_param p;
	uint8_t  pdata[PV_CM_PDATA_MAX];
};
_Static_assert(sizeof(struct pv_ipc_cm_conn) == 220, "pv_ipc_cm_conn size");

/* One event, pushed on the channel's event fd. */
struct pv_cm_event {
	uint32_t event;		/* enum rdma_cm_event_type */
	int32_t  status;
	uint32_t id;		/* the id it is for (new ids: CONNECT_REQUEST) */
	uint32_t listen_id;	/* CONNECT_REQUEST: the listener, else 0 */
	uint64_t cookie;	/* the id's (0 for a new one) */
	uint32_t dev_id;
	uint32_t ps;
	struct pv_cm_addr src, dst;
	uint8_t  sgid[16], dgid[16];
	uint32_t path_mtu;	/* ROUTE_RESOLVED, CONNECT_*: enum ibv_mtu */
	uint32_t gid_index;
	char     dev_name[PV_NAME_MAX];
	struct pv_cm_conn_param p;
	uint8_t  pdata[PV_CM_PDATA_MAX];
};
_Static_assert(sizeof(struct pv_cm_event) == 400, "pv_cm_event size");

#endif /* PV_SOFT_CM_ABI_H */
