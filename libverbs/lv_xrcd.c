/* SPDX-License-Identifier: MIT */
/*
 * XRC domains (ibv_open_xrcd(3)): with IBV_XRCD_INIT_ATTR_FD and a file's
 * fd, processes of one device that open the same file share a domain
 * (O_CREAT makes it, O_EXCL only makes it); with fd -1, a private one.
 * Closing one still used by an XRC SRQ or XRC_RECV QP fails with EBUSY.
 */
#include <fcntl.h>
#include <stdlib.h>

#include "libverbs/lv_core.h"

struct ibv_xrcd *lv_open_xrcd(struct ibv_context *c,
			      struct ibv_xrcd_init_attr *a)
{
	const uint32_t need = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	struct pv_context *ctx = pv_ctx(c);
	struct pv_xrcd *x;
	int ret;

	if (!a || (a->comp_mask & need) != need ||
	    (a->comp_mask & ~(need | IBV_XRCD_INIT_ATTR_RESERVED)) ||
	    (a->oflags & ~(O_CREAT | O_EXCL)))
		return lv_null_errno(-EINVAL);
	if (a->fd < 0 && !(a->oflags & O_CREAT))
		return lv_null_errno(-EINVAL);	/* nothing to open */
	x = calloc(1, sizeof(*x));
	if (!x)
		return lv_null_errno(-ENOMEM);
	x->ibv.context = c;
	ret = ctx->ops->open_xrcd(ctx, x, a->fd, a->oflags);
	if (ret < 0) {
		free(x);
		return lv_null_errno(ret);
	}
	return &x->ibv;
}

int lv_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct pv_xrcd *x = (struct pv_xrcd *)xrcd;
	struct pv_context *ctx;
	int ret;

	if (!xrcd)
		return EINVAL;
	if (atomic_load(&x->users))
		return EBUSY;
	ctx = pv_ctx(xrcd->context);
	ret = ctx->ops->close_xrcd(ctx, x);
	if (ret < 0)
		return -ret;
	free(x);
	return 0;
}
