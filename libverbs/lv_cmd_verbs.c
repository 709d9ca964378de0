/* SPDX-License-Identifier: MIT */
/*
 * The ibv_cmd_* family providers call (IBVERBS_PRIVATE_34), over the
 * uverbs write ABI (lv_cmd_write.c): each builds the kernel's core
 * payload, runs it, and fills the verbs object from the response as
 * rdma-core 44's cmd_*.c do.  The response's user_handle fields carry
 * our object pointers back in completion and async events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* Response buffer: the provider's (at least core-sized), or local. */
#define RESP(type, r, r_size, local)					\
	do {								\
		if (!(r) || (r_size) < sizeof(type)) {			\
			memset(&(local), 0, sizeof(local));		\
			(r) = &(local);					\
			(r_size) = sizeof(local);			\
		}							\
	} while (0)

LV_EXPORT int ibv_cmd_get_context(struct verbs_context *v, void *cmd,
				  size_t cmd_size,
				  struct ib_uverbs_get_context_resp *resp,
				  size_t resp_size);
LV_EXPORT int ibv_cmd_get_context(struct verbs_context *v, void *cmd,
				  size_t cmd_size,
				  struct ib_uverbs_get_context_resp *resp,
				  size_t resp_size)
{
	struct ib_uverbs_get_context core = { .response = 0 };
	struct ib_uverbs_get_context_resp local;
	int ret;

	RESP(struct ib_uverbs_get_context_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(&v->context, IB_USER_VERBS_CMD_GET_CONTEXT, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	v->context.async_fd = (int)resp->async_fd;
	v->context.num_comp_vectors = (int)resp->num_comp_vectors;
	return 0;
}

static void copy_device_attr(struct ibv_device_attr *a,
			     const struct ib_uverbs_query_device_resp *r)
{
	a->node_guid = r->node_guid;
	a->sys_image_guid = r->sys_image_guid;
	a->max_mr_size = r->max_mr_size;
	a->page_size_cap = r->page_size_cap;
	a->vendor_id = r->vendor_id;
	a->vendor_part_id = r->vendor_part_id;
	a->hw_ver = r->hw_ver;
	a->max_qp = (int)r->max_qp;
	a->max_qp_wr = (int)r->max_qp_wr;
	a->device_cap_flags = r->device_cap_flags;
	a->max_sge = (int)r->max_sge;
	a->max_sge_rd = (int)r->max_sge_rd;
	a->max_cq = (int)r->max_cq;
	a->max_cqe = (int)r->max_cqe;
	a->max_mr = (int)r->max_mr;
	a->max_pd = (int)r->max_pd;
	a->max_qp_rd_atom = (int)r->max_qp_rd_atom;
	a->max_ee_rd_atom = (int)r->max_ee_rd_atom;
	a->max_res_rd_atom = (int)r->max_res_rd_atom;
	a->max_qp_init_rd_atom = (int)r->max_qp_init_rd_atom;
	a->max_ee_init_rd_atom = (int)r->max_ee_init_rd_atom;
	a->atomic_cap = (enum ibv_atomic_cap)r->atomic_cap;
	a->max_ee = (int)r->max_ee;
	a->max_rdd = (int)r->max_rdd;
	a->max_mw = (int)r->max_mw;
	a->max_raw_ipv6_qp = (int)r->max_raw_ipv6_qp;
	a->max_raw_ethy_qp = (int)r->max_raw_ethy_qp;
	a->max_mcast_grp = (int)r->max_mcast_grp;
	a->max_mcast_qp_attach = (int)r->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = (int)r->max_total_mcast_qp_attach;
	a->max_ah = (int)r->max_ah;
	a->max_fmr = (int)r->max_fmr;
	a->max_map_per_fmr = (int)r->max_map_per_fmr;
	a->max_srq = (int)r->max_srq;
	a->max_srq_wr = (int)r->max_srq_wr;
	a->max_srq_sge = (int)r->max_srq_sge;
	a->max_pkeys = r->max_pkeys;
	a->local_ca_ack_delay = r->local_ca_ack_delay;
	a->phys_port_cnt = r->phys_port_cnt;
}

#define FITS(field, rfield)						\
	(attr_size >= offsetof(struct ibv_device_attr_ex, field) +	\
	 sizeof(attr->field) &&						\
	 resp->response_length >=					\
		 offsetof(struct ib_uverbs_ex_query_device_resp, rfield) + \
		 sizeof(resp->rfield))

/* The extended query, falling back to the legacy one on a kernel without
 * it (EOPNOTSUPP/ENOSYS), as rdma-core does. */
LV_EXPORT int ibv_cmd_query_device_any(struct ibv_context *c,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size,
			struct ib_uverbs_ex_query_device_resp *resp,
			size_t *resp_size);
LV_EXPORT int ibv_cmd_query_device_any(struct ibv_context *c,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size,
			struct ib_uverbs_ex_query_device_resp *resp,
			size_t *resp_size)
{
	struct ib_uverbs_ex_query_device_resp local;
	size_t local_size = sizeof(local);
	int ret;

	if ((input && input->comp_mask) || attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	if (!resp || !resp_size || *resp_size < sizeof(*resp)) {
		resp = &local;
		resp_size = &local_size;
	}
	memset(attr, 0, attr_size);
	if (attr_size > sizeof(attr->orig_attr)) {
		struct ib_uverbs_ex_query_device core = { 0 };

		ret = lv_cmd_write_ex(c, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				      NULL, 0, &core, sizeof(core), resp,
				      *resp_size, *resp_size);
		if (ret && ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
		if (ret)
			attr_size = sizeof(attr->orig_attr);
	}
	if (attr_size == sizeof(attr->orig_attr)) {
		struct ib_uverbs_query_device core = { .response = U64(&resp->base) };

		ret = lv_cmd_write(c, IB_USER_VERBS_CMD_QUERY_DEVICE, NULL, 0,
				   &core, sizeof(core), &resp->base,
				   sizeof(resp->base));
		if (ret)
			return ret;
		resp->response_length = sizeof(resp->base);
	}
	*resp_size = resp->response_length;
	copy_device_attr(&attr->orig_attr, &resp->base);
	if (FITS(completion_timestamp_mask, timestamp_mask))
		attr->completion_timestamp_mask = resp->timestamp_mask;
	if (FITS(hca_core_clock, hca_core_clock))
		attr->hca_core_clock = resp->hca_core_clock;
	if (FITS(device_cap_flags_ex, device_cap_flags_ex))
		attr->device_cap_flags_ex = resp->device_cap_flags_ex;
	if (FITS(max_wq_type_rq, max_wq_type_rq))
		attr->max_wq_type_rq = resp->max_wq_type_rq;
	if (FITS(raw_packet_caps, raw_packet_caps))
		attr->raw_packet_caps = resp->raw_packet_caps;
	if (FITS(max_dm_size, max_dm_size))
		attr->max_dm_size = resp->max_dm_size;
	return 0;
}

LV_EXPORT int ibv_cmd_query_port(struct ibv_context *c, uint8_t port_num,
				 struct ibv_port_attr *a, void *cmd,
				 size_t cmd_size);
LV_EXPORT int ibv_cmd_query_port(struct ibv_context *c, uint8_t port_num,
				 struct ibv_port_attr *a, void *cmd,
				 size_t cmd_size)
{
	struct ib_uverbs_query_port_resp r = { 0 };
	struct ib_uverbs_query_port core = {
		.response = U64(&r), .port_num = port_num,
	};
	int ret;

	ret = lv_cmd_write(c, IB_USER_VERBS_CMD_QUERY_PORT, cmd, cmd_size,
			   &core, sizeof(core), &r, sizeof(r));
	if (ret)
		return ret;
	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)r.state;
	a->max_mtu = (enum ibv_mtu)r.max_mtu;
	a->active_mtu = (enum ibv_mtu)r.active_mtu;
	a->gid_tbl_len = (int)r.gid_tbl_len;
	a->port_cap_flags = r.port_cap_flags;
	a->max_msg_sz = r.max_msg_sz;
	a->bad_pkey_cntr = r.bad_pkey_cntr;
	a->qkey_viol_cntr = r.qkey_viol_cntr;
	a->pkey_tbl_len = r.pkey_tbl_len;
	a->lid = r.lid;
	a->sm_lid = r.sm_lid;
	a->lmc = r.lmc;
	a->max_vl_num = r.max_vl_num;
	a->sm_sl = r.sm_sl;
	a->subnet_timeout = r.subnet_timeout;
	a->init_type_reply = r.init_type_reply;
	a->active_width = r.active_width;
	a->active_speed = r.active_speed;
	a->phys_state = r.phys_state;
	a->link_layer = r.link_layer;
	a->flags = r.flags;
	return 0;
}

LV_EXPORT int ibv_cmd_alloc_pd(struct ibv_context *c, struct ibv_pd *pd,
			       void *cmd, size_t cmd_size,
			       struct ib_uverbs_alloc_pd_resp *resp,
			       size_t resp_size);
LV_EXPORT int ibv_cmd_alloc_pd(struct ibv_context *c, struct ibv_pd *pd,
			       void *cmd, size_t cmd_size,
			       struct ib_uverbs_alloc_pd_resp *resp,
			       size_t resp_size)
{
	struct ib_uverbs_alloc_pd_resp local;
	struct ib_uverbs_alloc_pd core;
	int ret;

	RESP(struct ib_uverbs_alloc_pd_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(c, IB_USER_VERBS_CMD_ALLOC_PD, cmd, cmd_size, &core,
			   sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	pd->handle = resp->pd_handle;
	pd->context = c;
	return 0;
}

/* A destroy that failed with EIO on a disassociated device counts as
 * done when RDMAV_ALLOW_DISASSOC_DESTROY is set (rdma-core). */
extern bool verbs_allow_disassociate_destroy;
static int destroy_ret(int ret)
{
	return ret == EIO && verbs_allow_disassociate_destroy ? 0 : ret;
}

LV_EXPORT int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
LV_EXPORT int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	struct ib_uverbs_dealloc_pd core = { .pd_handle = pd->handle };

	return destroy_ret(lv_cmd_write(pd->context,
					IB_USER_VERBS_CMD_DEALLOC_PD, NULL, 0,
					&core, sizeof(core), NULL, 0));
}

LV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access,
			     struct verbs_mr *vmr, void *cmd, size_t cmd_size,
			     struct ib_uverbs_reg_mr_resp *resp,
			     size_t resp_size);
LV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access,
			     struct verbs_mr *vmr, void *cmd, size_t cmd_size,
			     struct ib_uverbs_reg_mr_resp *resp,
			     size_t resp_size)
{
	struct ib_uverbs_reg_mr_resp local;
	struct ib_uverbs_reg_mr core = {
		.start = U64(addr), .length = length, .hca_va = hca_va,
		.pd_handle = pd->handle, .access_flags = (uint32_t)access,
	};
	int ret;

	RESP(struct ib_uverbs_reg_mr_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(pd->context, IB_USER_VERBS_CMD_REG_MR, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	vmr->ibv_mr.handle = resp->mr_handle;
	vmr->ibv_mr.lkey = resp->lkey;
	vmr->ibv_mr.rkey = resp->rkey;
	vmr->ibv_mr.context = pd->context;
	vmr->mr_type = 0;		/* IBV_MR_TYPE_MR */
	vmr->access = access;
	return 0;
}

LV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
LV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	struct ib_uverbs_dereg_mr core = { .mr_handle = vmr->ibv_mr.handle };

	return destroy_ret(lv_cmd_write(vmr->ibv_mr.context,
					IB_USER_VERBS_CMD_DEREG_MR, NULL, 0,
					&core, sizeof(core), NULL, 0));
}

LV_EXPORT int ibv_cmd_create_cq(struct ibv_context *c, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector, struct ibv_cq *cq, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_create_cq_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_create_cq(struct ibv_context *c, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector, struct ibv_cq *cq, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_create_cq_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_create_cq_resp local;
	struct ib_uverbs_create_cq core = {
		.user_handle = U64(cq), .cqe = (uint32_t)cqe,
		.comp_vector = (uint32_t)comp_vector,
		.comp_channel = channel ? channel->fd : -1,
	};
	int ret;

	RESP(struct ib_uverbs_create_cq_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(c, IB_USER_VERBS_CMD_CREATE_CQ, cmd, cmd_size,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	cq->handle = resp->cq_handle;
	cq->cqe = (int)resp->cqe;
	cq->context = c;
	return 0;
}

/* Waits until the app acked what the kernel reported for the object. */
static void wait_acks(pthread_mutex_t *m, pthread_cond_t *cond,
		      const uint32_t *a, uint32_t want_a,
		      const uint32_t *b, uint32_t want_b)
{
	pthread_mutex_lock(m);
	while (*a != want_a || (b && *b != want_b))
		pthread_cond_wait(cond, m);
	pthread_mutex_unlock(m);
}

LV_EXPORT int ibv_cmd_destroy_cq(struct ibv_cq *cq);
LV_EXPORT int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq_resp r = { 0 };
	struct ib_uverbs_destroy_cq core = {
		.response = U64(&r), .cq_handle = cq->handle,
	};
	int ret = lv_cmd_write(cq->context, IB_USER_VERBS_CMD_DESTROY_CQ, NULL,
			       0, &core, sizeof(core), &r, sizeof(r));

	if (ret)
		return destroy_ret(ret);
	wait_acks(&cq->mutex, &cq->cond, &cq->comp_events_completed,
		  r.comp_events_reported, &cq->async_events_completed,
		  r.async_events_reported);
	return 0;
}

LV_EXPORT int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
LV_EXPORT int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq core = {
		.cq_handle = cq->handle, .solicited_only = !!solicited_only,
	};

	return lv_cmd_write(cq->context, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, NULL,
			    0, &core, sizeof(core), NULL, 0);
}

static void init_qp(struct ibv_qp *qp, struct ibv_pd *pd,
		    const struct ibv_qp_init_attr *attr,
		    const struct ib_uverbs_create_qp_resp *r)
{
	qp->handle = r->qp_handle;
	qp->qp_num = r->qpn;
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_RESET;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
}

LV_EXPORT int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
				struct ibv_qp_init_attr *attr, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_create_qp_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
				struct ibv_qp_init_attr *attr, void *cmd,
				size_t cmd_size,
				struct ib_uverbs_create_qp_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_create_qp_resp local;
	struct ib_uverbs_create_qp core = {
		.user_handle = U64(qp), .pd_handle = pd->handle,
		.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
		.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
		.srq_handle = attr->srq ? attr->srq->handle : 0,
		.max_send_wr = attr->cap.max_send_wr,
		.max_recv_wr = attr->cap.max_recv_wr,
		.max_send_sge = attr->cap.max_send_sge,
		.max_recv_sge = attr->cap.max_recv_sge,
		.max_inline_data = attr->cap.max_inline_data,
		.sq_sig_all = (uint8_t)attr->sq_sig_all,
		.qp_type = (uint8_t)attr->qp_type,
		.is_srq = !!attr->srq,
	};
	int ret;

	RESP(struct ib_uverbs_create_qp_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_QP, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	attr->cap.max_send_wr = resp->max_send_wr;
	attr->cap.max_recv_wr = resp->max_recv_wr;
	attr->cap.max_send_sge = resp->max_send_sge;
	attr->cap.max_recv_sge = resp->max_recv_sge;
	attr->cap.max_inline_data = resp->max_inline_data;
	init_qp(qp, pd, attr, resp);
	return 0;
}

static void qp_dest(struct ib_uverbs_qp_dest *d, const struct ibv_ah_attr *a)
{
	memcpy(d->dgid, a->grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = a->grh.flow_label;
	d->dlid = a->dlid;
	d->sgid_index = a->grh.sgid_index;
	d->hop_limit = a->grh.hop_limit;
	d->traffic_class = a->grh.traffic_class;
	d->sl = a->sl;
	d->src_path_bits = a->src_path_bits;
	d->static_rate = a->static_rate;
	d->is_global = a->is_global;
	d->port_num = a->port_num;
}

/* Pure: the core payload of a legacy modify_qp. */
void lv_cmd_modify_qp_core(struct ib_uverbs_modify_qp *m, uint32_t handle,
			   const struct ibv_qp_attr *a, int mask)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = handle;
	m->attr_mask = (uint32_t)mask;
	m->qkey = a->qkey;
	m->rq_psn = a->rq_psn;
	m->sq_psn = a->sq_psn;
	m->dest_qp_num = a->dest_qp_num;
	m->qp_access_flags = a->qp_access_flags;
	m->pkey_index = a->pkey_index;
	m->alt_pkey_index = a->alt_pkey_index;
	m->qp_state = (uint8_t)a->qp_state;
	m->cur_qp_state = (uint8_t)a->cur_qp_state;
	m->path_mtu = (uint8_t)a->path_mtu;
	m->path_mig_state = (uint8_t)a->path_mig_state;
	m->en_sqd_async_notify = a->en_sqd_async_notify;
	m->max_rd_atomic = a->max_rd_atomic;
	m->max_dest_rd_atomic = a->max_dest_rd_atomic;
	m->min_rnr_timer = a->min_rnr_timer;
	m->port_num = a->port_num;
	m->timeout = a->timeout;
	m->retry_cnt = a->retry_cnt;
	m->rnr_retry = a->rnr_retry;
	m->alt_port_num = a->alt_port_num;
	m->alt_timeout = a->alt_timeout;
	qp_dest(&m->dest, &a->ah_attr);
	qp_dest(&m->alt_dest, &a->alt_ah_attr);
}

LV_EXPORT int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask, void *cmd, size_t cmd_size);
LV_EXPORT int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask, void *cmd, size_t cmd_size)
{
	struct ib_uverbs_modify_qp core;

	/* The legacy command carries the first 21 mask bits only. */
	if (attr_mask & ~((1 << 21) - 1))
		return EOPNOTSUPP;
	lv_cmd_modify_qp_core(&core, qp->handle, attr, attr_mask);
	return lv_cmd_write(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, cmd,
			    cmd_size, &core, sizeof(core), NULL, 0);
}

LV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp);
LV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	struct ib_uverbs_destroy_qp_resp r = { 0 };
	struct ib_uverbs_destroy_qp core = {
		.response = U64(&r), .qp_handle = qp->handle,
	};
	int ret = lv_cmd_write(qp->context, IB_USER_VERBS_CMD_DESTROY_QP, NULL,
			       0, &core, sizeof(core), &r, sizeof(r));

	if (ret)
		return destroy_ret(ret);
	wait_acks(&qp->mutex, &qp->cond, &qp->events_completed,
		  r.events_reported, NULL, 0);
	return 0;
}

LV_EXPORT int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				struct ibv_ah_attr *attr,
				struct ib_uverbs_create_ah_resp *resp,
				size_t resp_size);
LV_EXPORT int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				struct ibv_ah_attr *attr,
				struct ib_uverbs_create_ah_resp *resp,
				size_t resp_size)
{
	struct ib_uverbs_create_ah_resp local;
	struct ib_uverbs_create_ah core = {
		.user_handle = U64(ah), .pd_handle = pd->handle,
		.attr = {
			.dlid = attr->dlid, .sl = attr->sl,
			.src_path_bits = attr->src_path_bits,
			.static_rate = attr->static_rate,
			.is_global = attr->is_global,
			.port_num = attr->port_num,
			.grh = {
				.flow_label = attr->grh.flow_label,
				.sgid_index = attr->grh.sgid_index,
				.hop_limit = attr->grh.hop_limit,
				.traffic_class = attr->grh.traffic_class,
			},
		},
	};
	int ret;

	memcpy(core.attr.grh.dgid, attr->grh.dgid.raw, 16);
	RESP(struct ib_uverbs_create_ah_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_AH, NULL, 0,
			   &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	ah->handle = resp->ah_handle;
	ah->context = pd->context;
	ah->pd = pd;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_ah(struct ibv_ah *ah);
LV_EXPORT int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	struct ib_uverbs_destroy_ah core = { .ah_handle = ah->handle };

	return destroy_ret(lv_cmd_write(ah->context,
					IB_USER_VERBS_CMD_DESTROY_AH, NULL, 0,
					&core, sizeof(core), NULL, 0));
}

LV_EXPORT int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
				 struct ibv_srq_init_attr *attr, void *cmd,
				 size_t cmd_size,
				 struct ib_uverbs_create_srq_resp *resp,
				 size_t resp_size);
LV_EXPORT int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
				 struct ibv_srq_init_attr *attr, void *cmd,
				 size_t cmd_size,
				 struct ib_uverbs_create_srq_resp *resp,
				 size_t resp_size)
{
	struct ib_uverbs_create_srq_resp local;
	struct ib_uverbs_create_srq core = {
		.user_handle = U64(srq), .pd_handle = pd->handle,
		.max_wr = attr->attr.max_wr, .max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	int ret;

	RESP(struct ib_uverbs_create_srq_resp, resp, resp_size, local);
	core.response = U64(resp);
	ret = lv_cmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_SRQ, cmd,
			   cmd_size, &core, sizeof(core), resp, resp_size);
	if (ret)
		return ret;
	srq->handle = resp->srq_handle;
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	attr->attr.max_wr = resp->max_wr;
	attr->attr.max_sge = resp->max_sge;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_srq(struct ibv_srq *srq);
LV_EXPORT int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	struct ib_uverbs_destroy_srq_resp r = { 0 };
	struct ib_uverbs_destroy_srq core = {
		.response = U64(&r), .srq_handle = srq->handle,
	};
	int ret = lv_cmd_write(srq->context, IB_USER_VERBS_CMD_DESTROY_SRQ,
			       NULL, 0, &core, sizeof(core), &r, sizeof(r));

	if (ret)
		return destroy_ret(ret);
	wait_acks(&srq->mutex, &srq->cond, &srq->events_completed,
		  r.events_reported, NULL, 0);
	return 0;
}

/* The context's async event fd comes with get_context on the write ABI;
 * a provider that made its context over ioctl has none yet. */
int lv_cmd_alloc_async_fd(struct ibv_context *c)
{
	if (c->async_fd >= 0)
		return 0;
	if (lv_kern_warn_on())
		fprintf(stderr, "libibverbs: Warning: %s has no async event "
			"fd (ibv_get_async_event will fail)\n",
			c->device->name);
	return 0;
}

/* A completion channel on a kernel context is a uverbs event fd. */
int lv_cmd_create_comp_channel(struct ibv_context *c, int *fd)
{
	struct ib_uverbs_create_comp_channel_resp r = { 0 };
	struct ib_uverbs_create_comp_channel core = { .response = U64(&r) };
	int ret = lv_cmd_write(c, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, NULL,
			       0, &core, sizeof(core), &r, sizeof(r));

	if (!ret)
		*fd = (int)r.fd;
	return ret;
}
