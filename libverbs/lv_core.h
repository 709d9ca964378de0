/* SPDX-License-Identifier: MIT */
/*
 * Private to libverbs/: helpers shared by the core's files.  Exported verbs
 * are marked LV_EXPORT; their symbol versions come from libibverbs.map.
 */
#ifndef LV_CORE_H
#define LV_CORE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "libverbs/pv_provider.h"

#define LV_EXPORT __attribute__((visibility("default")))

/* Sets errno from a -errno result and returns NULL (pointer verbs). */
static inline void *lv_null_errno(int err)
{
	errno = err < 0 ? -err : EINVAL;
	return NULL;
}

/* Positive errno for int verbs that return it (0 stays 0). */
static inline int lv_pos(int ret)
{
	return ret < 0 ? -ret : 0;
}

/* Positive errno for the control verbs, also left in errno: rdma-core
 * returns the errno of the failed command (write or ioctl on the cmd fd)
 * and leaves it in errno, and tools print strerror(errno) (issue 12,
 * item 4).  The data-path verbs (post_*, req_notify_cq) return it only,
 * as rdma-core's providers do: lv_pos. */
static inline int lv_errno(int ret)
{
	if (ret >= 0)
		return 0;
	errno = -ret;
	return -ret;
}

/* -1 with errno set, for verbs documented as returning -1. */
static inline int lv_minus1(int ret)
{
	if (ret >= 0)
		return 0;
	errno = -ret;
	return -1;
}

/* Exported verbs that verbs.h doesn't declare (rdma-core keeps them in
 * its private driver.h). */
LV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size);
LV_EXPORT const char *ibv_get_sysfs_path(void);
LV_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				 unsigned int index, int *type);

/* Providers compiled in (lv_provider.c). */
size_t lv_provider_count(void);
const struct pv_provider *lv_provider_at(size_t i);

/* Devices (lv_device.c). */
void lv_device_ref(struct pv_device *dev);
void lv_device_unref(struct pv_device *dev);

/* Handle table (lv_handle.c): maps (kind, handle) to an object.  Not
 * locked: callers hold the context's obj_lock. */
int lv_htable_insert(struct lv_htable *t, uint32_t kind, uint32_t handle,
		     void *obj);
void *lv_htable_lookup(const struct lv_htable *t, uint32_t kind,
		       uint32_t handle);
void *lv_htable_remove(struct lv_htable *t, uint32_t kind, uint32_t handle);
void lv_htable_clear(struct lv_htable *t);

/* Registers/unregisters an object for event mapping, taking obj_lock. */
int lv_ctx_track(struct pv_context *ctx, uint32_t kind, uint32_t handle,
		 void *obj);
void lv_ctx_untrack(struct pv_context *ctx, uint32_t kind, uint32_t handle);

/* Fills the public ibv_context_ops / verbs_context slots (lv_context.c). */
void lv_ctx_init_ops(struct pv_context *ctx);

/* Data-path trampolines installed in ibv_context_ops (lv_datapath.c). */
int lv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int lv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int lv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
int lv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr);
int lv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

/* Fills the poll functions of an extended CQ (lv_datapath.c). */
void lv_cq_ex_init_poll(struct pv_cq *cq);

/* Waits until the app acked as many async events as were delivered. */
void lv_wait_events(pthread_mutex_t *m, pthread_cond_t *c,
		    const uint32_t *completed, uint32_t delivered);

/* verbs_context slots (lv_query.c, lv_cq.c, lv_qp.c). */
int lv_query_port_ex(struct ibv_context *c, uint8_t port,
		     struct ibv_port_attr *attr, size_t attr_len);
int lv_query_device_ex(struct ibv_context *c,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size);
struct ibv_cq_ex *lv_create_cq_ex(struct ibv_context *c,
				  struct ibv_cq_init_attr_ex *attr);
/* lv_pdomain.c: thread and parent domains on our own devices. */
struct ibv_td *lv_alloc_td(struct ibv_context *context,
			   struct ibv_td_init_attr *attr);
int lv_dealloc_td(struct ibv_td *td);
struct ibv_pd *lv_alloc_parent_domain(struct ibv_context *context,
				      struct ibv_parent_domain_init_attr *attr);
int lv_dealloc_parent_domain(struct pv_pd *pd);

struct ibv_srq *lv_create_srq_ex(struct ibv_context *c,
				 struct ibv_srq_init_attr_ex *a);
int lv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_xrcd *lv_open_xrcd(struct ibv_context *c,
			      struct ibv_xrcd_init_attr *a);
int lv_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_qp *lv_create_qp_ex(struct ibv_context *c,
			       struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *lv_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a);

/* GRH parsing for ibv_init_ah_from_wc (lv_ah_wc.c), pure.  The 40 bytes
 * before a UD receive hold an IPv6 GRH, or for RoCEv2 over IPv4 an IPv4
 * header in their last 20 bytes (IBA A17.4.5.1); both come out as GIDs. */
struct lv_grh_info {
	union ibv_gid sgid;		/* the sender's address */
	union ibv_gid dgid;		/* ours, as the packet named it */
	uint32_t flow_label;
	uint8_t traffic_class;
	int ip_version;			/* 4 or 6 */
};
int lv_grh_parse(const struct ibv_grh *grh, struct lv_grh_info *out);

/* Fills ah_attr to answer the sender of wc (without sgid_index). */
void lv_ah_attr_from_wc(const struct ibv_wc *wc, uint8_t port_num,
			const struct lv_grh_info *g, struct ibv_ah_attr *ah);

#endif /* LV_CORE_H */
