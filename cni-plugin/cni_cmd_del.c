/* SPDX-License-Identifier: MIT */
/*
 * DEL and GC.  Both must succeed when things are already gone (CNI spec,
 * "DEL": "Plugins should generally complete a DEL action without error
 * even if some resources are missing"): a vanished namespace, a missing
 * prevResult, an engine that forgot the device or is not running (its
 * devices die with it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni-plugin/cni_claim.h"
#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_kernel.h"
#include "netns/netns.h"

static int engine_gone(int ret)
{
	return ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR;
}

static int engine_del_listed(struct cni_engine *eng,
			     const struct pv_ipc_adm_dev *dev,
			     struct cni_err *err)
{
	int ret;

	if (!dev)
		return 0;
	ret = cni_engine_dev_del(eng, dev->info.dev_id, err);
	return ret == -ENOENT ? 0 : ret;
}

/*
 * Deletes the engine device of an attachment, if it still exists: by the
 * id the engine gave, or, when ADD died before writing it down, by
 * (namespace identity, interface) under our claim (cni_claim.h).  Without
 * id and claim the engine was never asked for a device of ours, so
 * nothing is deleted: a lookup by name alone would find another
 * attachment's device when ADD failed because the name was taken.
 */
static int teardown_soft(const char *dir, const char *key,
			 const struct cni_state *st, const char *netns,
			 struct cni_err *err)
{
	const char *name = st->device_name[0] ? st->device_name : NULL;
	int claimed = cni_claim_is_ours(dir, st, key);
	struct pv_ipc_adm_dev_list *list;
	struct cni_err quiet = { 0 };
	struct cni_engine eng;
	int ret;

	if (st->dev_id == 0 && !claimed)
		return 0;
	ret = cni_engine_open(&eng, st->engine_socket, st->admin_socket,
			      &quiet);
	if (ret < 0) {
		if (!engine_gone(ret)) {
			*err = quiet;
			return ret;
		}
		ret = 0;	/* no engine, no devices */
		goto out_drop;
	}
	ret = cni_engine_dev_list(&eng, &list, err);
	if (ret < 0)
		goto out_close;
	if (st->dev_id)
		ret = engine_del_listed(&eng, cni_engine_find(list, st->dev_id,
				st->device_name, st->ifname,
				st->netns[0] ? st->netns : netns), err);
	else
		ret = engine_del_listed(&eng, cni_engine_find_ns(list,
				st->netns_dev, st->netns_ino, st->ifname,
				name), err);
	free(list);
out_close:
	cni_engine_close(&eng);
out_drop:
	if (ret == 0 && claimed)
		cni_claim_drop(dir, st, key);
	return ret;
}

/* Moves a kernel device back to our namespace, unless the pod's namespace
 * is gone (then the kernel already did). */
static int teardown_kernel(const struct cni_state *st, const char *netns,
			   struct cni_err *err)
{
	const char *path = netns[0] ? netns : st->netns;
	int pod_fd, host_fd, ret;

	if (!st->moved)
		return 0;
	pod_fd = path[0] ? netns_open(path) : -ENOENT;
	if (pod_fd < 0)
		return 0;
	host_fd = netns_open(NULL);
	if (host_fd < 0) {
		close(pod_fd);
		return cni_fail(err, CNI_ERR_IO,
				"opening our own network namespace failed: %s",
				strerror(-host_fd));
	}
	ret = cni_kernel_move(st->kernel_index, st->kernel_device, host_fd,
			      pod_fd, err);
	close(host_fd);
	close(pod_fd);
	return ret;
}

int cni_teardown(const char *dir, const char *key, const struct cni_state *st,
		 const char *netns, struct cni_err *err)
{
	if (st->mode == CNI_MODE_KERNEL)
		return teardown_kernel(st, netns, err);
	return teardown_soft(dir, key, st, netns, err);
}

int cni_cmd_del(struct cni_ctx *ctx)
{
	const char *dir = ctx->conf.state_dir;
	char key[CNI_STATE_KEY_MAX];
	struct cni_state st;
	int lock, ret;

	lock = cni_attachment_lock(ctx, key);
	if (lock < 0)
		return lock;
	ret = cni_state_read(dir, key, &st);
	/* No record: nothing was made, or it was already deleted. */
	if (ret == -ENOENT || ret == -EBADMSG)
		ret = 0;
	else if (ret == 0)
		ret = cni_teardown(dir, key, &st, ctx->env.netns, &ctx->err);
	else
		cni_fail(&ctx->err, CNI_ERR_IO, "reading state %s/%s.json: %s",
			 dir, key, strerror(-ret));
	if (ret < 0) {
		close(lock);	/* keep the record for a retry */
		return ret;
	}
	ret = cni_state_remove(dir, key, lock);
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_IO,
				"removing state %s/%s: %s", dir, key,
				strerror(-ret));
	return 0;
}

static int gc_one(const char *key, void *arg)
{
	struct cni_ctx *ctx = arg;
	const char *dir = ctx->conf.state_dir;
	struct cni_state st;
	int lock, ret;

	lock = cni_state_lock(dir, key);
	if (lock < 0)
		return 0;	/* best effort: the next GC retries */
	ret = cni_state_read(dir, key, &st);
	if (ret == 0 && (strcmp(st.network, ctx->conf.name) ||
			 cni_gc_is_valid(ctx->conf.attachments,
					 st.containerid, st.ifname))) {
		close(lock);
		return 0;
	}
	/* A corrupt record holds nothing we could undo; drop it. */
	if (ret == 0 && cni_teardown(dir, key, &st, "", &ctx->err) < 0) {
		fprintf(stderr, "podverbs: GC of %s: %s\n", key, ctx->err.msg);
		memset(&ctx->err, 0, sizeof(ctx->err));
		close(lock);
		return 0;
	}
	cni_state_remove(dir, key, lock);
	return 0;
}

int cni_cmd_gc(struct cni_ctx *ctx)
{
	if (!cni_gc_list_valid(ctx->conf.attachments))
		return cni_fail(&ctx->err, CNI_ERR_INVALID_CONFIG,
				"GC: \"cni.dev/valid-attachments\" must be a list of {\"containerID\", \"ifname\"}");
	return cni_state_each(ctx->conf.state_dir, ctx->conf.name, gc_one, ctx);
}
