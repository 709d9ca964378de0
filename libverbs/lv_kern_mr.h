/* SPDX-License-Identifier: MIT */
/*
 * The kernel-context halves of the exported MR verbs that are not
 * verbs.h inlines (ibv_rereg_mr, ibv_reg_dmabuf_mr): lv_kern_mr.c, called
 * when lv_kern_priv(context) is set.  Public return conventions.
 */
#ifndef LV_KERN_MR_H
#define LV_KERN_MR_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

int lv_k_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
struct ibv_mr *lv_k_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);

#endif /* LV_KERN_MR_H */
