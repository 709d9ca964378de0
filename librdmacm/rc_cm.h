/* SPDX-License-Identifier: MIT */
/*
 * librdmacm's ids and channels.  An rdma_event_channel is a connection to
 * the engine (HELLO with this thread's netns, then CM_OPEN) whose pushed
 * event socket is the channel's fd; ids are the engine's handles on that
 * connection (pv-soft-cm-abi.h).  A NULL-channel id gets a private
 * channel and its calls wait for their own events (synchronous ids).
 */
#ifndef RC_CM_H
#define RC_CM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "providers/soft/pv-soft-cm-abi.h"

struct rc_id;

struct rc_chan {
	struct rdma_event_channel pub;	/* pub.fd: the event socket */
	int ctl;			/* the engine connection */
	uint32_t seq;
	pthread_mutex_t lock;		/* ctl calls and the id list */
	struct rc_id *ids;		/* by handle (a list: few per channel) */
	atomic_int readers;		/* threads inside rc_event_read */
	atomic_bool closing;		/* rdma_destroy_event_channel began */
	atomic_int refs;		/* private channels: the ids on it */
};

struct rc_event {
	struct rdma_cm_event pub;
	uint8_t pdata[PV_CM_PDATA_MAX];
	struct rc_event *next;		/* a synchronous id's queue */
};

struct rc_id {
	struct rdma_cm_id pub;
	struct rc_chan *ch;
	uint32_t handle;
	bool sync;			/* blocking calls (NULL channel) */
	bool own_chan;			/* ch is private: holds a ref on it */
	bool passive;			/* made by a CONNECT_REQUEST */
	bool own_pd, own_cqs;		/* rdma_create_ep/qp made them */
	struct rc_id *next;		/* in ch->ids */
	struct ibv_sa_path_rec path;
	uint32_t path_mtu;
	uint32_t gid_index;
	uint8_t ack_timeout;		/* RDMA_OPTION_ID_ACK_TIMEOUT; 0: default */
	uint8_t resp_res, init_depth;	/* negotiated */
	struct pv_cm_conn_param local, remote;
	struct ibv_qp_init_attr *ep_attr;	/* rdma_create_ep's listener:
						 * QPs for its requests */
	struct rc_event *queue;		/* sync ids: events read for it while
					 * another id of the channel waited */
	struct rc_mc *mcs;		/* rc_mcast.c: groups joined */
};

/* rc_chan.c */
int rc_chan_open(struct rc_chan **out);
void rc_chan_close(struct rc_chan *ch);
/* A private channel's ids share it (a synchronous listener's requests
 * arrive on its channel); the last one closes it. */
void rc_chan_ref(struct rc_chan *ch);
void rc_chan_unref(struct rc_chan *ch);
/* One request/reply on ch's engine connection; -errno. */
int rc_call(struct rc_chan *ch, uint16_t op, const void *req, uint32_t len,
	    void *resp, uint32_t resp_len);
struct rc_id *rc_id_find(struct rc_chan *ch, uint32_t handle);
void rc_id_link(struct rc_chan *ch, struct rc_id *id);
void rc_id_unlink(struct rc_chan *ch, struct rc_id *id);
static inline struct rc_id *rc_id_of(struct rdma_cm_id *id)
{
	return (struct rc_id *)id;
}

/* rc_addr.c: sockaddr <-> pv_cm_addr, the id's view of both ends. */
int rc_addr_from_sa(const struct sockaddr *sa, struct pv_cm_addr *out);
void rc_addr_to_sa(const struct pv_cm_addr *a, struct sockaddr_storage *out);
/* Source address for dst by this netns's routing (UDP connect). */
int rc_addr_route_src(const struct sockaddr *dst, struct pv_cm_addr *out);
/* Fills id's route/verbs/port from a bound reply or an event. */
void rc_id_set_bound(struct rc_id *id, const struct pv_ipc_cm_bound *b);
void rc_id_set_from_event(struct rc_id *id, const struct pv_cm_event *ev);
struct ibv_context *rc_ctx_by_name(const char *name);

/* rc_event.c */
/* Reads one event of ch into a new rc_event (the new id of a
 * CONNECT_REQUEST made); blocking or not as the fd is.  -errno. */
int rc_event_read(struct rc_chan *ch, struct rc_event **out);
/* Waits for the next event of a synchronous id; 0 when it is `want` with
 * status 0, else -errno (the event's status or -ECONNREFUSED...). */
int rc_sync_wait(struct rc_id *id, enum rdma_cm_event_type want);

/* rc_mcast.c: a MULTICAST_JOIN event: its UD parameters and context, and
 * the id's QP attached to the group (unless send-only); -ENOENT when the
 * group was left meanwhile (the event is dropped). */
struct rc_mc;
int rc_mc_event(struct rc_id *id, struct rc_event *e,
		const struct pv_cm_event *ev);
/* rdma_destroy_id: the id's joins go. */
void rc_mc_free_all(struct rc_id *id);

struct rc_event *rc_sync_take_request(struct rc_id *l);

/* rc_id.c: rdma_create_id with the QP type rdma_create_ep asks for
 * (kept for RDMA_PS_IB only); -errno. */
int rc_id_create(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		 void *context, enum rdma_port_space ps, enum ibv_qp_type qpt);

/* rc_conn.c */
/* Moves id's QP along as the kernel's CM attributes say (INIT/RTR/RTS). */
int rc_qp_to(struct rc_id *id, enum ibv_qp_state state);
int rc_qp_to_err(struct rc_id *id);
/* rc_qp.c: a CQ with its own completion channel; the id's own CQs
 * (own_cqs) destroyed.  rc_srq.c makes an XRC SRQ's so. */
int rc_qp_make_cq(struct rc_id *id, uint32_t cqe, struct ibv_cq **cq,
		  struct ibv_comp_channel **chan);
void rc_qp_destroy_cqs(struct rc_id *id);

#endif /* RC_CM_H */
