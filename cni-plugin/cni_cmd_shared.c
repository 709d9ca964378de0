/* SPDX-License-Identifier: MIT */
/* What ADD, CHECK and DEL share, with the errors they report: the
 * attachment's lock, the pod's namespace and interface (see cni_cmd.h). */
#include <string.h>

#include "cni-plugin/cni_cmd.h"
#include "netns/netns.h"

int cni_attachment_lock(struct cni_ctx *ctx, char *key)
{
	int lock;

	if (cni_state_key(ctx->conf.name, ctx->env.containerid,
			  ctx->env.ifname, key, CNI_STATE_KEY_MAX) < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"network name + CNI_CONTAINERID + CNI_IFNAME too long");
	lock = cni_state_lock(ctx->conf.state_dir, key);
	if (lock < 0)
		return cni_fail(&ctx->err, CNI_ERR_IO,
				"locking state in %s failed: %s",
				ctx->conf.state_dir, strerror(-lock));
	return lock;
}

int cni_pod_netns_open(struct cni_ctx *ctx)
{
	int ns_fd = netns_open(ctx->env.netns);

	if (ns_fd < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"CNI_NETNS %s cannot be opened: %s",
				ctx->env.netns, strerror(-ns_fd));
	return ns_fd;
}

int cni_pod_link_get(struct cni_ctx *ctx, int ns_fd,
		     struct netns_link *ret_link)
{
	int ret = netns_link_get(ns_fd, ctx->env.ifname, ret_link);

	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_NO_INTERFACE,
				"interface \"%s\" not found in %s: %s",
				ctx->env.ifname, ctx->env.netns, strerror(-ret));
	return 0;
}
