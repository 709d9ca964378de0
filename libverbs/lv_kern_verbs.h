/* SPDX-License-Identifier: MIT */
/*
 * The kernel-context halves of the public verbs (lv_kern_verbs.c), called
 * by the exported verbs when lv_kern_priv(context) is set.  Each keeps
 * its verb's public return convention.
 */
#ifndef LV_KERN_VERBS_H
#define LV_KERN_VERBS_H

#include <endian.h>
#include <stdbool.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"

LV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data);
LV_EXPORT int ibv_dontfork_range(void *base, size_t size);
LV_EXPORT int ibv_dofork_range(void *base, size_t size);
LV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel,
			     void *cq_context);

int lv_k_query_device(struct ibv_context *c, struct ibv_device_attr *attr);
struct ibv_pd *lv_k_alloc_pd(struct ibv_context *c);
int lv_k_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *lv_k_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t iova, unsigned int access);
int lv_k_dereg_mr(struct ibv_mr *mr);
struct ibv_comp_channel *lv_k_create_comp_channel(struct ibv_context *c);
int lv_k_destroy_comp_channel(struct ibv_comp_channel *ch);
struct ibv_cq *lv_k_create_cq(struct ibv_context *c, int cqe, void *cq_ctx,
			      struct ibv_comp_channel *ch, int vector);
int lv_k_resize_cq(struct ibv_cq *cq, int cqe);
int lv_k_destroy_cq(struct ibv_cq *cq);
int lv_k_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
		      void **cq_ctx);
struct ibv_qp *lv_k_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a);
int lv_k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int lv_k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init);
int lv_k_destroy_qp(struct ibv_qp *qp);
struct ibv_srq *lv_k_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *a);
int lv_k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask);
int lv_k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a);
int lv_k_destroy_srq(struct ibv_srq *srq);
struct ibv_ah *lv_k_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *a);
int lv_k_destroy_ah(struct ibv_ah *ah);
int lv_k_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid, bool attach);
int lv_k_get_async_event(struct ibv_context *c, struct ibv_async_event *e);
int lv_k_query_gid(struct ibv_context *c, uint8_t port, int index,
		   union ibv_gid *gid);
int lv_k_gid_entry(struct ibv_context *c, uint8_t port, uint32_t index,
		   struct ibv_gid_entry *e);
ssize_t lv_k_query_gid_table(struct ibv_context *c,
			     struct ibv_gid_entry *entries, size_t max,
			     size_t entry_size);
int lv_k_query_pkey(struct ibv_context *c, uint8_t port, int index,
		    __be16 *pkey);

#endif /* LV_KERN_VERBS_H */
