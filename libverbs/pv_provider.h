/* SPDX-License-Identifier: MIT */
/*
 * The one internal interface between the libibverbs core (libverbs/) and
 * the providers compiled into it (providers/soft/provider/ now, rxe later).
 *
 * Split of work:
 *  - The core owns every verbs object: it allocates the pv_* structs below
 *    (each embeds the public ibv_* struct first), fills the public fields,
 *    keeps the per-context handle table that maps provider handles back to
 *    objects (async and completion events), implements the destroy-waits-
 *    for-acks rules, and converts -errno to each verb's public convention.
 *  - A provider only talks to its "hardware": it discovers devices, opens a
 *    context, and runs each verb on an object the core has allocated,
 *    storing its handle (and any private state in ->priv).
 *
 * Convention: every op returns >= 0 on success and -errno on failure, never
 * touches errno and never logs.  A NULL op means "not supported": the core
 * fills it with a default that returns -EOPNOTSUPP (lv_provider.c).
 *
 * Locking: ops may be called concurrently from many threads on one context;
 * a provider serialises its own transport (the soft provider holds a mutex
 * around each request/reply).  The core serialises the handle table.
 */
#ifndef PV_PROVIDER_H
#define PV_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/* One device as a provider reports it from discovery. */
struct pv_dev_desc {
	char name[IBV_SYSFS_NAME_MAX];
	uint64_t node_guid;		/* network byte order, as the engine sends it */
	uint32_t dev_id;		/* provider's id, passed back on open */
	int node_type;			/* enum ibv_node_type */
	int transport_type;		/* enum ibv_transport_type */
	/* ibv_device.dev_name, the node /dev/infiniband/<dev_name> that UCX
	 * requires; "" gives "podverbs<dev_id>" (never a kernel node's
	 * uverbsN: lv_dev_ident.h). */
	char dev_name[IBV_SYSFS_NAME_MAX];
};

struct pv_provider;

/* A device in a list; refcounted (the list and each open context). */
struct pv_device {
	struct ibv_device ibv;		/* first: apps see &ibv */
	const struct pv_provider *prov;
	uint32_t dev_id;
	uint64_t node_guid;		/* network byte order, as the engine sends it */
	int index;			/* ibv_get_device_index() */
	atomic_int refcnt;
};

/* Handle-table key kinds (values equal enum pv_obj_kind of the soft ABI). */
enum pv_kind {
	PV_KIND_PD = 1,
	PV_KIND_MR = 2,
	PV_KIND_CQ = 3,
	PV_KIND_QP = 4,
	PV_KIND_SRQ = 5,
	PV_KIND_AH = 6,
	PV_KIND_CHANNEL = 7,
	PV_KIND_PORT = 8,
};

struct lv_hentry;
#define LV_HASH_BUCKETS 256
struct lv_htable {
	struct lv_hentry *bucket[LV_HASH_BUCKETS];
};

struct pv_context {
	struct verbs_context vctx;	/* ends with the public ibv_context */
	struct pv_device *dev;
	const struct pv_provider *prov;
	const struct pv_provider_ops *ops;	/* defaults filled in */
	void *priv;			/* provider's per-context state */
	pthread_mutex_t obj_lock;	/* guards handles and event counters */
	struct lv_htable handles;
};

struct pv_td;

/* A protection domain, or a parent domain (inner != NULL): a parent
 * domain carries its protection domain's handle and priv, so a provider
 * that reads pd->handle reaches the engine's PD either way. */
struct pv_pd {
	struct ibv_pd ibv;
	uint32_t handle;
	void *priv;
	struct pv_pd *inner;		/* parent domain: its protection domain */
	struct pv_td *td;		/* parent domain: optional thread domain */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
	atomic_int users;		/* protection domain: parent domains on it */
};

/* Resource types a parent domain's alloc/free hooks are called with. */
#define PV_RES_TYPE_QP_DP 1	/* soft QP's data-path bookkeeping */
#define PV_RES_TYPE_CQ_DP 2	/* soft CQ's data-path bookkeeping */
#define PV_RES_TYPE_SRQ_DP 3	/* soft SRQ's data-path bookkeeping */

/* A provider-side buffer for an object of pd: from the parent domain's
 * alloc hook when it has one (unless it says IBV_ALLOCATOR_USE_DEFAULT),
 * else calloc; *hooked says which, for pv_pd_free_buf.  Zeroed. */
static inline void *pv_pd_alloc_buf(struct ibv_pd *ibv, size_t size,
				    uint64_t type, bool *hooked)
{
	struct pv_pd *pd = (struct pv_pd *)ibv;
	void *p;

	*hooked = false;
	if (pd && pd->alloc) {
		p = pd->alloc(ibv, pd->pd_context, size, 64, type);
		if (p != IBV_ALLOCATOR_USE_DEFAULT) {
			if (p) {
				*hooked = true;
				memset(p, 0, size);
			}
			return p;
		}
	}
	return calloc(1, size);
}

static inline void pv_pd_free_buf(struct ibv_pd *ibv, void *p, bool hooked,
				  uint64_t type)
{
	struct pv_pd *pd = (struct pv_pd *)ibv;

	if (hooked)
		pd->free(ibv, pd->pd_context, p, type);
	else
		free(p);
}

struct pv_td {
	struct ibv_td ibv;
	atomic_int users;		/* parent domains on it */
};

struct pv_mr {
	struct ibv_mr ibv;
	uint32_t handle;
	void *priv;
};

struct pv_channel {
	struct ibv_comp_channel ibv;
	uint32_t handle;
	void *priv;
};

struct pv_cq {
	union {				/* ibv_cq_ex starts like ibv_cq */
		struct ibv_cq ibv;
		struct ibv_cq_ex ex;
	};
	uint32_t handle;
	bool is_ex;
	/* Extended CQs: what ibv_create_cq_ex asked for, set before the
	 * provider's create_cq (which refuses wc_flags it can't report and
	 * installs its own start_poll/next_poll/end_poll and readers). */
	uint64_t wc_flags;
	uint32_t create_flags;		/* enum ibv_create_cq_attr_flags */
	/* IBV_CQ_INIT_ATTR_MASK_PD: the parent domain whose hooks give the
	 * provider's bookkeeping (it outlives the CQ); else NULL. */
	struct ibv_pd *pd;
	/* Events handed to the app, under the context's obj_lock; destroy
	 * waits until the app has acked as many (ibv_destroy_cq(3)). */
	uint32_t comp_delivered;
	uint32_t async_delivered;
	void *priv;
};

/* An XRC domain (ibv_open_xrcd). */
struct pv_xrcd {
	struct ibv_xrcd ibv;
	uint32_t handle;
	atomic_int users;		/* XRC SRQs and XRC_RECV QPs on it */
};

struct pv_qp {
	union {				/* ibv_qp_ex starts with ibv_qp */
		struct ibv_qp ibv;
		struct ibv_qp_ex ex;
	};
	uint32_t handle;
	/* Created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: the provider's
	 * create_qp checks send_ops_flags and installs the ibv_wr_* builders
	 * in ex. */
	bool is_ex;
	uint32_t async_delivered;
	void *priv;
	struct pv_xrcd *xrcd;		/* IBV_QPT_XRC_RECV: its domain */
};

struct pv_srq {
	struct ibv_srq ibv;
	uint32_t handle;
	uint32_t async_delivered;
	void *priv;
	/* IBV_SRQT_XRC: set by the core before create_srq (xrcd, cq);
	 * srq_num set by the provider.  NULL/0 for a basic SRQ. */
	struct pv_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

struct pv_ah {
	struct ibv_ah ibv;
	void *priv;
};

/* An async event as the provider read it: the core maps kind + handle. */
struct pv_async_desc {
	uint32_t event_type;		/* enum ibv_event_type */
	uint32_t kind;			/* enum pv_kind, or 0 */
	uint32_t handle;		/* object handle, or port number */
};

static inline struct pv_context *pv_ctx(struct ibv_context *c)
{
	return (struct pv_context *)((char *)c -
				     offsetof(struct pv_context, vctx.context));
}

struct pv_provider_ops {
	/* Devices: *ret_descs is malloc'ed (caller frees); returns count.
	 * On failure writes a one-line reason to why (the core prints it
	 * when PODVERBS_DEBUG is set). */
	int (*discover)(struct pv_dev_desc **ret_descs, char *why,
			size_t why_len);
	/* Sets ctx->priv and ctx->vctx.context.cmd_fd/async_fd.  May also
	 * replace data-path slots of ctx->vctx.context.ops with its own
	 * functions (those must follow the public verbs.h conventions). */
	int (*open_context)(struct pv_context *ctx);
	void (*close_context)(struct pv_context *ctx);

	int (*query_device)(struct pv_context *ctx,
			    struct ibv_device_attr_ex *attr);
	int (*query_port)(struct pv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr);
	/* Fills up to max entries of the port's dense GID table; returns the
	 * number of valid entries. */
	int (*query_gid_table)(struct pv_context *ctx, uint8_t port,
			       struct ibv_gid_entry *entries, int max);
	int (*query_pkey)(struct pv_context *ctx, uint8_t port, int index,
			  uint16_t *ret_pkey);	/* host order */

	int (*alloc_pd)(struct pv_context *ctx, struct pv_pd *pd);
	int (*dealloc_pd)(struct pv_context *ctx, struct pv_pd *pd);
	/* Sets mr->handle, mr->ibv.lkey and rkey. */
	int (*reg_mr)(struct pv_context *ctx, struct pv_pd *pd,
		      struct pv_mr *mr, uint64_t iova, unsigned int access);
	int (*dereg_mr)(struct pv_context *ctx, struct pv_mr *mr);
	/* ibv_rereg_mr: flags already checked by the core; pd is the new PD
	 * (CHANGE_PD), addr/length the new range (CHANGE_TRANSLATION).
	 * Updates mr->ibv.lkey and rkey; on failure the MR is unchanged. */
	int (*rereg_mr)(struct pv_context *ctx, struct pv_mr *mr, int flags,
			struct pv_pd *pd, void *addr, size_t length,
			unsigned int access);

	/* Sets ch->handle and ch->ibv.fd. */
	int (*create_channel)(struct pv_context *ctx, struct pv_channel *ch);
	int (*destroy_channel)(struct pv_context *ctx, struct pv_channel *ch);
	/* Blocks (unless the fd is non-blocking) for one completion event. */
	int (*read_cq_event)(struct pv_context *ctx, struct pv_channel *ch,
			     uint32_t *ret_cq_handle);

	/* Sets cq->handle and cq->ibv.cqe (actual depth). */
	int (*create_cq)(struct pv_context *ctx, struct pv_cq *cq, int cqe,
			 struct pv_channel *ch, int comp_vector);
	int (*resize_cq)(struct pv_context *ctx, struct pv_cq *cq, int cqe);
	int (*destroy_cq)(struct pv_context *ctx, struct pv_cq *cq);
	int (*req_notify_cq)(struct pv_context *ctx, struct pv_cq *cq,
			     int solicited_only);
	/* Returns the number of completions. */
	int (*poll_cq)(struct pv_context *ctx, struct pv_cq *cq, int n,
		       struct ibv_wc *wc);

	/* Sets qp->handle and qp->ibv.qp_num; updates attr->cap to what was
	 * granted.  The core has set qp->ibv.pd/send_cq/recv_cq/srq. */
	int (*create_qp)(struct pv_context *ctx, struct pv_qp *qp,
			 struct ibv_qp_init_attr_ex *attr);
	int (*modify_qp)(struct pv_context *ctx, struct pv_qp *qp,
			 struct ibv_qp_attr *attr, int mask);
	int (*query_qp)(struct pv_context *ctx, struct pv_qp *qp,
			struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr);
	int (*destroy_qp)(struct pv_context *ctx, struct pv_qp *qp);
	/* ibv_open_qp: another handle on an XRC_RECV QP of attr->xrcd's
	 * domain (the core checked the mask and type); sets qp->handle,
	 * qp->ibv.qp_num and qp->ibv.state.  destroy_qp drops it. */
	int (*open_qp)(struct pv_context *ctx, struct pv_qp *qp,
		       const struct ibv_qp_open_attr *attr);
	int (*post_send)(struct pv_context *ctx, struct pv_qp *qp,
			 struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct pv_context *ctx, struct pv_qp *qp,
			 struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

	/* Sets srq->handle; updates attr to what was granted. */
	int (*create_srq)(struct pv_context *ctx, struct pv_srq *srq,
			  struct ibv_srq_attr *attr);
	int (*modify_srq)(struct pv_context *ctx, struct pv_srq *srq,
			  struct ibv_srq_attr *attr, int mask);
	int (*query_srq)(struct pv_context *ctx, struct pv_srq *srq,
			 struct ibv_srq_attr *attr);
	int (*destroy_srq)(struct pv_context *ctx, struct pv_srq *srq);
	int (*post_srq_recv)(struct pv_context *ctx, struct pv_srq *srq,
			     struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);

	/* ibv_open_xrcd: fd -1 for a private domain, else the file naming
	 * a shared one (still the caller's); sets xrcd->handle. */
	int (*open_xrcd)(struct pv_context *ctx, struct pv_xrcd *xrcd, int fd,
			 int oflags);
	int (*close_xrcd)(struct pv_context *ctx, struct pv_xrcd *xrcd);

	/* Sets ah->ibv.handle. */
	int (*create_ah)(struct pv_context *ctx, struct pv_ah *ah,
			 struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct pv_context *ctx, struct pv_ah *ah);

	int (*attach_mcast)(struct pv_context *ctx, struct pv_qp *qp,
			    const union ibv_gid *gid, uint16_t lid);
	int (*detach_mcast)(struct pv_context *ctx, struct pv_qp *qp,
			    const union ibv_gid *gid, uint16_t lid);

	/* Reads one async event from the context's async_fd (blocking unless
	 * the app made it non-blocking: then -EAGAIN). */
	int (*read_async_event)(struct pv_context *ctx,
				struct pv_async_desc *ev);
};

struct pv_provider {
	const char *name;
	struct pv_provider_ops ops;
};

/* Providers compiled in; the list itself is in lv_provider.c. */
extern const struct pv_provider pv_soft_provider;

/* The provider's ops with NULL slots replaced by -EOPNOTSUPP defaults. */
const struct pv_provider_ops *lv_provider_ops(const struct pv_provider *prov);

#endif /* PV_PROVIDER_H */
