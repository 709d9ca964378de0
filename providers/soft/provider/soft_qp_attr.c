/* SPDX-License-Identifier: MIT */
/*
 * Pure translation between the verbs attribute structs and their fixed-
 * width IPC mirrors (pv-soft-abi.h); values keep their ibv_* meanings.
 */
#include <string.h>

#include "providers/soft/provider/soft_provider.h"

void soft_ah_attr_to_ipc(const struct ibv_ah_attr *in,
			 struct pv_ipc_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->dgid, in->grh.dgid.raw, sizeof(out->dgid));
	out->flow_label = in->grh.flow_label;
	out->sgid_index = in->grh.sgid_index;
	out->hop_limit = in->grh.hop_limit;
	out->traffic_class = in->grh.traffic_class;
	out->is_global = in->is_global;
	out->dlid = in->dlid;
	out->sl = in->sl;
	out->src_path_bits = in->src_path_bits;
	out->static_rate = in->static_rate;
	out->port_num = in->port_num;
}

void soft_ah_attr_from_ipc(const struct pv_ipc_ah_attr *in,
			   struct ibv_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->grh.dgid.raw, in->dgid, sizeof(in->dgid));
	out->grh.flow_label = in->flow_label;
	out->grh.sgid_index = in->sgid_index;
	out->grh.hop_limit = in->hop_limit;
	out->grh.traffic_class = in->traffic_class;
	out->is_global = in->is_global;
	out->dlid = in->dlid;
	out->sl = in->sl;
	out->src_path_bits = in->src_path_bits;
	out->static_rate = in->static_rate;
	out->port_num = in->port_num;
}

void soft_qp_cap_to_ipc(const struct ibv_qp_cap *in, struct pv_ipc_qp_cap *out)
{
	memset(out, 0, sizeof(*out));
	out->max_send_wr = in->max_send_wr;
	out->max_recv_wr = in->max_recv_wr;
	out->max_send_sge = in->max_send_sge;
	out->max_recv_sge = in->max_recv_sge;
	out->max_inline_data = in->max_inline_data;
}

void soft_qp_cap_from_ipc(const struct pv_ipc_qp_cap *in,
			  struct ibv_qp_cap *out)
{
	out->max_send_wr = in->max_send_wr;
	out->max_recv_wr = in->max_recv_wr;
	out->max_send_sge = in->max_send_sge;
	out->max_recv_sge = in->max_recv_sge;
	out->max_inline_data = in->max_inline_data;
}

void soft_qp_attr_to_ipc(const struct ibv_qp_attr *in,
			 struct pv_ipc_qp_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->qp_state = in->qp_state;
	out->cur_qp_state = in->cur_qp_state;
	out->path_mtu = in->path_mtu;
	out->path_mig_state = in->path_mig_state;
	out->qkey = in->qkey;
	out->rq_psn = in->rq_psn;
	out->sq_psn = in->sq_psn;
	out->dest_qp_num = in->dest_qp_num;
	out->qp_access_flags = (uint32_t)in->qp_access_flags;
	out->pkey_index = in->pkey_index;
	out->alt_pkey_index = in->alt_pkey_index;
	soft_qp_cap_to_ipc(&in->cap, &out->cap);
	soft_ah_attr_to_ipc(&in->ah_attr, &out->ah_attr);
	soft_ah_attr_to_ipc(&in->alt_ah_attr, &out->alt_ah_attr);
	out->en_sqd_async_notify = in->en_sqd_async_notify;
	out->sq_draining = in->sq_draining;
	out->max_rd_atomic = in->max_rd_atomic;
	out->max_dest_rd_atomic = in->max_dest_rd_atomic;
	out->min_rnr_timer = in->min_rnr_timer;
	out->port_num = in->port_num;
	out->timeout = in->timeout;
	out->retry_cnt = in->retry_cnt;
	out->rnr_retry = in->rnr_retry;
	out->alt_port_num = in->alt_port_num;
	out->alt_timeout = in->alt_timeout;
	out->rate_limit = in->rate_limit;
}

void soft_qp_attr_from_ipc(const struct pv_ipc_qp_attr *in,
			   struct ibv_qp_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->qp_state = in->qp_state;
	out->cur_qp_state = in->cur_qp_state;
	out->path_mtu = in->path_mtu;
	out->path_mig_state = in->path_mig_state;
	out->qkey = in->qkey;
	out->rq_psn = in->rq_psn;
	out->sq_psn = in->sq_psn;
	out->dest_qp_num = in->dest_qp_num;
	out->qp_access_flags = (unsigned int)in->qp_access_flags;
	out->pkey_index = in->pkey_index;
	out->alt_pkey_index = in->alt_pkey_index;
	memset(&out->cap, 0, sizeof(out->cap));
	soft_qp_cap_from_ipc(&in->cap, &out->cap);
	soft_ah_attr_from_ipc(&in->ah_attr, &out->ah_attr);
	soft_ah_attr_from_ipc(&in->alt_ah_attr, &out->alt_ah_attr);
	out->en_sqd_async_notify = in->en_sqd_async_notify;
	out->sq_draining = in->sq_draining;
	out->max_rd_atomic = in->max_rd_atomic;
	out->max_dest_rd_atomic = in->max_dest_rd_atomic;
	out->min_rnr_timer = in->min_rnr_timer;
	out->port_num = in->port_num;
	out->timeout = in->timeout;
	out->retry_cnt = in->retry_cnt;
	out->rnr_retry = in->rnr_retry;
	out->alt_port_num = in->alt_port_num;
	out->alt_timeout = in->alt_timeout;
	out->rate_limit = in->rate_limit;
}
