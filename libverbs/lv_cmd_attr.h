/* SPDX-License-Identifier: MIT */
/*
 * Building uverbs ioctl commands inside the library (the ibv_cmd_* of
 * lv_cmd_mr.c, lv_cmd_xrc.c, lv_cmd_wq.c, lv_cmd_flow.c): a command
 * buffer with room for LV_CMDB_MAX attributes, optionally linked to the
 * provider's own buffer, filled the way rdma-core 44's cmd_ioctl.h fills
 * one (every attribute mandatory; a value of up to 8 bytes inline in
 * .data, a longer one by address), and run with rdma-core's write
 * fallback: ENOTTY (no ioctl framework) marks every method unsupported,
 * EPROTONOSUPPORT this one; then the caller's write command runs unless
 * the provider's linked attributes need the ioctl (EOPNOTSUPP).
 */
#ifndef LV_CMD_ATTR_H
#define LV_CMD_ATTR_H

#include <stddef.h>
#include <stdint.h>

#include "libverbs/lv_kern_abi.h"

#define LV_CMDB_MAX 16

/* verbs_mr.mr_type (driver.h's enum ibv_mr_type). */
enum {
	LV_MR_TYPE_MR = 0,
	LV_MR_TYPE_NULL_MR = 1,
	LV_MR_TYPE_IMPORTED_MR = 2,
	LV_MR_TYPE_DMABUF_MR = 3,
};

/* verbs_flow_action.type (driver.h's enum ibv_flow_action_type). */
enum {
	LV_FLOW_ACTION_ESP = 1,
};

struct lv_cmdb {
	struct ibv_command_buffer b;
	struct ib_uverbs_attr attrs[LV_CMDB_MAX];
};

/* The slot of op in verbs_context_ops: its bit in unsupported_ioctls. */
#define LV_KOP_BIT(op) \
	(offsetof(struct verbs_context_ops, op) / sizeof(void *))

/* Pure.  A chain whose total attributes exceed the room is marked
 * (buffer_error) and fails in execute_ioctl with EINVAL. */
void lv_cmdb_init(struct lv_cmdb *c, uint16_t object, uint16_t method,
		  unsigned int num_attrs, struct ibv_command_buffer *link);
struct ib_uverbs_attr *lv_attr_in_obj(struct lv_cmdb *c, uint16_t id,
				      uint32_t handle);
struct ib_uverbs_attr *lv_attr_out_obj(struct lv_cmdb *c, uint16_t id);
struct ib_uverbs_attr *lv_attr_in_u32(struct lv_cmdb *c, uint16_t id,
				      uint32_t v);
struct ib_uverbs_attr *lv_attr_in_u64(struct lv_cmdb *c, uint16_t id,
				      uint64_t v);
struct ib_uverbs_attr *lv_attr_in(struct lv_cmdb *c, uint16_t id,
				  const void *p, size_t len);
struct ib_uverbs_attr *lv_attr_out(struct lv_cmdb *c, uint16_t id, void *p,
				   size_t len);
/* An fd attribute; none for fd -1 (rdma-core skips it). */
void lv_attr_in_fd(struct lv_cmdb *c, uint16_t id, int fd);
/* The provider's driver data after the legacy core of req/resp, as the
 * UHW_IN/UHW_OUT attributes (rdma-core's _write_set_uhw). */
void lv_attr_uhw(struct lv_cmdb *c, const void *req, size_t core_req,
		 size_t req_size, void *resp, size_t core_resp,
		 size_t resp_size);

enum lv_fallback {
	LV_FB_DONE,		/* the ioctl ran: *ret is its result */
	LV_FB_ERROR,		/* failed: *ret (and errno) say why */
	LV_FB_WRITE,		/* run the write command instead */
	LV_FB_WRITE_EX,		/* the extended write command */
};

enum lv_fallback lv_cmd_ioctl_fallback(struct ibv_context *ctx,
				       unsigned int op_bit,
				       struct lv_cmdb *c, int *ret);

/* A destroy failing with EIO on a disassociated device counts as done
 * under RDMAV_ALLOW_DISASSOC_DESTROY (rdma-core's verbs_is_destroy_err). */
int lv_cmd_destroy_ret(int ret);

/* An extended write command whose core the caller built whole in req
 * (after its two headers, core_req bytes with them), the provider's
 * data following up to req_size. */
int lv_cmd_write_ex_full(struct ibv_context *ctx, uint32_t command,
			 void *req, size_t core_req, size_t req_size,
			 void *resp, size_t core_resp, size_t resp_size);

#endif /* LV_CMD_ATTR_H */
