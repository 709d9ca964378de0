/* SPDX-License-Identifier: MIT */
/*
 * ADD: a chained plugin.  The interface plugin before us (bridge, macvlan,
 * ipvlan with host-local IPAM) made CNI_IFNAME in the pod's namespace and
 * reported it in prevResult; we give the pod an RDMA device bound to it
 * and pass prevResult on unchanged.
 *
 * Order, so that a failure at any step leaves nothing behind: lock the
 * attachment, record "adding", create, record "ready"; on failure undo
 * and remove the record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_kernel.h"
#include "cni-plugin/cni_result.h"
#include "netns/netns.h"

/* The interface must be in prevResult and really in the namespace. */
static int find_interface(struct cni_ctx *ctx)
{
	struct netns_link link;
	int ns_fd, ret;

	if (!ctx->conf.prev_result)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"podverbs is a chained plugin and got no prevResult: list it after an interface plugin (bridge, macvlan, ipvlan) in a conflist");
	if (cni_result_find_iface(ctx->conf.prev_result, ctx->env.ifname,
				  ctx->env.netns) < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"prevResult has no interface \"%s\" inside a sandbox; the plugin before podverbs must create CNI_IFNAME in the pod",
				ctx->env.ifname);
	ns_fd = netns_open(ctx->env.netns);
	if (ns_fd < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"CNI_NETNS %s cannot be opened: %s",
				ctx->env.netns, strerror(-ns_fd));
	ret = netns_link_get(ns_fd, ctx->env.ifname, &link);
	close(ns_fd);
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_NO_INTERFACE,
				"interface \"%s\" not found in %s: %s",
				ctx->env.ifname, ctx->env.netns, strerror(-ret));
	return 0;
}

static int add_soft(struct cni_ctx *ctx, struct cni_state *st)
{
	struct pv_ipc_dev_info info;
	struct cni_engine eng;
	int ret;

	ret = cni_engine_open(&eng, ctx->conf.engine_socket, &ctx->err);
	if (ret < 0)
		return ret;
	ret = cni_engine_dev_add(&eng, ctx->env.netns, ctx->env.ifname,
				 ctx->conf.device_name, ctx->conf.pkey, &info,
				 &ctx->err);
	cni_engine_close(&eng);
	if (ret < 0)
		return ret;
	st->dev_id = info.dev_id;
	return 0;
}

static int add_kernel(struct cni_ctx *ctx, struct cni_state *st)
{
	struct cni_rdma_dev dev;
	int mode, ns_fd, ret;

	ret = cni_kernel_netns_mode(&mode, &ctx->err);
	if (ret < 0)
		return ret;
	if (mode != CNI_RDMA_NETNS_EXCLUSIVE)
		return cni_fail(&ctx->err, CNI_ERR_KERNEL_DEVICE,
				"the RDMA subsystem is in shared network namespace mode, so a kernel RDMA device cannot be moved into the pod; set exclusive mode (rdma system set netns exclusive) or use \"mode\": \"soft\"");
	ret = cni_kernel_find(ctx->conf.kernel_device, ctx->conf.device_id,
			      &dev, &ctx->err);
	if (ret < 0)
		return ret;
	strcpy(st->kernel_device, dev.name);
	st->kernel_index = dev.index;
	ns_fd = netns_open(ctx->env.netns);
	if (ns_fd < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"CNI_NETNS %s cannot be opened: %s",
				ctx->env.netns, strerror(-ns_fd));
	ret = cni_kernel_move(dev.index, dev.name, ns_fd, -1, &ctx->err);
	close(ns_fd);
	if (ret == 0)
		st->moved = 1;
	return ret;
}

static void state_init(struct cni_ctx *ctx, struct cni_state *st)
{
	memset(st, 0, sizeof(*st));
	strcpy(st->network, ctx->conf.name);
	strcpy(st->containerid, ctx->env.containerid);
	strcpy(st->ifname, ctx->env.ifname);
	strcpy(st->netns, ctx->env.netns);
	st->mode = ctx->conf.mode;
	st->phase = CNI_PHASE_ADDING;
	strcpy(st->engine_socket, ctx->conf.engine_socket);
	strcpy(st->device_name, ctx->conf.device_name);
	st->pkey = ctx->conf.pkey;
}

/* Does the work under the attachment's lock, and releases it. */
static int add_locked(struct cni_ctx *ctx, const char *key, int lock)
{
	const char *dir = ctx->conf.state_dir;
	struct cni_state st, old;
	int ret;

	/* ADD again without DEL (a runtime retrying): start from clean. */
	if (cni_state_read(dir, key, &old) == 0) {
		ret = cni_teardown(&old, ctx->env.netns, &ctx->err);
		if (ret < 0)
			goto err_unlock;	/* keep the old record */
	}
	state_init(ctx, &st);
	ret = cni_state_write(dir, key, &st);
	if (ret < 0) {
		cni_fail(&ctx->err, CNI_ERR_IO,
			 "writing state %s/%s.json failed: %s", dir, key,
			 strerror(-ret));
		goto err_remove;
	}
	ret = st.mode == CNI_MODE_KERNEL ? add_kernel(ctx, &st) :
					   add_soft(ctx, &st);
	if (ret < 0)
		goto err_undo;
	st.phase = CNI_PHASE_READY;
	ret = cni_state_write(dir, key, &st);
	if (ret < 0) {
		cni_fail(&ctx->err, CNI_ERR_IO,
			 "writing state %s/%s.json failed: %s", dir, key,
			 strerror(-ret));
		goto err_undo;
	}
	close(lock);
	return 0;

err_undo:
	{
		struct cni_err ignored = { 0 };

		cni_teardown(&st, ctx->env.netns, &ignored);
	}
err_remove:
	cni_state_remove(dir, key, lock);
	return ret;
err_unlock:
	close(lock);
	return ret;
}

int cni_cmd_add(struct cni_ctx *ctx)
{
	const char *dir = ctx->conf.state_dir;
	char key[CNI_STATE_KEY_MAX];
	cJSON *res;
	int lock, ret;

	ret = find_interface(ctx);
	if (ret < 0)
		return ret;
	ret = cni_state_key(ctx->conf.name, ctx->env.containerid,
			    ctx->env.ifname, key, sizeof(key));
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"network name + CNI_CONTAINERID + CNI_IFNAME too long");
	lock = cni_state_lock(dir, key);
	if (lock < 0)
		return cni_fail(&ctx->err, CNI_ERR_IO,
				"locking state in %s failed: %s", dir,
				strerror(-lock));
	ret = add_locked(ctx, key, lock);
	if (ret < 0)
		return ret;
	res = cni_result_convert(ctx->conf.prev_result, ctx->conf.ver);
	ctx->out = res ? cJSON_Print(res) : NULL;
	cJSON_Delete(res);
	if (!ctx->out)
		return cni_fail(&ctx->err, CNI_ERR_IO, "out of memory");
	return 0;
}
