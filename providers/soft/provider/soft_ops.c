/* SPDX-License-Identifier: MIT */
/*
 * The soft provider's ops table.  The data-path slots (post_*, poll_cq)
 * stay NULL here: open_context installs our ring functions directly in
 * ibv_context_ops (soft_context.c), so verbs.h's inlines reach them with
 * no trampoline; without rings the core's defaults fail with EOPNOTSUPP.
 */
#include "providers/soft/provider/soft_provider.h"

const struct pv_provider pv_soft_provider = {
	.name = "soft",
	.ops = {
		.discover = soft_discover,
		.open_context = soft_open_context,
		.close_context = soft_close_context,
		.query_device = soft_query_device,
		.query_port = soft_query_port,
		.query_gid_table = soft_query_gid_table,
		.query_pkey = soft_query_pkey,
		.alloc_pd = soft_alloc_pd,
		.dealloc_pd = soft_dealloc_pd,
		.reg_mr = soft_reg_mr,
		.dereg_mr = soft_dereg_mr,
		.rereg_mr = soft_rereg_mr,
		.create_channel = soft_create_channel,
		.destroy_channel = soft_destroy_channel,
		.read_cq_event = soft_read_cq_event,
		.create_cq = soft_create_cq,
		.resize_cq = soft_resize_cq,
		.destroy_cq = soft_destroy_cq,
		.req_notify_cq = soft_req_notify_cq,
		.create_qp = soft_create_qp,
		.modify_qp = soft_modify_qp,
		.query_qp = soft_query_qp,
		.destroy_qp = soft_destroy_qp,
		.open_qp = soft_open_qp,
		.create_srq = soft_create_srq,
		.modify_srq = soft_modify_srq,
		.query_srq = soft_query_srq,
		.destroy_srq = soft_destroy_srq,
		.open_xrcd = soft_open_xrcd,
		.close_xrcd = soft_close_xrcd,
		.create_ah = soft_create_ah,
		.destroy_ah = soft_destroy_ah,
		.attach_mcast = soft_attach_mcast,
		.detach_mcast = soft_detach_mcast,
		.read_async_event = soft_read_async_event,
	},
};
