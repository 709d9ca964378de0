/* SPDX-License-Identifier: MIT */
/* The pod's namespace and interface, with the errors ADD and CHECK report
 * about them (see cni_cmd.h). */
#include <string.h>

#include "cni-plugin/cni_cmd.h"
#include "netns/netns.h"

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
