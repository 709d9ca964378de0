/* SPDX-License-Identifier: MIT */
/*
 * The uverbs ioctl ABI (rdma/rdma_user_ioctl_cmds.h): one
 * RDMA_VERBS_IOCTL on the cmd fd carries struct ib_uverbs_ioctl_hdr
 * (object, method, driver id, attribute count and total length) and its
 * array of 16-byte struct ib_uverbs_attr.  A provider builds the command
 * in a chain of struct ibv_command_buffer (its own attributes linked
 * after the core's): before the call the linked attributes are appended
 * to the first buffer's array, which was sized for them by
 * __ioctl_final_num_attrs, and after it the kernel's output flags are
 * copied back to the links, as rdma-core 44's cmd_ioctl.c does.
 * lv_ioctl_finalize is pure (tests/unit/libverbs/test_lv_cmd.c).
 */
#include <string.h>
#include <sys/ioctl.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"

static size_t n_attrs(const struct ibv_command_buffer *b)
{
	return (size_t)(b->next_attr - b->hdr.attrs);
}

LV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link);
LV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	for (; link; link = link->next)
		num_attrs += (unsigned int)n_attrs(link);
	return num_attrs;
}

int lv_ioctl_finalize(struct ibv_command_buffer *cmd, uint32_t driver_id)
{
	struct ib_uverbs_attr *end = cmd->next_attr;

	if (cmd->buffer_error || cmd->next_attr > cmd->last_attr)
		return -EINVAL;
	for (struct ibv_command_buffer *l = cmd->next; l; l = l->next) {
		size_t n = n_attrs(l);

		if (l->hdr.object_id != cmd->hdr.object_id ||
		    l->hdr.method_id != cmd->hdr.method_id ||
		    l->buffer_error || n > (size_t)(cmd->last_attr - end))
			return -EINVAL;
		if (l->uhw_in_idx != LV_UHW_NO_INDEX)
			cmd->uhw_in_idx = (uint8_t)(l->uhw_in_idx +
						    (end - cmd->hdr.attrs));
		memcpy(end, l->hdr.attrs, n * sizeof(*end));
		end += n;
	}
	cmd->hdr.num_attrs = (uint16_t)(end - cmd->hdr.attrs);
	/* The kernel wants a udata-in of up to 8 bytes inline in .data;
	 * providers leave a pointer there until now. */
	if (cmd->uhw_in_idx != LV_UHW_NO_INDEX &&
	    cmd->uhw_in_idx < cmd->hdr.num_attrs) {
		struct ib_uverbs_attr *u = &cmd->hdr.attrs[cmd->uhw_in_idx];

		if (u->attr_id == UVERBS_ATTR_UHW_IN && u->len <= sizeof(u->data))
			memcpy(&u->data, (void *)(uintptr_t)u->data, u->len);
	}
	cmd->hdr.length = (uint16_t)(sizeof(cmd->hdr) +
				     sizeof(*end) * cmd->hdr.num_attrs);
	cmd->hdr.reserved1 = 0;
	cmd->hdr.reserved2 = 0;
	cmd->hdr.driver_id = driver_id;
	return 0;
}

/* After the call: the links get their attributes back (flags the kernel
 * set, e.g. UVERBS_ATTR_F_VALID_OUTPUT). */
static void copy_back(struct ibv_command_buffer *cmd)
{
	struct ib_uverbs_attr *cur = cmd->next_attr;

	for (struct ibv_command_buffer *l = cmd->next; l; l = l->next) {
		size_t n = n_attrs(l);

		memcpy(l->hdr.attrs, cur, n * sizeof(*cur));
		cur += n;
	}
}

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);
LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd)
{
	struct lv_kern_priv *priv = lv_kern_priv(context);
	int ret;

	if (!priv) {
		errno = EOPNOTSUPP;	/* a soft context has no cmd fd */
		return errno;
	}
	ret = lv_ioctl_finalize(cmd, priv->driver_id);
	if (ret < 0) {
		errno = -ret;
		return errno;
	}
	if (ioctl(context->cmd_fd, RDMA_VERBS_IOCTL, &cmd->hdr))
		return errno;
	copy_back(cmd);
	return 0;
}
