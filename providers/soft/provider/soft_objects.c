/* SPDX-License-Identifier: MIT */
/* PDs, MRs, CQs, SRQs and AHs over the engine IPC. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/provider/soft_provider.h"

#define CONN(ctx) (&soft_ctx_of(ctx)->conn)

/* A destroy succeeds once the engine is gone: it freed everything of
 * ours when our connection dropped (and the app must be able to clean
 * up after IBV_EVENT_DEVICE_FATAL). */
int soft_destroy_handle(struct pv_context *ctx, uint16_t op, uint32_t handle)
{
	struct soft_ctx *sc = soft_ctx_of(ctx);
	struct pv_ipc_handle h = { .handle = handle };
	int ret;

	ret = soft_call_fixed(&sc->conn, op, &h, sizeof(h), NULL, 0);
	if (ret == -ECONNRESET || ret == -EPIPE || ret == -ENOTCONN) {
		atomic_store(&sc->dead, true);
		soft_death_flush(sc);
		return 0;
	}
	return ret;
}

int soft_alloc_pd(struct pv_context *ctx, struct pv_pd *pd)
{
	struct pv_ipc_handle h;
	int ret;

	ret = soft_call_fixed(CONN(ctx), PV_OP_PD_ALLOC, NULL, 0, &h,
			      sizeof(h));
	if (ret < 0)
		return ret;
	pd->handle = h.handle;
	return 0;
}

int soft_dealloc_pd(struct pv_context *ctx, struct pv_pd *pd)
{
	return soft_destroy_handle(ctx, PV_OP_PD_DEALLOC, pd->handle);
}

/* PODVERBS_DEBUG: why an MR verb failed before reaching the engine. */
static void mr_debug(const char *verb, const void *addr, size_t length,
		     int err, const char *why)
{
	if (getenv("PODVERBS_DEBUG"))
		fprintf(stderr, "podverbs: %s(%p, %zu): %s: %s\n", verb, addr,
			length, strerror(err), why);
}

int soft_reg_mr(struct pv_context *ctx, struct pv_pd *pd, struct pv_mr *mr,
		uint64_t iova, unsigned int access)
{
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing backing;
	} req = {
		.reg = {
			.pd_handle = pd->handle,
			.access = access,
			.addr = (uintptr_t)mr->ibv.addr,
			.length = mr->ibv.length,
			.iova = iova,
		},
	};
	struct pv_ipc_mr_reg_resp resp;
	struct soft_mr_share share;
	struct soft_mr *m;
	int ret;

	_Static_assert(sizeof(req) == sizeof(req.reg) + sizeof(req.backing),
		       "MR_REG request packing");
	if (soft_odp_implicit(mr->ibv.addr, mr->ibv.length, access)) {
		mr_debug("ibv_reg_mr", mr->ibv.addr, mr->ibv.length, EINVAL,
			 "implicit on-demand paging (the whole address "
			 "space) is not supported: register the buffers "
			 "with IBV_ACCESS_ON_DEMAND instead");
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	soft_mr_share_get(mr->ibv.addr, mr->ibv.length, &share);
	if (share.fd < 0) {
		/* The engine reaches memory only through a memfd; without
		 * one the region cannot be registered (no silent fallback). */
		mr_debug("ibv_reg_mr", mr->ibv.addr, mr->ibv.length,
			 EOPNOTSUPP, share.why);
		free(m);
		return -EOPNOTSUPP;
	}
	req.backing.has_fd = 1;
	req.backing.fd_offset = share.fd_offset;
	ret = soft_call_fds(CONN(ctx), PV_OP_MR_REG, &req, sizeof(req),
			    &share.fd, 1, &resp, sizeof(resp));
	if (ret < 0) {
		soft_mr_share_put(share.ref);
		free(m);
		return ret;
	}
	mr->handle = resp.handle;
	mr->ibv.lkey = resp.lkey;
	mr->ibv.rkey = resp.rkey;
	*m = (struct soft_mr){
		.lkey = resp.lkey, .pd_handle = pd->handle, .iova = iova,
		.addr = (uintptr_t)mr->ibv.addr, .length = mr->ibv.length,
		.access = access, .share = share.ref,
	};
	soft_mr_tab_add(soft_ctx_of(ctx)->mrs, m);
	mr->priv = m;
	return 0;
}

int soft_dereg_mr(struct pv_context *ctx, struct pv_mr *mr)
{
	int ret = soft_destroy_handle(ctx, PV_OP_MR_DEREG, mr->handle);
	struct soft_mr *m = mr->priv;

	if (ret < 0)
		return ret;
	soft_mr_tab_remove(soft_ctx_of(ctx)->mrs, m);
	soft_mr_share_put(m->share);
	free(m);
	mr->priv = NULL;
	return 0;
}

/* ibv_rereg_mr: a new range is shared with the engine as ibv_reg_mr
 * shares one (its own memfd, passed with the request); the old range's
 * share is dropped only once the engine took the new one. */
int soft_rereg_mr(struct pv_context *ctx, struct pv_mr *mr, int flags,
		  struct pv_pd *pd, void *addr, size_t length,
		  unsigned int access)
{
	struct {
		struct pv_ipc_mr_rereg rr;
		struct pv_ipc_mr_backing backing;
	} req = {
		.rr = {
			.mr_handle = mr->handle,
			.flags = (uint32_t)flags,
			.pd_handle = pd ? pd->handle : 0,
			.access = access,
			.addr = (uintptr_t)addr,
			.length = length,
			.iova = (uintptr_t)addr,	/* as rdma-core's */
		},
	};
	struct soft_mr_share share = { .fd = -1 };
	struct pv_ipc_mr_reg_resp resp;
	struct soft_mr *m = mr->priv;
	struct soft_mr now = *m;
	int ret;

	if (!(flags & IBV_REREG_MR_CHANGE_TRANSLATION)) {
		ret = soft_call_fixed(CONN(ctx), PV_OP_MR_REREG, &req.rr,
				      sizeof(req.rr), &resp, sizeof(resp));
		if (ret < 0)
			return ret;
		goto out;
	}
	soft_mr_share_get(addr, length, &share);
	if (share.fd < 0) {
		mr_debug("ibv_rereg_mr", addr, length, EOPNOTSUPP, share.why);
		return -EOPNOTSUPP;
	}
	req.backing.has_fd = 1;
	req.backing.fd_offset = share.fd_offset;
	ret = soft_call_fds(CONN(ctx), PV_OP_MR_REREG, &req, sizeof(req),
			    &share.fd, 1, &resp, sizeof(resp));
	if (ret < 0) {
		soft_mr_share_put(share.ref);
		return ret;
	}
	soft_mr_share_put(m->share);
	m->share = share.ref;
	now.iova = (uintptr_t)addr;
	now.addr = (uintptr_t)addr;
	now.length = length;
out:
	mr->ibv.lkey = resp.lkey;
	mr->ibv.rkey = resp.rkey;
	now.lkey = resp.lkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		now.pd_handle = pd->handle;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		now.access = access;
	soft_mr_tab_update(soft_ctx_of(ctx)->mrs, m, &now);
	return 0;
}

/* The engine without rings (an older one, or a test double) still serves
 * the control plane; the data-path verbs then fail with EOPNOTSUPP. */
static bool has_rings(struct pv_context *ctx)
{
	return soft_ctx_of(ctx)->page != NULL;
}

int soft_create_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe,
		   struct pv_channel *ch, int comp_vector)
{
	struct pv_ipc_cq_create req = {
		.cqe = (uint32_t)cqe,
		.channel_handle = ch ? ch->handle : 0,
		.comp_vector = (uint32_t)comp_vector,
	};
	struct pv_ipc_cq_resp resp;
	int ret;

	if (cq->is_ex) {
		ret = soft_cq_ex_check_flags(cq->wc_flags);
		if (ret < 0)
			return ret;
	}
	ret = soft_call_fixed(CONN(ctx), PV_OP_CQ_CREATE, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0)
		return ret;
	cq->handle = resp.handle;
	cq->ibv.cqe = (int)resp.cqe;
	if (!has_rings(ctx))
		return 0;
	ret = soft_cq_map(soft_ctx_of(ctx), cq);
	if (ret < 0) {
		soft_destroy_handle(ctx, PV_OP_CQ_DESTROY, cq->handle);
		return ret;
	}
	if (cq->is_ex) {
		struct soft_cq_dp *d = cq->priv;
		const struct pv_pd *pdom = (const struct pv_pd *)cq->pd;

		/* A parent domain with a thread domain promises one thread,
		 * as the flag does. */
		d->single_threaded = (cq->create_flags &
				      IBV_CREATE_CQ_ATTR_SINGLE_THREADED) ||
				     (pdom && pdom->td);
		soft_cq_ex_install(cq);
	}
	return 0;
}

/* Holds the CQ's lock across resize and re-map so no poller reads the
 * old ring after the engine has moved on to the new one. */
int soft_resize_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe)
{
	struct pv_ipc_cq_create req = {
		.cqe = (uint32_t)cqe, .cq_handle = cq->handle,
	};
	struct soft_cq_dp *d = cq->priv;
	struct pv_ipc_cq_resp resp;
	int ret;

	if (d)
		pthread_spin_lock(&d->lock);
	ret = soft_call_fixed(CONN(ctx), PV_OP_CQ_RESIZE, &req, sizeof(req),
			      &resp, sizeof(resp));
	if (ret < 0)
		goto out_unlock;
	cq->ibv.cqe = (int)resp.cqe;
	if (d)
		ret = soft_cq_remap(soft_ctx_of(ctx), cq);
out_unlock:
	if (d)
		pthread_spin_unlock(&d->lock);
	return ret;
}

int soft_destroy_cq(struct pv_context *ctx, struct pv_cq *cq)
{
	int ret = soft_destroy_handle(ctx, PV_OP_CQ_DESTROY, cq->handle);

	if (ret < 0)
		return ret;
	soft_cq_unmap(cq);
	return 0;
}

int soft_req_notify_cq(struct pv_context *ctx, struct pv_cq *cq, int solicited)
{
	struct pv_ipc_cq_notify req = {
		.cq_handle = cq->handle, .solicited_only = solicited ? 1 : 0,
	};

	if (cq->priv)
		return -soft_arm_cq(&cq->ibv, solicited);
	return soft_call_fixed(CONN(ctx), PV_OP_CQ_REQ_NOTIFY, &req,
			       sizeof(req), NULL, 0);
}

static void srq_attr_from_resp(const struct pv_ipc_srq_resp *r,
			       struct ibv_srq_attr *attr)
{
	attr->max_wr = r->max_wr;
	attr->max_sge = r->max_sge;
	attr->srq_limit = r->srq_limit;
}

int soft_create_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr)
{
	struct pv_ipc_srq req = {
		.pd_handle = ((struct pv_pd *)srq->ibv.pd)->handle,
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.srq_limit = attr->srq_limit,
		.xrcd_handle = srq->xrcd ? srq->xrcd->handle : 0,
		.cq_handle = srq->cq ? ((struct pv_cq *)srq->cq)->handle : 0,
	};
	struct pv_ipc_srq_resp resp;
	uint32_t got;
	int ret;

	ret = soft_call_grown(CONN(ctx), PV_OP_SRQ_CREATE, &req, sizeof(req),
			      &resp, sizeof(resp), PV_SRQ_RESP_V1_SIZE, &got);
	if (ret < 0)
		return ret;
	/* An engine that predates XRC made a basic SRQ of it. */
	if (srq->xrcd && got < sizeof(resp)) {
		soft_destroy_handle(ctx, PV_OP_SRQ_DESTROY, resp.handle);
		return -EOPNOTSUPP;
	}
	srq->handle = resp.handle;
	srq->srq_num = resp.srq_num;
	srq_attr_from_resp(&resp, attr);
	if (!has_rings(ctx))
		return 0;
	ret = soft_srq_map(soft_ctx_of(ctx), srq, resp.max_sge, resp.max_wr);
	if (ret < 0)
		soft_destroy_handle(ctx, PV_OP_SRQ_DESTROY, srq->handle);
	return ret;
}

/* Holds the SRQ's lock across the modify and the re-map of a grown ring
 * (as soft_resize_cq does): a post in between would land in the old ring
 * after the engine moved its WQEs to the new one. */
int soft_modify_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr, int mask)
{
	struct pv_ipc_srq req = {
		.srq_handle = srq->handle,
		.max_wr = attr->max_wr,
		.srq_limit = attr->srq_limit,
		.attr_mask = (uint32_t)mask,
	};
	struct pv_ipc_srq_resp resp;
	struct soft_srq_dp *d = srq->priv;
	uint32_t got = 0;
	int ret;

	if (d)
		pthread_spin_lock(&d->lock);
	ret = soft_call(CONN(ctx), PV_OP_SRQ_MODIFY, &req, sizeof(req), &resp,
			sizeof(resp), &got, NULL, NULL);
	if (ret < 0)
		goto out_unlock;
	/* A reply with the new sizes is optional. */
	if (got >= PV_SRQ_RESP_V1_SIZE && (mask & IBV_SRQ_MAX_WR))
		attr->max_wr = resp.max_wr;
	/* The engine made a larger ring exactly when max_wr outgrew ours. */
	if (d && (mask & IBV_SRQ_MAX_WR) && attr->max_wr > d->ring.num_entries)
		ret = soft_srq_remap(soft_ctx_of(ctx), srq, attr->max_wr);
out_unlock:
	if (d)
		pthread_spin_unlock(&d->lock);
	return ret;
}

int soft_query_srq(struct pv_context *ctx, struct pv_srq *srq,
		   struct ibv_srq_attr *attr)
{
	struct pv_ipc_handle h = { .handle = srq->handle };
	struct pv_ipc_srq_resp resp;
	int ret;

	ret = soft_call_grown(CONN(ctx), PV_OP_SRQ_QUERY, &h, sizeof(h), &resp,
			      sizeof(resp), PV_SRQ_RESP_V1_SIZE, NULL);
	if (ret < 0)
		return ret;
	srq_attr_from_resp(&resp, attr);
	return 0;
}

int soft_destroy_srq(struct pv_context *ctx, struct pv_srq *srq)
{
	int ret = soft_destroy_handle(ctx, PV_OP_SRQ_DESTROY, srq->handle);

	if (ret < 0)
		return ret;
	soft_srq_unmap(srq);
	return 0;
}

int soft_create_ah(struct pv_context *ctx, struct pv_ah *ah,
		   struct ibv_ah_attr *attr)
{
	struct pv_ipc_ah_create req = {
		.pd_handle = ((struct pv_pd *)ah->ibv.pd)->handle,
	};
	struct pv_ipc_handle h;
	int ret;

	soft_ah_attr_to_ipc(attr, &req.attr);
	ret = soft_call_fixed(CONN(ctx), PV_OP_AH_CREATE, &req, sizeof(req),
			      &h, sizeof(h));
	if (ret < 0)
		return ret;
	ah->ibv.handle = h.handle;
	return 0;
}

int soft_destroy_ah(struct pv_context *ctx, struct pv_ah *ah)
{
	return soft_destroy_handle(ctx, PV_OP_AH_DESTROY, ah->ibv.handle);
}

/* ibv_attach_mcast / ibv_detach_mcast: the engine keeps the group
 * membership and checks it all (eng_mcast.h). */
static int mcast_call(struct pv_context *ctx, uint16_t op, struct pv_qp *qp,
		      const union ibv_gid *gid, uint16_t lid)
{
	struct soft_ctx *sc = soft_ctx_of(ctx);
	struct pv_ipc_qp_mcast req = { .qp_handle = qp->handle, .lid = lid };

	if (!gid)
		return -EINVAL;
	memcpy(req.gid, gid->raw, sizeof(req.gid));
	return soft_call_fixed(&sc->conn, op, &req, sizeof(req), NULL, 0);
}

int soft_attach_mcast(struct pv_context *ctx, struct pv_qp *qp,
		      const union ibv_gid *gid, uint16_t lid)
{
	return mcast_call(ctx, PV_OP_QP_MCAST_ATTACH, qp, gid, lid);
}

int soft_detach_mcast(struct pv_context *ctx, struct pv_qp *qp,
		      const union ibv_gid *gid, uint16_t lid)
{
	return mcast_call(ctx, PV_OP_QP_MCAST_DETACH, qp, gid, lid);
}

/* XRC domains: the engine keys a shared one by the file's inode. */
int soft_open_xrcd(struct pv_context *ctx, struct pv_xrcd *xrcd, int fd,
		   int oflags)
{
	struct pv_ipc_xrcd req = {
		.cmd = PV_XRCD_OPEN,
		.oflags = (uint32_t)oflags & (O_CREAT | O_EXCL),
	};
	struct pv_ipc_handle resp;
	int ret;

	ret = soft_call_fds(CONN(ctx), PV_OP_XRCD, &req, sizeof(req), &fd,
			    fd >= 0 ? 1 : 0, &resp, sizeof(resp));
	if (ret < 0)
		return ret;
	xrcd->handle = resp.handle;
	return 0;
}

int soft_close_xrcd(struct pv_context *ctx, struct pv_xrcd *xrcd)
{
	struct pv_ipc_xrcd req = {
		.cmd = PV_XRCD_CLOSE, .handle = xrcd->handle,
	};

	return soft_call_fixed(CONN(ctx), PV_OP_XRCD, &req, sizeof(req),
			       NULL, 0);
}
