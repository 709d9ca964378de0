/* SPDX-License-Identifier: MIT */
/*
 * STATUS (CNI 1.1.0): can this network take ADDs now?  Soft mode: the
 * engine answers HELLO.  Kernel mode: RDMA netlink answers (exclusive or
 * shared namespace mode, cni_cmd_add.c).  Code 50 otherwise.
 */
#include <string.h>

#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_kernel.h"

int cni_cmd_status(struct cni_ctx *ctx)
{
	struct cni_err why = { 0 };
	struct cni_engine eng;
	int mode, ret;

	if (ctx->conf.mode == CNI_MODE_KERNEL) {
		/* Either mode serves ADD (cni_cmd_add.c): only a kernel
		 * without RDMA netlink cannot. */
		ret = cni_kernel_netns_mode(&mode, &why);
	} else {
		ret = cni_engine_open(&eng, ctx->conf.engine_socket,
				      ctx->conf.admin_socket, &why);
		if (ret == 0)
			cni_engine_close(&eng);
	}
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_NOT_AVAILABLE, "%s",
				why.msg);
	return 0;
}
