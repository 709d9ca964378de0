/* SPDX-License-Identifier: MIT */
/*
 * Verbs objects kept by the engine and the request handlers that make
 * them.  Every object belongs to the connection that created it, has a
 * per-connection handle, and counts the objects that use it ("users"):
 * destroying one that is still used fails with -EBUSY, as on hardware.
 */
#ifndef ENG_OBJ_H
#define ENG_OBJ_H

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_stats.h"

/* Data-path state of objects with rings or mapped memory (eng_dp.h). */
struct eng_dp_mr;
struct eng_dp_cq;
struct eng_dp_srq;
struct eng_dp_qp;

struct eng_obj {
	struct eng_list link;		/* in eng_conn.objs */
	struct eng_conn *conn;
	uint32_t kind;			/* enum pv_obj_kind */
	uint32_t handle;
	uint32_t users;
	/* Drops what this object holds (refs on others, device tables). */
	void (*release)(struct eng *e, struct eng_obj *o);
	/* Set on an object that may outlive its connection: called as the
	 * connection ends; true if it passed to another (not to be freed).
	 * A hook, so the generic code calls no kind's code by name. */
	bool (*hand_over)(struct eng *e, struct eng_obj *o);
};

struct eng_pd {
	struct eng_obj o;
};

struct eng_mr {
	struct eng_obj o;
	struct eng_pd *pd;
	uint64_t addr, length, iova;
	uint32_t access;
	uint32_t lkey, rkey;		/* random, distinct (eng_mrkey.h) */
	struct eng_dp_mr *dp;
};

/* A memory window (eng_mw.c): a range of an MR with its own rights,
 * reached remotely through its own rkey only while bound. */
struct eng_mw {
	struct eng_obj o;
	struct eng_pd *pd;
	uint32_t type;			/* IBV_MW_TYPE_1 or _2 */
	uint32_t rkey;			/* index (upper 24 bits) + key byte */
	struct eng_mr *mr;		/* bound to (a user of it); NULL: not */
	struct eng_qp *qp;		/* type 2: the QP it was bound through */
	uint64_t addr, length;
	uint32_t access;		/* IBV_ACCESS_REMOTE_* granted */
};

struct eng_channel {
	struct eng_obj o;
	int fd;				/* engine end; client got the peer */
};

struct eng_cq {
	struct eng_obj o;
	struct eng_channel *channel;	/* NULL: none */
	uint32_t cqe;
	uint32_t comp_vector;
	bool armed;
	bool solicited_only;
	struct eng_dp_cq *dp;		/* ring, once mapped */
};

/* An XRC domain a client opened (eng_xrcd.c): its handle on a domain,
 * which clients of one device that opened the same file share. */
struct eng_xrcd_dom;
struct eng_xrcd {
	struct eng_obj o;
	struct eng_xrcd_dom *dom;
};

struct eng_srq {
	struct eng_obj o;
	struct eng_pd *pd;
	uint32_t max_wr, max_sge, srq_limit;
	struct eng_dp_srq *dp;		/* ring, once mapped */
	/* XRC SRQs (IBA 19.2.5): their domain, the CQ receives complete
	 * on and the device-wide number XRC senders name; NULL/0 else. */
	struct eng_xrcd *xrcd;
	struct eng_cq *cq;
	uint32_t srq_num;
};

struct eng_qp {
	struct eng_obj o;
	struct eng_pd *pd;
	struct eng_cq *send_cq, *recv_cq;
	struct eng_srq *srq;
	uint32_t qp_num;
	uint32_t state;			/* enum ibv_qp_state */
	struct pv_ipc_qp_create init;	/* as created, cap as granted */
	struct pv_ipc_qp_attr attr;	/* last modified attributes */
	struct eng_dp_qp *dp;		/* rings, once mapped */
	struct eng_hwc hw;		/* its counters (eng_hwc.h) */
	/* IBV_QPT_XRC_RECV: its domain (pd, send_cq, recv_cq and srq are
	 * NULL but while the responder delivers a message: then the SRQ
	 * the message names, its PD and CQ, eng_xrcd_bind()). */
	struct eng_xrcd *xrcd;
	/* XRC_RECV: the other handles on it (struct eng_qp_open.link),
	 * other clients' or this one's (eng_qp_open.c). */
	struct eng_list openers;
};

/* Another handle on an XRC_RECV QP (ibv_open_qp(3)), of the client
 * that opened it; counted as a QP against that client's limit. */
struct eng_qp_open {
	struct eng_obj o;		/* kind ENG_OBJ_QP_OPEN */
	struct eng_qp *qp;
	struct eng_xrcd *xrcd;		/* the opener's, of the QP's domain */
	struct eng_list link;		/* in qp->openers */
};

struct eng_ah {
	struct eng_obj o;
	struct eng_pd *pd;
	struct pv_ipc_ah_attr attr;
};

/* One request being served. */
struct eng_req {
	struct eng *e;
	struct eng_conn *c;
	uint16_t op;
	const void *in;
	uint32_t in_len;
	void *out;			/* PV_IPC_MAX_PAYLOAD bytes */
	uint32_t out_len;
	int fds[PV_IPC_MAX_FDS];	/* sent with the reply, then closed */
	int nfds;
	int in_fds[PV_IPC_MAX_FDS];	/* came with the request; closed
					 * after it unless a handler took
					 * one (set to -1) */
	int in_nfds;
};

typedef int (*eng_handler_fn)(struct eng_req *r);

/* eng_objects.c: the generic part. */
void *eng_obj_create(struct eng_req *r, uint32_t kind, size_t size,
		     void (*release)(struct eng *, struct eng_obj *), int *err);
void *eng_obj_get(struct eng_conn *c, uint32_t handle, uint32_t kind);
int eng_obj_destroy(struct eng *e, struct eng_obj *o);
/* Objects of a kind a client may hold (limits table). */
uint64_t eng_obj_limit(uint32_t kind);
const char *eng_obj_kind_name(uint32_t kind);
/* Bumps limit_hits and returns err (for one-line limit checks).  Inline:
 * eng_quota.c, below eng_objects.c, counts its limits too. */
static inline int eng_limit_hit(int err)
{
	eng_stat_inc(limit_hits);
	return err;
}

/* eng_qp_open.c.  The QP a QP handle names: the client's own QP or one
 * it opened (with *ret_open then set, else NULL); NULL if neither. */
struct eng_qp *eng_qp_by_handle(struct eng_conn *c, uint32_t handle,
				struct eng_qp_open **ret_open);
int eng_op_qp_open(struct eng_req *r);
/* The QP's creator lets go of it (destroy or its connection's end)
 * while others hold it open: the QP passes to the first of them, whose
 * handle becomes the QP's own.  false (nothing done) if none. */
bool eng_qp_hand_over(struct eng *e, struct eng_qp *qp);
/* eng_events.c: an affiliated async event of qp to every client holding
 * a handle on it (its own, and each opener with its handle). */
void eng_qp_event(struct eng_qp *qp, uint32_t type);
/* The QP is freed: openers left (none, but for a device's end) lose it. */
void eng_qp_openers_drop(struct eng_qp *qp);

/* Handlers: eng_ctx.c */
int eng_op_hello(struct eng_req *r);
int eng_op_dev_list(struct eng_req *r);
/* The page a DEV_LIST / ADM_DEV_LIST request asks for (pv_ipc_list_req,
 * or none): the first slot to look at and how many entries to list, at
 * most `fit`.  -EINVAL (counted) for a payload of another size. */
struct eng_list_page {
	uint32_t first;
	uint32_t max;
};
int eng_list_page(const struct eng_req *r, uint32_t fit,
		  struct eng_list_page *pg);
int eng_op_dev_query(struct eng_req *r);
int eng_op_port_query(struct eng_req *r);
int eng_op_gid_query(struct eng_req *r);
int eng_op_pkey_query(struct eng_req *r);
int eng_op_ctx_open(struct eng_req *r);
int eng_op_channel_create(struct eng_req *r);
int eng_op_channel_destroy(struct eng_req *r);
/* eng_objects.c */
int eng_op_pd_alloc(struct eng_req *r);
int eng_op_pd_dealloc(struct eng_req *r);
int eng_op_mr_reg(struct eng_req *r);
int eng_op_mr_dereg(struct eng_req *r);
/* MR_REG's checks of access, range and size (eng_mr_rereg.c uses them
 * on the MR as rereg would leave it): 0 or -EINVAL. */
int eng_mr_check(const struct pv_ipc_mr_reg *in);
/* eng_mr_rereg.c */
int eng_op_mr_rereg(struct eng_req *r);
/* eng_mw.c */
int eng_op_mw_alloc(struct eng_req *r);
int eng_op_mw_dealloc(struct eng_req *r);
int eng_op_ah_create(struct eng_req *r);
int eng_op_ah_destroy(struct eng_req *r);
/* eng_cq.c */
int eng_op_cq_create(struct eng_req *r);
int eng_op_cq_resize(struct eng_req *r);
int eng_op_cq_destroy(struct eng_req *r);
int eng_op_cq_req_notify(struct eng_req *r);
/* eng_qp.c */
int eng_op_qp_create(struct eng_req *r);
int eng_op_qp_modify(struct eng_req *r);
int eng_op_qp_query(struct eng_req *r);
int eng_op_qp_destroy(struct eng_req *r);
/* eng_dp_drain.c: AH_DESTROY and QP_DESTROY as the dispatcher runs them:
 * the client's posted UD sends go first (bounded), then the object. */
int eng_op_ah_destroy_drain(struct eng_req *r);
int eng_op_qp_destroy_drain(struct eng_req *r);
int eng_op_srq_create(struct eng_req *r);
int eng_op_srq_modify(struct eng_req *r);
int eng_op_srq_query(struct eng_req *r);
int eng_op_srq_destroy(struct eng_req *r);
/* eng_xrcd.c */
int eng_op_xrcd(struct eng_req *r);
/* An XRC SRQ of dev by number, or NULL. */
struct eng_srq *eng_xrcd_srq_find(struct eng_dev *dev, uint32_t srq_num);
/* Whether two domain handles name one domain. */
bool eng_xrcd_same(const struct eng_xrcd *a, const struct eng_xrcd *b);

/* eng_admin.c */
int eng_op_adm_dev_add(struct eng_req *r);
int eng_op_adm_dev_del(struct eng_req *r);
int eng_op_adm_dev_list(struct eng_req *r);
int eng_op_adm_obj_list(struct eng_req *r);
int eng_op_adm_stats(struct eng_req *r);
/* eng_admin_hwc.c */
int eng_op_adm_hwc(struct eng_req *r);

#endif /* ENG_OBJ_H */
