/* SPDX-License-Identifier: MIT */
/*
 * Building an ioctl-ABI command (rdma/rdma_user_ioctl_cmds.h) on the
 * stack: a struct ibv_command_buffer followed by room for its attributes
 * (LV_IOCTL_BUF), then one attribute per call in the order the method
 * lists them.  Every attribute is mandatory unless cleared with
 * lv_attr_optional (the kernel must know it or refuse the call with
 * EPROTONOSUPPORT).  A buffer that runs out of room is marked
 * buffer_error and execute_ioctl refuses it (EINVAL), as rdma-core's
 * cmd_ioctl.h does.  Inline, no I/O.
 */
#ifndef LV_IOCTL_FILL_H
#define LV_IOCTL_FILL_H

#include <string.h>

#include "libverbs/lv_kern_abi.h"

#define LV_IOCTL_BUF(name, nattrs)				\
	struct {						\
		struct ibv_command_buffer b;			\
		struct ib_uverbs_attr a[nattrs];		\
	} name

/* room: the attributes the array after b holds. */
static inline void lv_ioctl_init(struct ibv_command_buffer *b, size_t room,
				 uint16_t object, uint16_t method,
				 struct ibv_command_buffer *link)
{
	memset(b, 0, sizeof(*b));
	b->next = link;
	b->hdr.object_id = object;
	b->hdr.method_id = method;
	b->next_attr = b->hdr.attrs;
	b->last_attr = b->hdr.attrs + room;
	b->uhw_in_idx = LV_UHW_NO_INDEX;
	b->uhw_out_idx = LV_UHW_NO_INDEX;
}

/* The next attribute, zeroed and mandatory; NULL when full. */
static inline struct ib_uverbs_attr *lv_attr(struct ibv_command_buffer *b,
					     uint16_t id)
{
	struct ib_uverbs_attr *a;

	if (b->next_attr >= b->last_attr) {
		b->buffer_error = 1;
		return NULL;
	}
	a = b->next_attr++;
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

static inline void lv_attr_optional(struct ib_uverbs_attr *a)
{
	if (a)
		a->flags &= (uint16_t)~UVERBS_ATTR_F_MANDATORY;
}

/* Up to 8 bytes travel inline in .data. */
static inline void lv_attr_in_inline(struct ibv_command_buffer *b,
				     uint16_t id, const void *v, uint16_t len)
{
	struct ib_uverbs_attr *a = lv_attr(b, id);

	if (!a)
		return;
	a->len = len;
	memcpy(&a->data, v, len);
}

static inline void lv_attr_in_u32(struct ibv_command_buffer *b, uint16_t id,
				  uint32_t v)
{
	lv_attr_in_inline(b, id, &v, sizeof(v));
}

static inline void lv_attr_in_u64(struct ibv_command_buffer *b, uint16_t id,
				  uint64_t v)
{
	lv_attr_in_inline(b, id, &v, sizeof(v));
}

/* An object handle (IDR) in, or the slot of one the kernel creates:
 * the handle comes back in .data. */
static inline struct ib_uverbs_attr *lv_attr_obj(struct ibv_command_buffer *b,
						 uint16_t id, uint32_t handle)
{
	struct ib_uverbs_attr *a = lv_attr(b, id);

	if (a)
		a->data = handle;
	return a;
}

/* An fd; none (-1) adds nothing. */
static inline struct ib_uverbs_attr *lv_attr_fd(struct ibv_command_buffer *b,
						uint16_t id, int fd)
{
	struct ib_uverbs_attr *a;

	if (fd < 0)
		return NULL;
	a = lv_attr(b, id);
	if (a)
		a->data = (uint64_t)(int64_t)fd;
	return a;
}

/* A buffer the kernel reads (len > 8) or writes. */
static inline struct ib_uverbs_attr *lv_attr_ptr(struct ibv_command_buffer *b,
						 uint16_t id, const void *p,
						 size_t len)
{
	struct ib_uverbs_attr *a;

	if (len > UINT16_MAX) {
		b->buffer_error = 1;
		return NULL;
	}
	a = lv_attr(b, id);
	if (a) {
		a->len = (uint16_t)len;
		a->data = (uint64_t)(uintptr_t)p;
	}
	return a;
}

/* The driver's udata: what follows the core request and response in the
 * provider's buffers.  A udata-in of 8 bytes or less is inlined by
 * lv_ioctl_finalize. */
static inline void lv_attr_uhw(struct ibv_command_buffer *b, const void *req,
			       size_t core_req, size_t req_size, void *resp,
			       size_t core_resp, size_t resp_size)
{
	if (req && req_size > core_req &&
	    lv_attr_ptr(b, UVERBS_ATTR_UHW_IN, (const char *)req + core_req,
			req_size - core_req))
		b->uhw_in_idx = (uint8_t)(b->next_attr - 1 - b->hdr.attrs);
	if (resp && resp_size > core_resp &&
	    lv_attr_ptr(b, UVERBS_ATTR_UHW_OUT, (char *)resp + core_resp,
			resp_size - core_resp))
		b->uhw_out_idx = (uint8_t)(b->next_attr - 1 - b->hdr.attrs);
}

#endif /* LV_IOCTL_FILL_H */
