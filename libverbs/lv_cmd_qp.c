/* SPDX-License-Identifier: MIT */
/*
 * The QP commands of the provider ABI beyond ibv_cmd_create_qp/modify_qp
 * (lv_cmd_verbs.c): create_qp_ex (the legacy write command, the
 * provider's buffer laid out as struct ibv_create_qp), create_qp_ex2
 * (the extended one, struct ibv_create_qp_ex: create flags, source QPN,
 * RSS indirection tables), modify_qp_ex (rate limit), query_qp and
 * multicast attach/detach, with rdma-core 44's checks and the same
 * fields filled in the provider's verbs_qp.
 */
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* Create flags the extended command carries (rdma-core 44's set). */
#define LV_QP_EX_CREATE_FLAGS						\
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |	\
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |	\
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING)

/* The handles a create names, by QP type; a positive errno if the init
 * attributes lack what the type needs. */
struct qp_handles {
	uint32_t pd, send_cq, recv_cq;
	struct verbs_xrcd *xrcd;
};

static int qp_handles(struct ibv_qp_init_attr_ex *a, struct qp_handles *h)
{
	memset(h, 0, sizeof(*h));
	switch (a->qp_type) {
	case IBV_QPT_XRC_RECV:
		if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !a->xrcd)
			return EINVAL;
		h->xrcd = (struct verbs_xrcd *)a->xrcd;	/* xrcd is first */
		h->pd = h->xrcd->handle;
		return 0;
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_DRIVER:
		break;
	default:
		return EINVAL;
	}
	if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd)
		return EINVAL;
	h->pd = a->pd->handle;
	if (a->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) {
		/* An RSS QP receives through its table only. */
		if (a->cap.max_recv_wr || a->cap.max_recv_sge || a->recv_cq ||
		    a->srq || !a->rwq_ind_tbl)
			return EINVAL;
		if (a->cap.max_send_wr) {
			if (!a->send_cq)
				return EINVAL;
			h->send_cq = a->send_cq->handle;
		}
		return 0;
	}
	if (!a->send_cq)
		return EINVAL;
	h->send_cq = a->send_cq->handle;
	if (a->qp_type == IBV_QPT_XRC_SEND) {
		a->cap.max_recv_wr = 0;
		a->cap.max_recv_sge = 0;
		return 0;
	}
	if (!a->recv_cq)
		return EINVAL;
	h->recv_cq = a->recv_cq->handle;
	return 0;
}

static void set_qp(struct verbs_qp *vqp, struct ibv_context *c,
		   const struct ibv_qp_init_attr_ex *a,
		   const struct qp_handles *h,
		   const struct ib_uverbs_create_qp_resp *r)
{
	struct ibv_qp *qp = &vqp->qp;

	qp->context = c;
	qp->handle = r->qp_handle;
	qp->qp_num = r->qpn;
	qp->qp_context = a->qp_context;
	qp->pd = a->pd;
	qp->send_cq = a->send_cq;
	qp->recv_cq = a->recv_cq;
	qp->srq = a->srq;
	qp->qp_type = a->qp_type;
	qp->state = IBV_QPS_RESET;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	vqp->comp_mask = 0;
	if (a->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		vqp->comp_mask |= LV_VQP_XRCD;
		vqp->xrcd = h->xrcd;
	}
}

static void caps_from(struct ibv_qp_cap *cap,
		      const struct ib_uverbs_create_qp_resp *r)
{
	cap->max_send_wr = r->max_send_wr;
	cap->max_recv_wr = r->max_recv_wr;
	cap->max_send_sge = r->max_send_sge;
	cap->max_recv_sge = r->max_recv_sge;
	cap->max_inline_data = r->max_inline_data;
}

LV_EXPORT int ibv_cmd_create_qp_ex(struct ibv_context *c,
				   struct verbs_qp *vqp,
				   struct ibv_qp_init_attr_ex *a, void *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_create_qp_resp *resp,
				   size_t resp_size);
LV_EXPORT int ibv_cmd_create_qp_ex(struct ibv_context *c,
				   struct verbs_qp *vqp,
				   struct ibv_qp_init_attr_ex *a, void *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_create_qp_resp *resp,
				   size_t resp_size)
{
	struct ib_uverbs_create_qp_resp local;
	struct ib_uverbs_create_qp core = { 0 };
	struct qp_handles h;
	int ret;

	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
				       IBV_QP_INIT_ATTR_XRCD |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return errno = EINVAL;
	ret = qp_handles(a, &h);
	if (ret)
		return errno = ret;
	if (!resp || resp_size < sizeof(*resp)) {
		memset(&local, 0, sizeof(local));
		resp = &local;
		resp_size = sizeof(local);
	}
	core.response = U64(resp);
	core.user_handle = U64(&vqp->qp);
	core.pd_handle = h.pd;
	core.send_cq_handle = h.send_cq;
	core.recv_cq_handle = h.recv_cq;
	core.srq_handle = a->srq ? a->srq->handle : 0;
	core.is_srq = !!a->srq;
	core.max_send_wr = a->cap.max_send_wr;
	core.max_recv_wr = a->cap.max_recv_wr;
	core.max_send_sge = a->cap.max_send_sge;
	core.max_recv_sge = a->cap.max_recv_sge;
	core.max_inline_data = a->cap.max_inline_data;
	core.sq_sig_all = (uint8_t)!!a->sq_sig_all;
	core.qp_type = (uint8_t)a->qp_type;
	ret = lv_cmd_write(c, IB_USER_VERBS_CMD_CREATE_QP, cmd, cmd_size,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	caps_from(&a->cap, resp);
	set_qp(vqp, c, a, &h, resp);
	return 0;
}

LV_EXPORT int ibv_cmd_create_qp_ex2(struct ibv_context *c,
				    struct verbs_qp *vqp,
				    struct ibv_qp_init_attr_ex *a, void *cmd,
				    size_t cmd_size,
				    struct ib_uverbs_ex_create_qp_resp *resp,
				    size_t resp_size);
LV_EXPORT int ibv_cmd_create_qp_ex2(struct ibv_context *c,
				    struct verbs_qp *vqp,
				    struct ibv_qp_init_attr_ex *a, void *cmd,
				    size_t cmd_size,
				    struct ib_uverbs_ex_create_qp_resp *resp,
				    size_t resp_size)
{
	struct ib_uverbs_ex_create_qp_resp local;
	struct ib_uverbs_ex_create_qp core = { 0 };
	struct qp_handles h;
	int ret;

	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
				       IBV_QP_INIT_ATTR_XRCD |
				       IBV_QP_INIT_ATTR_CREATE_FLAGS |
				       IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
				       IBV_QP_INIT_ATTR_IND_TABLE |
				       IBV_QP_INIT_ATTR_RX_HASH |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return errno = EINVAL;
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (a->create_flags & ~(uint32_t)LV_QP_EX_CREATE_FLAGS))
		return errno = EINVAL;
	ret = qp_handles(a, &h);
	if (ret)
		return errno = ret;
	if (!resp || resp_size < sizeof(*resp)) {
		resp = &local;
		resp_size = sizeof(local);
	}
	core.user_handle = U64(&vqp->qp);
	core.pd_handle = h.pd;
	core.send_cq_handle = h.send_cq;
	core.recv_cq_handle = h.recv_cq;
	core.srq_handle = a->srq ? a->srq->handle : 0;
	core.is_srq = !!a->srq;
	core.max_send_wr = a->cap.max_send_wr;
	core.max_recv_wr = a->cap.max_recv_wr;
	core.max_send_sge = a->cap.max_send_sge;
	core.max_recv_sge = a->cap.max_recv_sge;
	core.max_inline_data = a->cap.max_inline_data;
	core.sq_sig_all = (uint8_t)!!a->sq_sig_all;
	core.qp_type = (uint8_t)a->qp_type;
	if (a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) {
		core.create_flags = a->create_flags;
		if (a->create_flags & IBV_QP_CREATE_SOURCE_QPN)
			core.source_qpn = a->source_qpn;
	}
	if (a->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) {
		core.rwq_ind_tbl_handle = (uint32_t)a->rwq_ind_tbl->ind_tbl_handle;
		core.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
	}
	ret = lv_cmd_write_ex(c, IB_USER_VERBS_EX_CMD_CREATE_QP, cmd, cmd_size,
			      &core, sizeof(core), resp, sizeof(*resp),
			      resp_size);
	if (ret)
		return ret;
	caps_from(&a->cap, &resp->base);
	set_qp(vqp, c, a, &h, &resp->base);
	return 0;
}

LV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				   int mask, void *cmd, size_t cmd_size,
				   struct ib_uverbs_ex_modify_qp_resp *resp,
				   size_t resp_size);
LV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				   int mask, void *cmd, size_t cmd_size,
				   struct ib_uverbs_ex_modify_qp_resp *resp,
				   size_t resp_size)
{
	struct ib_uverbs_ex_modify_qp_resp local;
	struct ib_uverbs_ex_modify_qp core = { .rate_limit = 0 };
	int ret;

	/* The mask bits up to IBV_QP_RATE_LIMIT. */
	if (mask & ~((IBV_QP_RATE_LIMIT << 1) - 1))
		return EOPNOTSUPP;
	lv_cmd_modify_qp_core(&core.base, qp->handle, attr, mask);
	if (mask & IBV_QP_RATE_LIMIT)
		core.rate_limit = attr->rate_limit;
	if (!resp || resp_size < sizeof(*resp)) {
		resp = &local;
		resp_size = sizeof(local);
	}
	ret = lv_cmd_write_ex(qp->context, IB_USER_VERBS_EX_CMD_MODIFY_QP, cmd,
			      cmd_size, &core, sizeof(core), resp,
			      sizeof(*resp), resp_size);
	if (!ret && (mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

static void ah_from(struct ibv_ah_attr *ah, const struct ib_uverbs_qp_dest *d)
{
	memcpy(ah->grh.dgid.raw, d->dgid, sizeof(ah->grh.dgid.raw));
	ah->grh.flow_label = d->flow_label;
	ah->grh.sgid_index = d->sgid_index;
	ah->grh.hop_limit = d->hop_limit;
	ah->grh.traffic_class = d->traffic_class;
	ah->dlid = d->dlid;
	ah->sl = d->sl;
	ah->src_path_bits = d->src_path_bits;
	ah->static_rate = d->static_rate;
	ah->is_global = d->is_global;
	ah->port_num = d->port_num;
}

static void qp_attr_from(struct ibv_qp_attr *a,
			 const struct ib_uverbs_query_qp_resp *r)
{
	a->qkey = r->qkey;
	a->rq_psn = r->rq_psn;
	a->sq_psn = r->sq_psn;
	a->dest_qp_num = r->dest_qp_num;
	a->qp_access_flags = (unsigned int)r->qp_access_flags;
	a->pkey_index = r->pkey_index;
	a->alt_pkey_index = r->alt_pkey_index;
	a->qp_state = (enum ibv_qp_state)r->qp_state;
	a->cur_qp_state = (enum ibv_qp_state)r->cur_qp_state;
	a->path_mtu = (enum ibv_mtu)r->path_mtu;
	a->path_mig_state = (enum ibv_mig_state)r->path_mig_state;
	a->sq_draining = r->sq_draining;
	a->max_rd_atomic = r->max_rd_atomic;
	a->max_dest_rd_atomic = r->max_dest_rd_atomic;
	a->min_rnr_timer = r->min_rnr_timer;
	a->port_num = r->port_num;
	a->timeout = r->timeout;
	a->retry_cnt = r->retry_cnt;
	a->rnr_retry = r->rnr_retry;
	a->alt_port_num = r->alt_port_num;
	a->alt_timeout = r->alt_timeout;
	a->cap.max_send_wr = r->max_send_wr;
	a->cap.max_recv_wr = r->max_recv_wr;
	a->cap.max_send_sge = r->max_send_sge;
	a->cap.max_recv_sge = r->max_recv_sge;
	a->cap.max_inline_data = r->max_inline_data;
	ah_from(&a->ah_attr, &r->dest);
	ah_from(&a->alt_ah_attr, &r->alt_dest);
}

LV_EXPORT int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			       int mask, struct ibv_qp_init_attr *init,
			       void *cmd, size_t cmd_size);
LV_EXPORT int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			       int mask, struct ibv_qp_init_attr *init,
			       void *cmd, size_t cmd_size)
{
	struct ib_uverbs_query_qp_resp r;
	struct ib_uverbs_query_qp core = {
		.response = U64(&r), .qp_handle = qp->handle,
		.attr_mask = (uint32_t)mask,
	};
	int ret;

	/* From IBV_QP_RATE_LIMIT on, attributes need the extended path. */
	if (mask & ~(IBV_QP_RATE_LIMIT - 1))
		return EOPNOTSUPP;
	memset(&r, 0, sizeof(r));
	ret = lv_cmd_write(qp->context, IB_USER_VERBS_CMD_QUERY_QP, cmd,
			   cmd_size, &core, sizeof(core), &r, sizeof(r));
	if (ret)
		return ret;
	qp_attr_from(attr, &r);
	init->qp_context = qp->qp_context;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->qp_type = qp->qp_type;
	init->cap = attr->cap;
	init->sq_sig_all = r.sq_sig_all;
	return 0;
}

static int mcast(struct ibv_qp *qp, uint32_t command,
		 const union ibv_gid *gid, uint16_t lid)
{
	/* attach and detach share one layout. */
	struct ib_uverbs_attach_mcast core = {
		.qp_handle = qp->handle, .mlid = lid,
	};

	_Static_assert(sizeof(struct ib_uverbs_attach_mcast) ==
		       sizeof(struct ib_uverbs_detach_mcast), "mcast layout");
	memcpy(core.gid, gid->raw, sizeof(core.gid));
	return lv_cmd_write(qp->context, command, NULL, 0, &core, sizeof(core),
			    NULL, 0);
}

LV_EXPORT int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid);
LV_EXPORT int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	return mcast(qp, IB_USER_VERBS_CMD_ATTACH_MCAST, gid, lid);
}

LV_EXPORT int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid);
LV_EXPORT int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	return mcast(qp, IB_USER_VERBS_CMD_DETACH_MCAST, gid, lid);
}
