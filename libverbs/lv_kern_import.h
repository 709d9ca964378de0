/* SPDX-License-Identifier: MIT */
/*
 * ibv_import_pd/mr/dm and their unimport on a kernel context
 * (lv_kern_import.c): the provider's op, or NULL with EOPNOTSUPP (an
 * unimport: nothing) where it has none, as rdma-core 44's verbs.c and
 * dummy ops.
 */
#ifndef LV_KERN_IMPORT_H
#define LV_KERN_IMPORT_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct ibv_pd *lv_k_import_pd(struct ibv_context *c, uint32_t pd_handle);
void lv_k_unimport_pd(struct ibv_pd *pd);
struct ibv_mr *lv_k_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void lv_k_unimport_mr(struct ibv_mr *mr);
struct ibv_dm *lv_k_import_dm(struct ibv_context *c, uint32_t dm_handle);
void lv_k_unimport_dm(struct ibv_dm *dm);

#endif /* LV_KERN_IMPORT_H */
