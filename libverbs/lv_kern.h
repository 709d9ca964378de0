/* SPDX-License-Identifier: MIT */
/*
 * Kernel devices driven by rdma-core's provider plugins (issue 16), beside
 * the compiled-in providers of pv_provider.h.  A kernel device is the
 * provider's verbs_device (lv_kern_abi.h); its contexts are the provider's
 * verbs_context, whose priv points at our struct lv_kern_priv.  The public
 * verbs tell the two apart without touching the soft path's data:
 *  - a device: lv_kern_is_dev() (a marker we set in the unused _ops slot);
 *  - a context: verbs_context.priv is non-NULL (the soft provider's is
 *    always NULL).
 */
#ifndef LV_KERN_H
#define LV_KERN_H

#include <errno.h>

#include "libverbs/lv_kern_abi.h"

/* What the core keeps per kernel context (rdma-core's verbs_ex_private):
 * the provider's ops with every slot it left NULL failing. */
struct lv_kern_priv {
	struct verbs_context_ops ops;
	uint32_t driver_id;
	bool use_ioctl_write;		/* the write ABI over ioctl */
	/* Bit per ops slot whose ioctl method the kernel refused
	 * (EOPNOTSUPP/ENOTTY): later calls go straight to write. */
	uint64_t unsupported_ioctls[(LV_KOPS_NUM + 63) / 64];
};

/* Pure (lv_kern_match.c). */
const struct verbs_match_ent *
lv_kern_match_driver_id(const struct verbs_match_ent *tbl, uint32_t driver_id);
const struct verbs_match_ent *
lv_kern_match_table(const struct verbs_match_ent *tbl, uint32_t driver_id,
		    const char *ibdev_name, const char *modalias);
uint32_t lv_kern_driver_id(const char *kdriver);
enum ibv_node_type lv_kern_node_type(unsigned int knode);
enum ibv_transport_type lv_kern_transport(enum ibv_node_type t);
int lv_kern_conf_line(const char *line, char *name, size_t name_len);

/* Devices (lv_kern_dev.c).  Appends the kernel devices to *list (n so
 * far, NULL-terminated, grown); 0 when the host has none. */
int lv_kern_add_devices(struct ibv_device ***list, int *n);
bool lv_kern_is_dev(const struct ibv_device *dev);
void lv_kern_dev_hold(struct ibv_device *dev);
void lv_kern_dev_put(struct ibv_device *dev);
/* node_guid from sysfs (network order), cached in the sysfs_dev. */
__be64 lv_kern_dev_guid(struct ibv_device *dev);
/* Contexts (lv_kern_ctx.c, lv_kern_verbs.c, lv_cmd_verbs.c). */
int lv_kern_close(struct ibv_context *c);
int lv_kern_query_port_ex(struct ibv_context *c, uint8_t port,
			  struct ibv_port_attr *attr, size_t attr_len);
struct ibv_cq_ex *lv_kern_create_cq_ex(struct ibv_context *c,
				       struct ibv_cq_init_attr_ex *attr);
int lv_cmd_alloc_async_fd(struct ibv_context *c);
int lv_cmd_create_comp_channel(struct ibv_context *c, int *fd);
void lv_cmd_modify_qp_core(struct ib_uverbs_modify_qp *m, uint32_t handle,
			   const struct ibv_qp_attr *a, int mask);
/* Warnings for IBV_SHOW_WARNINGS / PODVERBS_DEBUG. */
bool lv_kern_warn_on(void);

static inline struct verbs_device *lv_vdev(const struct ibv_device *d)
{
	return (struct verbs_device *)d;	/* device is first */
}

static inline struct verbs_context *lv_vctx(struct ibv_context *c)
{
	return (struct verbs_context *)((char *)c -
					offsetof(struct verbs_context, context));
}

/* The kernel context's private part, or NULL for a soft context. */
static inline struct lv_kern_priv *lv_kern_priv(struct ibv_context *c)
{
	return (struct lv_kern_priv *)lv_vctx(c)->priv;
}

static inline const struct verbs_context_ops *lv_kops(struct ibv_context *c)
{
	return &lv_kern_priv(c)->ops;
}

#endif /* LV_KERN_H */
