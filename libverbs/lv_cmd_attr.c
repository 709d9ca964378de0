/* SPDX-License-Identifier: MIT */
/*
 * Attribute builders and the ioctl-then-write fallback for the library's
 * own ioctl commands (lv_cmd_attr.h).  The builders are pure; the
 * fallback keeps rdma-core 44's per-context record of refused methods
 * (lv_kern_priv.unsupported_ioctls), so a kernel without the ioctl ABI
 * costs one failed ioctl per context.
 */
#include <string.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);
LV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link);

void lv_cmdb_init(struct lv_cmdb *c, uint16_t object, uint16_t method,
		  unsigned int num_attrs, struct ibv_command_buffer *link)
{
	memset(&c->b, 0, sizeof(c->b));
	c->b.next = link;
	c->b.next_attr = c->attrs;
	c->b.last_attr = c->attrs + LV_CMDB_MAX;
	c->b.uhw_in_idx = LV_UHW_NO_INDEX;
	c->b.uhw_out_idx = LV_UHW_NO_INDEX;
	c->b.hdr.object_id = object;
	c->b.hdr.method_id = method;
	if (__ioctl_final_num_attrs(num_attrs, link) > LV_CMDB_MAX)
		c->b.buffer_error = 1;
}

/* The next attribute, mandatory; past the room, a scratch one and the
 * buffer marked bad (the command then fails, nothing is overrun). */
static struct ib_uverbs_attr *next_attr(struct lv_cmdb *c, uint16_t id)
{
	static __thread struct ib_uverbs_attr scratch;
	struct ib_uverbs_attr *a;

	if (c->b.next_attr >= c->b.last_attr) {
		c->b.buffer_error = 1;
		a = &scratch;
	} else {
		a = c->b.next_attr++;
	}
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

struct ib_uverbs_attr *lv_attr_in_obj(struct lv_cmdb *c, uint16_t id,
				      uint32_t handle)
{
	struct ib_uverbs_attr *a = next_attr(c, id);

	a->data = handle;
	return a;
}

struct ib_uverbs_attr *lv_attr_out_obj(struct lv_cmdb *c, uint16_t id)
{
	return lv_attr_in_obj(c, id, 0);
}

struct ib_uverbs_attr *lv_attr_in_u32(struct lv_cmdb *c, uint16_t id,
				      uint32_t v)
{
	struct ib_uverbs_attr *a = next_attr(c, id);

	a->len = sizeof(v);
	memcpy(&a->data, &v, sizeof(v));
	return a;
}

struct ib_uverbs_attr *lv_attr_in_u64(struct lv_cmdb *c, uint16_t id,
				      uint64_t v)
{
	struct ib_uverbs_attr *a = next_attr(c, id);

	a->len = sizeof(v);
	a->data = v;
	return a;
}

struct ib_uverbs_attr *lv_attr_in(struct lv_cmdb *c, uint16_t id,
				  const void *p, size_t len)
{
	struct ib_uverbs_attr *a = next_attr(c, id);

	if (len > UINT16_MAX) {
		c->b.buffer_error = 1;
		return a;
	}
	a->len = (uint16_t)len;
	if (len <= sizeof(a->data))
		memcpy(&a->data, p, len);
	else
		a->data = (uintptr_t)p;
	return a;
}

struct ib_uverbs_attr *lv_attr_out(struct lv_cmdb *c, uint16_t id, void *p,
				   size_t len)
{
	struct ib_uverbs_attr *a = next_attr(c, id);

	if (len > UINT16_MAX)
		c->b.buffer_error = 1;
	a->len = (uint16_t)len;
	a->data = (uintptr_t)p;
	return a;
}

void lv_attr_in_fd(struct lv_cmdb *c, uint16_t id, int fd)
{
	if (fd != -1)
		next_attr(c, id)->data = (uint64_t)fd;
}

void lv_attr_uhw(struct lv_cmdb *c, const void *req, size_t core_req,
		 size_t req_size, void *resp, size_t core_resp,
		 size_t resp_size)
{
	struct ib_uverbs_attr *a;

	if (req && core_req < req_size) {
		/* By address here; execute_ioctl inlines up to 8 bytes. */
		a = next_attr(c, UVERBS_ATTR_UHW_IN);
		a->len = (uint16_t)(req_size - core_req);
		a->data = (uintptr_t)req + core_req;
		if (req_size - core_req > UINT16_MAX)
			c->b.buffer_error = 1;
		c->b.uhw_in_idx = (uint8_t)(a - c->attrs);
		c->b.uhw_in_headroom_dwords = (uint8_t)(core_req / 4);
	}
	if (resp && core_resp < resp_size) {
		a = lv_attr_out(c, UVERBS_ATTR_UHW_OUT, (char *)resp + core_resp,
				resp_size - core_resp);
		c->b.uhw_out_idx = (uint8_t)(a - c->attrs);
		c->b.uhw_out_headroom_dwords = (uint8_t)(core_resp / 4);
	}
}

/* Whether the write command can stand in for the ioctl: not when the
 * provider's linked attributes include a mandatory one the write ABI
 * has no place for. */
static enum lv_fallback check_legacy(struct lv_cmdb *c, int *ret)
{
	bool need_ex = c->b.fallback_require_ex;
	bool ioctl_only = c->b.fallback_ioctl_only;

	for (struct ibv_command_buffer *l = c->b.next; l; l = l->next) {
		for (struct ib_uverbs_attr *a = l->hdr.attrs; a < l->next_attr;
		     a++)
			if (a->attr_id != UVERBS_ATTR_UHW_IN &&
			    a->attr_id != UVERBS_ATTR_UHW_OUT &&
			    (a->flags & UVERBS_ATTR_F_MANDATORY))
				ioctl_only = true;
		need_ex |= l->fallback_require_ex;
		ioctl_only |= l->fallback_ioctl_only;
	}
	if (ioctl_only) {
		errno = EOPNOTSUPP;
		*ret = EOPNOTSUPP;
		return LV_FB_ERROR;
	}
	return need_ex ? LV_FB_WRITE_EX : LV_FB_WRITE;
}

#define BITS_PER_WORD 64

enum lv_fallback lv_cmd_ioctl_fallback(struct ibv_context *ctx,
				       unsigned int op_bit,
				       struct lv_cmdb *c, int *ret)
{
	struct lv_kern_priv *priv = lv_kern_priv(ctx);
	uint64_t *bits;

	if (!priv) {
		errno = EOPNOTSUPP;
		*ret = EOPNOTSUPP;
		return LV_FB_ERROR;
	}
	bits = priv->unsupported_ioctls;
	if (op_bit < LV_KOPS_NUM &&
	    (bits[op_bit / BITS_PER_WORD] >> (op_bit % BITS_PER_WORD)) & 1)
		return check_legacy(c, ret);
	*ret = execute_ioctl(ctx, &c->b);
	if (*ret == 0)
		return LV_FB_DONE;
	if (*ret == ENOTTY) {
		memset(priv->unsupported_ioctls, 0xff,
		       sizeof(priv->unsupported_ioctls));
		return check_legacy(c, ret);
	}
	if (*ret == EPROTONOSUPPORT) {
		if (op_bit < LV_KOPS_NUM)
			bits[op_bit / BITS_PER_WORD] |=
				1ull << (op_bit % BITS_PER_WORD);
		return check_legacy(c, ret);
	}
	return LV_FB_ERROR;
}

extern bool verbs_allow_disassociate_destroy;

int lv_cmd_destroy_ret(int ret)
{
	return ret == EIO && verbs_allow_disassociate_destroy ? 0 : ret;
}

int lv_cmd_write_ex_full(struct ibv_context *ctx, uint32_t command,
			 void *req, size_t core_req, size_t req_size,
			 void *resp, size_t core_resp, size_t resp_size)
{
	ssize_t n;
	int ret = lv_cmd_encode_ex(req, core_req, req_size, command, resp,
				   core_resp, resp_size);

	if (ret < 0)
		return -ret;
	if (resp)
		memset(resp, 0, resp_size);
	n = write(ctx->cmd_fd, req, req_size);
	if (n == (ssize_t)req_size)
		return 0;
	return n < 0 ? errno : EIO;
}
