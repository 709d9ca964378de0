/* SPDX-License-Identifier: MIT */
/*
 * Private to the soft provider: the client side of the podverbsd IPC
 * (providers/soft/pv-soft-abi.h).  One connection per opened context,
 * requests serialised by a mutex; the async and completion-channel
 * sockets carry struct pv_ipc_event / pv_ipc_cq_event datagrams.
 */
#ifndef SOFT_PROVIDER_H
#define SOFT_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/provider/soft_dp.h"
#include "libverbs/pv_provider.h"

struct soft_conn {
	int fd;
	pthread_mutex_t lock;		/* one request/reply at a time */
	uint32_t seq;
};

struct soft_ctx {
	struct soft_conn conn;
	uint32_t dev_id;
	/* Data path (soft_map.c); page is NULL when the engine offers no
	 * rings (then the data-path verbs fail with EOPNOTSUPP). */
	struct pv_ctx_page *page;
	size_t page_size;
	int doorbell_fd;
	/* Set once the engine connection is gone: posts fail with EIO,
	 * polling drains what the rings hold, and the next async read
	 * reports IBV_EVENT_DEVICE_FATAL (once). */
	atomic_bool dead;
	atomic_bool fatal_reported;
	atomic_uint liveness_tick;	/* rate-limits soft_ctx_check_alive */
	uint32_t poll_yield;		/* yield after this many empty polls
					 * in a row (0: never) */
	struct soft_death *death;	/* flushing after engine death */
	struct soft_mr_tab *mrs;	/* this context's MRs by lkey */
};

static inline struct soft_ctx *soft_ctx_of(struct pv_context *ctx)
{
	return ctx->priv;
}

/* soft_conn.c */
int soft_conn_open(struct soft_conn *c, const char *path);
void soft_conn_close(struct soft_conn *c);
int soft_call(struct soft_conn *c, uint16_t op, const void *req,
	      uint32_t req_len, void *resp, uint32_t resp_cap,
	      uint32_t *resp_len, int *fds, int *nfds);
/* soft_call_fixed passing req_fds (still the caller's) with the request. */
int soft_call_fds(struct soft_conn *c, uint16_t op, const void *req,
		  uint32_t req_len, const int *req_fds, int nreq_fds,
		  void *resp, uint32_t resp_len);
/* A call whose reply must be exactly resp_len bytes (or empty when 0). */
int soft_call_fixed(struct soft_conn *c, uint16_t op, const void *req,
		    uint32_t req_len, void *resp, uint32_t resp_len);
/* A call to a reply struct that grew: an engine of the same IPC version
 * that is older answers with at least min_len bytes (its struct); the
 * fields it did not send read 0.  *got (may be NULL): what it sent. */
int soft_call_grown(struct soft_conn *c, uint16_t op, const void *req,
		    uint32_t req_len, void *resp, uint32_t resp_len,
		    uint32_t min_len, uint32_t *got);

/* soft_death.c: the engine died; flush what it never will.  All are
 * no-ops on a context without tracking (death NULL). */
struct soft_death;
int soft_death_init(struct soft_ctx *sc);
void soft_death_fini(struct soft_ctx *sc);
int soft_death_track_qp(struct soft_ctx *sc, struct pv_qp *qp);
void soft_death_untrack_qp(struct soft_ctx *sc, struct pv_qp *qp);
int soft_death_track_cq(struct soft_ctx *sc, struct pv_cq *cq);
void soft_death_untrack_cq(struct soft_ctx *sc, struct pv_cq *cq);
/* Once the context is dead: every outstanding WR of every QP completes
 * with IBV_WC_WR_FLUSH_ERR (once; cheap when done or alive).  Call with
 * no queue or CQ lock held. */
void soft_death_flush(struct soft_ctx *sc);
/* A channel's socket hung up: marks the context dead, flushes, and
 * names one CQ of ch not yet reported (0), or -EIO when none is left. */
int soft_death_cq_event(struct soft_ctx *sc, struct pv_channel *ch,
			uint32_t *ret_cq_handle);

/* soft_discover.c */
int soft_discover(struct pv_dev_desc **ret_descs, char *why, size_t why_len);

/* soft_context.c */
int soft_open_context(struct pv_context *ctx);
void soft_close_context(struct pv_context *ctx);
int soft_query_device(struct pv_context *ctx, struct ibv_device_attr_ex *a);
int soft_query_port(struct pv_context *ctx, uint8_t port,
		    struct ibv_port_attr *a);
int soft_query_gid_table(struct pv_context *ctx, uint8_t port,
			 struct ibv_gid_entry *e, int max);
int soft_query_pkey(struct pv_context *ctx, uint8_t port, int index,
		    uint16_t *ret_pkey);

/* soft_events.c */
int soft_parse_event(const void *buf, size_t n, void *out, size_t out_len);
int soft_read_async_event(struct pv_context *ctx, struct pv_async_desc *ev);
int soft_read_cq_event(struct pv_context *ctx, struct pv_channel *ch,
		       uint32_t *ret_cq_handle);
int soft_create_channel(struct pv_context *ctx, struct pv_channel *ch);
int soft_destroy_channel(struct pv_context *ctx, struct pv_channel *ch);

/* soft_objects.c */
int soft_destroy_handle(struct pv_context *ctx, uint16_t op, uint32_t handle);
int soft_alloc_pd(struct pv_context *ctx, struct pv_pd *pd);
int soft_dealloc_pd(struct pv_context *ctx, struct pv_pd *pd);
int soft_reg_mr(struct pv_context *ctx, struct pv_pd *pd, struct pv_mr *mr,
		uint64_t iova, unsigned int access);
int soft_dereg_mr(struct pv_context *ctx, struct pv_mr *mr);
/* soft_mw.c: ibv_alloc_mw / ibv_dealloc_mw / ibv_bind_mw. */
void soft_mw_install(struct ibv_context_ops *o);
int soft_rereg_mr(struct pv_context *ctx, struct pv_mr *mr, int flags,
		  struct pv_pd *pd, void *addr, size_t length,
		  unsigned int access);
int soft_create_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe,
		   struct pv_channel *ch, int comp_vector);
int soft_resize_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe);
int soft_destroy_cq(struct pv_context *ctx, struct pv_cq *cq);
int soft_req_notify_cq(struct pv_context *ctx, struct pv_cq *cq, int solicited);
int soft_open_xrcd(struct pv_context *ctx, struct pv_xrcd *xrcd, int fd,
		   int oflags);
int soft_close_xrcd(struct pv_context *ctx, struct pv_xrcd *xrcd);
int soft_create_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr);
int soft_modify_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr, int mask);
int soft_query_srq(struct pv_context *ctx, struct pv_srq *srq,
		   struct ibv_srq_attr *attr);
int soft_destroy_srq(struct pv_context *ctx, struct pv_srq *srq);
int soft_create_ah(struct pv_context *ctx, struct pv_ah *ah,
		   struct ibv_ah_attr *attr);
int soft_destroy_ah(struct pv_context *ctx, struct pv_ah *ah);
int soft_attach_mcast(struct pv_context *ctx, struct pv_qp *qp,
		      const union ibv_gid *gid, uint16_t lid);
int soft_detach_mcast(struct pv_context *ctx, struct pv_qp *qp,
		      const union ibv_gid *gid, uint16_t lid);

/* soft_qp.c */
int soft_create_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_init_attr_ex *attr);
int soft_modify_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_attr *attr, int mask);
int soft_query_qp(struct pv_context *ctx, struct pv_qp *qp,
		  struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init_attr);
int soft_destroy_qp(struct pv_context *ctx, struct pv_qp *qp);
int soft_open_qp(struct pv_context *ctx, struct pv_qp *qp,
		 const struct ibv_qp_open_attr *attr);

/* soft_map.c: the *_MAP ops and the mappings they pass. */
int soft_ctx_map(struct soft_ctx *sc);
void soft_ctx_unmap(struct soft_ctx *sc);
/* Polls the engine connection (no wait); marks the context dead when it
 * hung up.  Returns true while alive. */
bool soft_ctx_check_alive(struct soft_ctx *sc);
/* The same, every 2^shift calls only (hot paths). */
static inline bool soft_ctx_maybe_check_alive(struct soft_ctx *sc,
					      unsigned int shift)
{
	unsigned int t = atomic_fetch_add_explicit(&sc->liveness_tick, 1,
						   memory_order_relaxed);

	if (t & ((1u << shift) - 1))
		return !atomic_load_explicit(&sc->dead, memory_order_relaxed);
	return soft_ctx_check_alive(sc);
}
int soft_qp_map(struct soft_ctx *sc, struct pv_qp *qp,
		const struct ibv_qp_cap *cap);
void soft_qp_unmap(struct pv_qp *qp);
int soft_cq_map(struct soft_ctx *sc, struct pv_cq *cq);
void soft_cq_unmap(struct pv_cq *cq);
/* Re-maps after CQ_RESIZE; the caller holds the CQ's lock. */
int soft_cq_remap(struct soft_ctx *sc, struct pv_cq *cq);
int soft_srq_map(struct soft_ctx *sc, struct pv_srq *srq, uint32_t max_sge,
		 uint32_t max_wr);
int soft_srq_remap(struct soft_ctx *sc, struct pv_srq *srq, uint32_t max_wr);
void soft_srq_unmap(struct pv_srq *srq);
void soft_map_release(struct soft_map *m);

/* Rings the context's doorbell if the engine sleeps.  The fence orders
 * our store of prod before the load of engine_idle, pairing with the
 * engine's store of engine_idle before its last rescan (pv-soft-ring-abi.h: doorbells): one
 * of the two sides always sees the other. */
static inline void soft_doorbell(struct soft_ctx *sc)
{
	uint64_t one = 1;

	atomic_thread_fence(memory_order_seq_cst);
	if (!__atomic_load_n(&sc->page->engine_idle, __ATOMIC_RELAXED))
		return;
	/* EAGAIN means the counter is already non-zero: the engine will
	 * wake anyway. */
	if (write(sc->doorbell_fd, &one, sizeof(one)) < 0)
		return;
	soft_ctx_maybe_check_alive(sc, 6);
}

/* soft_post.c, soft_poll.c: installed in ibv_context_ops (public
 * conventions: post_* return a positive errno and set *bad_wr). */
int soft_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int soft_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int soft_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
int soft_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int soft_arm_cq(struct ibv_cq *cq, int solicited_only);
/* Shared by post paths and the ibv_wr_* builders.  wait_space reloads
 * cons until the producer ring r has room (false after a short grace). */
bool soft_ring_wait_space(const struct soft_ring *r, uint32_t *cons);
int soft_sq_limits_of(struct pv_qp *qp, struct soft_sq_limits *lim);

/* soft_cq_ex.c: the extended CQ's poll functions; -EOPNOTSUPP for
 * wc_flags we can't report. */
int soft_cq_ex_check_flags(uint64_t wc_flags);
void soft_cq_ex_install(struct pv_cq *cq);

/* soft_qp_ex.c: the ibv_wr_* builders; -EOPNOTSUPP for send_ops_flags we
 * don't implement. */
int soft_qp_ex_check_ops(enum ibv_qp_type t, uint64_t send_ops_flags);
void soft_qp_ex_install(struct pv_qp *qp);

/* soft_mr_share.c: which fd carries a new MR's pages (docs/ARCHITECTURE.md, "Memory"); the
 * engine reaches memory only through one.  fd is -1 when the region
 * cannot be shared, and why says what the region is.  ref (NULL when fd
 * is -1) is released by soft_mr_share_put when the MR is deregistered;
 * fd stays owned by the registry. */
struct soft_mr_share {
	int fd;
	uint64_t fd_offset;
	void *ref;
	const char *why;
};
void soft_mr_share_get(void *addr, size_t length, struct soft_mr_share *out);
void soft_mr_share_put(void *ref);

/* soft_mr_tab.c: what the provider knows of each MR of a context (its
 * key, PD, range and rights), found by lkey for ibv_advise_mr.  One per
 * pv_mr, in mr->priv; it also holds the MR's share.  The table's lock is
 * a leaf: nothing else is taken under it. */
struct soft_mr {
	struct soft_mr *next;		/* in the table's bucket of lkey */
	uint32_t lkey;
	uint32_t pd_handle;		/* the protection domain's */
	uint64_t iova;
	uintptr_t addr;
	uint64_t length;
	unsigned int access;		/* enum ibv_access_flags */
	void *share;			/* soft_mr_share's ref */
};
struct soft_mr_tab;
int soft_mr_tab_new(struct soft_mr_tab **ret_tab);
void soft_mr_tab_free(struct soft_mr_tab *t);
void soft_mr_tab_add(struct soft_mr_tab *t, struct soft_mr *m);
void soft_mr_tab_remove(struct soft_mr_tab *t, struct soft_mr *m);
/* Moves m to a new lkey and range (rereg); fields as the MR now is. */
void soft_mr_tab_update(struct soft_mr_tab *t, struct soft_mr *m,
			const struct soft_mr *now);
/* Copies the MR of lkey into *ret; -ENOENT when there is none. */
int soft_mr_tab_find(struct soft_mr_tab *t, uint32_t lkey,
		     struct soft_mr *ret);

/* soft_odp.c: on-demand paging as a soft device has it (explicit only:
 * docs/ARCHITECTURE.md, "Memory"), and ibv_advise_mr. */
/* The implicit ODP form of ibv_reg_mr (the whole address space). */
bool soft_odp_implicit(const void *addr, size_t length, unsigned int access);
void soft_odp_caps(struct ibv_device_attr_ex *a);
/* ibv_advise_mr's checks, pure: the call's arguments, then one SGE
 * against its MR (found by the caller).  -errno as mlx5 answers. */
int soft_odp_check_args(uint32_t advice, uint32_t flags,
			const struct ibv_sge *sg_list, uint32_t num_sge);
int soft_odp_check_sge(const struct soft_mr *m, uint32_t pd_handle,
		       uint32_t advice, const struct ibv_sge *sge,
		       uintptr_t *ret_start, uintptr_t *ret_end);
/* Installed in verbs_context: the public convention (a positive errno). */
int soft_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);

/* soft_qp_attr.c: pure translation between verbs and IPC structs. */
void soft_ah_attr_to_ipc(const struct ibv_ah_attr *in,
			 struct pv_ipc_ah_attr *out);
void soft_ah_attr_from_ipc(const struct pv_ipc_ah_attr *in,
			   struct ibv_ah_attr *out);
void soft_qp_cap_to_ipc(const struct ibv_qp_cap *in, struct pv_ipc_qp_cap *out);
void soft_qp_cap_from_ipc(const struct pv_ipc_qp_cap *in,
			  struct ibv_qp_cap *out);
void soft_qp_attr_to_ipc(const struct ibv_qp_attr *in,
			 struct pv_ipc_qp_attr *out);
void soft_qp_attr_from_ipc(const struct pv_ipc_qp_attr *in,
			   struct ibv_qp_attr *out);

#endif /* SOFT_PROVIDER_H */
