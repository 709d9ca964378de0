/* SPDX-License-Identifier: MIT */
/*
 * The podverbsd engine's control plane: the engine, its client
 * connections, soft devices and verbs objects.
 *
 * Threading: the control plane is one epoll loop on one thread and owns
 * everything here.  Objects a data path needs are also reachable by
 * number: devices by id (eng.devs), QPs by qp_num and MRs by key
 * (eng_dev.qps / eng_dev.mrs); a data path added later takes eng.lock
 * (not yet present) around those lookups.
 */
#ifndef ENG_H
#define ENG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netns/netns.h"
#include "providers/soft/engine/eng_gid_own.h"
#include "providers/soft/engine/eng_gidmap.h"
#include "providers/soft/engine/eng_handles.h"
#include "providers/soft/engine/eng_hwc.h"
#include "providers/soft/engine/eng_idtab.h"
#include "providers/soft/engine/eng_list.h"
#include "providers/soft/engine/eng_mrkey.h"
#include "providers/soft/engine/eng_mr_tally.h"
#include "providers/soft/engine/eng_rguard.h"
#include "providers/soft/engine/eng_quota.h"
#include "providers/soft/pv-soft-abi.h"

struct eng;
struct eng_state;
struct eng_dp_ctx;
struct eng_dp_sched;
struct eng_net_dev;
struct eng_net_buf;
struct eng_cm;
struct eng_cm_chan;

/* Something in the epoll set; ready() runs with the epoll events. */
struct eng_pollable {
	int fd;
	void (*ready)(struct eng *e, struct eng_pollable *p, uint32_t events);
};

struct eng_ident {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool ns_known;		/* false: the peer's namespace was unreadable */
	struct netns_id ns;
	bool admin_socket;	/* accepted on the admin listener */
	/* SO_NETNS_COOKIE of the accepted socket: the kernel makes it in
	 * the connecting socket's namespace, so this is the client's netns,
	 * fixed at connect.  Buckets per-pod connection limits at accept;
	 * 0 when unavailable.  (Devices are matched by ns, from HELLO.) */
	uint64_t ns_cookie;
};

/* Internal object kinds beyond enum pv_obj_kind.  A QP_OPEN handle is
 * a QP handle to the client (eng_qp_open.c). */
#define ENG_OBJ_QP_OPEN	15
#define ENG_OBJ_CTX	16
#define ENG_OBJ_KINDS	17

struct eng_dev {
	uint32_t id;
	char name[PV_NAME_MAX];
	char ifname[PV_IFNAME_MAX];
	char netns_path[PV_PATH_MAX];
	int ns_fd;			/* -1 for a device made in a unit test */
	struct netns_id ns;
	struct eng_pollable watch;	/* link/address notifications */
	uint16_t pkey;
	uint64_t guid;
	uint32_t flags;			/* ADM_DEV_ADD's, kept for a restart */
	/* Port 1, refreshed from the interface. */
	bool link_present;
	uint8_t port_state;		/* enum pv_port_state */
	uint32_t netdev_mtu;
	uint32_t active_mtu;		/* enum ibv_mtu */
	uint32_t gid_count;
	struct pv_ipc_gid_entry gid[PV_GID_TABLE_MAX];
	/* The interface's GIDs in table order (netns_gid_table); gid[] is
	 * the part no other device owns, conflict[] the rest
	 * (eng_gid_own.h). */
	uint32_t want_count;
	uint8_t want[ENG_GID_WANT_MAX][16];
	uint32_t conflict_count;
	uint8_t conflict[ENG_GID_WANT_MAX][16];
	/* GIDs of the CNI-assigned addresses (eng_gid_own.h). */
	uint32_t claim_count;
	uint8_t claim[PV_GID_CLAIM_MAX][16];
	uint32_t clients;		/* connections with a context on it */
	struct eng_idtab qps;		/* qp_num -> struct eng_qp */
	struct eng_idtab srqns;		/* XRC srq_num -> struct eng_srq */
	struct eng_mrkeys mrs;		/* lkey/rkey -> struct eng_mr */
	struct eng_rguard rguard;	/* remote access errors */
	struct eng_quota quota;		/* summed over its connections */
	struct eng_mr_tally mr_tally;	/* summed over its connections */
	/* Its (its pod's) share of the data path's current pass, over all
	 * its connections' QPs (eng_dp_sched.c). */
	uint64_t dp_pass_seq;
	uint64_t dp_pass_bytes;
	uint64_t dp_pass_wqes;
	struct eng_net_dev *net;	/* its UDP 4791 sockets (eng_net.h) */
	/* READ response packets its RC QPs asked for and have not received
	 * (eng_wire_rc_req.c; bounded by eng_rc_read_credit). */
	uint64_t rd_credit_used;
	struct eng_hwc hw;		/* port counters (eng_hwc.h) */
	/* The pod, as the CNI named it at ADM_DEV_ADD ("" if not). */
	char pod_ns[PV_POD_NS_MAX];
	char pod_name[PV_POD_NAME_MAX];
	/* Its entry is in the state (added by request or restored): a
	 * change of its GID table is recorded too (eng_device.c). */
	bool recorded;
};

struct eng_conn {
	struct eng_pollable poll;
	struct eng_list link;		/* in eng.conns */
	uint32_t id;
	struct eng_ident ident;
	bool admin;
	bool unproven;			/* pod socket, no HELLO netns yet */
	uint64_t accepted_ns;		/* CLOCK_MONOTONIC */
	/* The context (one per connection, CTX_OPEN). */
	struct eng_dev *dev;		/* NULL before CTX_OPEN or after the
					 * device was deleted */
	bool dev_lost;			/* the device was deleted under it */
	uint32_t dev_id;		/* kept for listings after loss */
	int ev_fd;			/* engine end of the async socket */
	uint32_t ctx_handle;
	struct eng_htab handles;
	struct eng_list objs;		/* struct eng_obj.link, creation order */
	uint32_t count[ENG_OBJ_KINDS];
	struct eng_dp_ctx *dp;		/* rings and doorbell (CTX_MAP) */
	struct eng_quota quota;		/* its share of dev->quota */
	struct eng_mr_tally mr_tally;	/* its MRs (eng_mr_report.h) */
	struct eng_cm_chan *cm;		/* CM_OPEN's event channel (eng_cm.h) */
	/* Its QPs with rings in round-robin order, and its place among the
	 * connections that have any (eng_dp_sched.c, issue 14). */
	struct eng_list dp_qps;
	struct eng_list dp_link;
	uint32_t dp_nqps;
	struct eng_list dp_idle;	/* its QPs with nothing to do */
	uint32_t dp_nidle;
};

struct eng {
	int epfd;
	struct eng_pollable listener;
	struct eng_pollable sig;
	int spare_fd;			/* /dev/null, given up on EMFILE */
	bool accept_paused;		/* out of fds: listeners not polled */
	struct eng_pollable accept_timer;	/* ends the pause */
	char sock_path[108];
	struct eng_pollable admin_listener;	/* admin requests only here */
	char admin_path[108];
	bool admin_dir_made;		/* its folder is ours to remove */
	struct netns_id self_ns;
	bool self_ns_known;
	struct eng_list conns;
	uint32_t nconns;
	uint32_t nadmin;		/* of nconns, on the admin socket */
	uint32_t nunproven;		/* of nconns, not yet proven */
	struct eng_pollable unproven_timer;	/* closes the late ones */
	uint32_t next_conn_id;
	struct eng_idtab devs;		/* dev id -> struct eng_dev */
	struct eng_list xrcd_doms;	/* file-named XRC domains (eng_xrcd.c) */
	struct eng_gidmap gids;		/* GID -> dev id (eng_gidmap.h) */
	bool stop;
	uint8_t *reply;			/* PV_IPC_MAX_PAYLOAD bytes */
	/* Pollables closed while an epoll batch runs are freed after it,
	 * since later events of the batch may still point at them. */
	bool in_batch;
	void **deferred;
	uint32_t ndeferred, deferred_cap;
	struct eng_dp_sched *dp;	/* data path (eng_dp.h) */
	struct eng_state *state;	/* eng_state.h; NULL: none kept */
	/* Called after the device set changed by request: added (or NULL)
	 * was added, else the device removed_id was deleted (eng_state.c
	 * records the change); also with a recorded device whose GID table
	 * changed, whose entry the new one replaces (same id). */
	void (*devs_changed)(struct eng *e, const struct eng_dev *added,
			     uint32_t removed_id);
	/* Closes a connection that did not prove its namespace in time
	 * (eng_admission.c calls it, eng_init sets eng_conn_close): the
	 * admission rules sit below the server whose connections they
	 * judge, and call up only through this. */
	void (*conn_expired)(struct eng *e, struct eng_conn *c);
	/* While devices are restored (eng_state.c): the GIDs each device
	 * owned before the restart, held for it until it is back. */
	const struct eng_gid_holder *gid_reserved;
	uint32_t ngid_reserved;
	/* net (eng_net.h): the shared buffers, the sockets with packets
	 * queued for the end of the turn. */
	struct eng_net_buf *net_buf;
	struct eng_list net_dirty;
	struct eng_cm *cm;		/* CM ids (eng_cm.h); NULL before any */
	struct eng_metrics *metrics;	/* eng_metrics.h; NULL: off */
};

/*
 * eng_poll.c: the loop's primitives, a leaf every other file may call (it
 * calls nothing of the engine).  The loop itself (eng_init, eng_run,
 * eng_fini) is the top of the call graph: eng_loop.h, for main() only.
 */
int eng_poll_add(struct eng *e, struct eng_pollable *p);
void eng_poll_del(struct eng *e, struct eng_pollable *p);
/* Frees ptr (a struct holding a pollable whose fd is now -1) now, or
 * after the current epoll batch. */
void eng_defer_free(struct eng *e, void *ptr);
/* The loop's side of eng_defer_free: a batch of ready callbacks begins;
 * it ends by freeing what they deferred. */
void eng_batch_begin(struct eng *e);
void eng_batch_end(struct eng *e);

/* eng_server.c: listening socket and connections. */
int eng_listen(struct eng *e, const char *path);
/* The admin socket (eng_server.c): its folder is made (or must be)
 * root's with mode 0700; the socket is 0600. */
int eng_listen_admin(struct eng *e, const char *path);
void eng_unlisten(struct eng *e);
/* Adopts fd (takes ownership) as a client with identity id.  Returns the
 * connection or NULL (fd closed). */
struct eng_conn *eng_conn_add(struct eng *e, int fd,
			      const struct eng_ident *id);
void eng_conn_close(struct eng *e, struct eng_conn *c);
/* c has just proven its namespace (HELLO; eng_admission.c). */
void eng_conn_proven(struct eng *e, struct eng_conn *c);
/* Serves up to `budget` queued requests of c; returns how many, or
 * -ECONNRESET when the peer is gone (c is then closed and freed). */
int eng_conn_serve(struct eng *e, struct eng_conn *c, int budget);

/* eng_device.c: the registry. */
struct eng_dev *eng_dev_by_id(struct eng *e, uint32_t id);
bool eng_dev_visible(const struct eng_dev *d, const struct eng_conn *c);
/* Builds a device from an already-read link (no namespace I/O); takes
 * ownership of ns_fd (-1 allowed).  name may be "" (picks pv<N>).
 * Returns 0 and *ret_dev, -EEXIST (name or ifname taken in that
 * namespace), -ENOMEM (device limit). */
int eng_dev_register(struct eng *e, int ns_fd, const struct netns_id *ns,
		     const char *netns_path, const char *name, uint16_t pkey,
		     const struct netns_link *link, struct eng_dev **ret_dev);
/* What a device restored after an engine restart keeps (eng_state.h):
 * its id, its node GUID (0: from the MAC as usual) and the identity of
 * the namespace it was made in. */
struct eng_dev_keep {
	uint32_t id;
	uint64_t guid;
	struct netns_id ns;
	/* Its GID claims (NULL: none, or those of eng_dev_add_claims). */
	const struct pv_ipc_adm_dev_claims *claims;
};
/* eng_dev_register with keep (NULL: a new id and GUID); -EEXIST also
 * when keep's id is taken, -EINVAL when it is out of range. */
int eng_dev_register_kept(struct eng *e, int ns_fd, const struct netns_id *ns,
			  const char *netns_path, const char *name,
			  uint16_t pkey, const struct netns_link *link,
			  const struct eng_dev_keep *keep,
			  struct eng_dev **ret_dev);
/* Gives every device with left-out GIDs another look (after
 * eng.gid_reserved was cleared). */
void eng_dev_gids_recheck(struct eng *e);
/* Applies a fresh read of the interface (link NULL: it vanished). */
void eng_dev_apply_link(struct eng *e, struct eng_dev *d,
			const struct netns_link *link);
int eng_dev_add(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		struct eng_dev **ret_dev);
/* The same with the GIDs the attachment's addresses must own (NULL:
 * none; eng_gid_own.h). */
int eng_dev_add_claims(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		       const struct pv_ipc_adm_dev_claims *claims,
		       struct eng_dev **ret_dev);
/* eng_dev_add with keep; -ESTALE when the namespace at the path is no
 * longer keep->ns. */
int eng_dev_add_kept(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		     const struct eng_dev_keep *keep, struct eng_dev **ret_dev);
void eng_dev_remove(struct eng *e, struct eng_dev *d);
void eng_dev_info(const struct eng_dev *d, struct pv_ipc_dev_info *out);
void eng_dev_attr(const struct eng_dev *d, struct pv_ipc_dev_attr *out);
void eng_dev_port_attr(const struct eng_dev *d, struct pv_ipc_port_attr *o);

/* eng_events.c: pushes to clients, never blocking. */
void eng_event_push(struct eng_conn *c, uint32_t type, uint32_t kind,
		    uint32_t handle);
void eng_event_push_dev(struct eng *e, struct eng_dev *d, uint32_t type,
			uint32_t kind, uint32_t handle);
/* Sends a reply; a full socket counts a drop instead of blocking. */
void eng_reply(struct eng_conn *c, uint16_t op, uint32_t seq, int32_t status,
	       const void *payload, uint32_t len, const int *fds, int nfds);

/* eng_objects.c: teardown of a connection's objects. */
void eng_objs_free_all(struct eng *e, struct eng_conn *c);
/* Detaches c's objects from its device (device being deleted). */
void eng_objs_detach_dev(struct eng *e, struct eng_conn *c);

#endif /* ENG_H */
