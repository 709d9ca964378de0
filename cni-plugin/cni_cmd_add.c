/* SPDX-License-Identifier: MIT */
/*
 * ADD: a chained plugin.  The interface plugin before us (bridge, macvlan,
 * ipvlan with host-local IPAM) made CNI_IFNAME in the pod's namespace and
 * reported it in prevResult; we give the pod an RDMA device bound to it
 * and pass prevResult on unchanged.
 *
 * Order, so that a failure at any step leaves nothing behind: lock the
 * attachment, undo an earlier ADD of it, record "adding" (namespace
 * identity, interface, device name), claim the interface (cni_claim.h),
 * check the engine has no device there, create, record "ready" with the
 * device id; on failure undo and remove the record.  A crash between the
 * engine's answer and the "ready" record leaves "adding" and our claim,
 * from which DEL, GC or the next ADD find the device by (namespace,
 * interface) and delete it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cni-plugin/cni_claim.h"
#include "cni-plugin/cni_cmd.h"
#include "cni-plugin/cni_engine.h"
#include "cni-plugin/cni_kernel.h"
#include "cni-plugin/cni_result.h"
#include "netns/netns.h"

/* The interface must be in prevResult and really in the namespace, which
 * stays open in *ret_ns_fd for the rest of ADD. */
static int find_interface(struct cni_ctx *ctx, int *ret_ns_fd)
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
	ns_fd = cni_pod_netns_open(ctx);
	if (ns_fd < 0)
		return ns_fd;
	ret = cni_pod_link_get(ctx, ns_fd, &link);
	if (ret < 0) {
		close(ns_fd);
		return ret;
	}
	*ret_ns_fd = ns_fd;
	return 0;
}

/*
 * Test builds only (build/tests/bin/podverbs-fault, -DCNI_TEST_FAULTS):
 * PODVERBS_CNI_TEST_CRASH_AT=<point> kills the plugin there with SIGKILL,
 * as a node losing power would, so tests can show DEL and a retried ADD
 * clean up.  The shipped plugin has no such hook.
 */
#ifdef CNI_TEST_FAULTS
static void test_crash_point(const char *point)
{
	const char *want = getenv("PODVERBS_CNI_TEST_CRASH_AT");

	if (want && !strcmp(want, point))
		raise(SIGKILL);
}
#else
static inline void test_crash_point(const char *point)
{
	(void)point;
}
#endif

/* A device the engine already has on our interface is not ours: our
 * claim is fresh, and any device of an earlier ADD of ours is gone
 * (add_locked tore it down). */
static int check_not_taken(struct cni_ctx *ctx, struct cni_engine *eng,
			   const struct cni_state *st)
{
	struct pv_ipc_adm_dev_list *list;
	const struct pv_ipc_adm_dev *dev;
	int ret;

	ret = cni_engine_dev_list(eng, &list, &ctx->err);
	if (ret < 0)
		return ret;
	dev = cni_engine_find_ns(list, st->netns_dev, st->netns_ino,
				 st->ifname, NULL);
	if (dev) {
		cni_fail(&ctx->err, CNI_ERR_ENGINE,
			       "engine: interface %s in %s already has RDMA device \"%.*s\" (id %u), not made by this attachment",
			       st->ifname, ctx->env.netns,
			       (int)sizeof(dev->info.name), dev->info.name,
			       dev->info.dev_id);
		ret = -EEXIST;
	}
	free(list);
	return ret;
}

/* The GIDs of the addresses prevResult assigns to our interface: the
 * device must own them even if another pod added one of them to its own
 * interface while ours was away (issue 8: GID squatting).  A malformed
 * or missing list claims nothing (the device still works, unprotected). */
static void attachment_claims(struct cni_ctx *ctx,
			      struct pv_ipc_adm_dev_claims *cl)
{
	struct cni_ip ips[PV_GID_CLAIM_MAX];
	int iface = cni_result_find_iface(ctx->conf.prev_result,
					  ctx->env.ifname, ctx->env.netns);
	int n = iface < 0 ? 0 : cni_result_ips(ctx->conf.prev_result, iface,
						0, ips, PV_GID_CLAIM_MAX);

	memset(cl, 0, sizeof(*cl));
	for (int i = 0; i < n; i++) {
		uint8_t *g = cl->gid[cl->count++];

		if (ips[i].family == AF_INET) {
			g[10] = g[11] = 0xff;
			memcpy(g + 12, ips[i].addr, 4);
		} else {
			memcpy(g, ips[i].addr, 16);
		}
	}
}

/* *ret_refused: the engine had another device there, so nothing may be
 * looked up by (namespace, interface) when undoing. */
static int add_soft(struct cni_ctx *ctx, struct cni_state *st,
		    int *ret_refused)
{
	struct pv_ipc_adm_dev_claims claims;
	struct pv_ipc_dev_info info;
	struct pv_ipc_adm_dev_pod pod;
	struct cni_engine eng;
	int ret;

	attachment_claims(ctx, &claims);
	/* Kubernetes' runtimes pass the pod in CNI_ARGS; too long or
	 * absent: no labels (never a failure). */
	memset(&pod, 0, sizeof(pod));
	if (cni_env_arg(ctx->env.args, "K8S_POD_NAMESPACE", pod.ns,
			sizeof(pod.ns)) <= 0 ||
	    cni_env_arg(ctx->env.args, "K8S_POD_NAME", pod.name,
			sizeof(pod.name)) <= 0)
		memset(&pod, 0, sizeof(pod));
	ret = cni_engine_open(&eng, ctx->conf.engine_socket,
			      ctx->conf.admin_socket, &ctx->err);
	if (ret < 0)
		return ret;
	ret = check_not_taken(ctx, &eng, st);
	if (ret == 0)
		ret = cni_engine_dev_add(&eng, ctx->env.netns, ctx->env.ifname,
					 ctx->conf.device_name, ctx->conf.pkey,
					 &claims, &pod, &info, &ctx->err);
	cni_engine_close(&eng);
	*ret_refused = ret == -EEXIST;
	if (ret < 0)
		return ret;
	test_crash_point("engine-added");
	st->dev_id = info.dev_id;
	return 0;
}

/* The owner of a claim that is not ours no longer holds one there: its
 * record is gone, or names another namespace or interface. */
static int claim_stale(const char *dir, const char *owner,
		       const struct cni_state *st)
{
	struct cni_state o;
	int ret;

	if (strchr(owner, '/') || !owner[0])
		return 0;
	ret = cni_state_read(dir, owner, &o);
	if (ret == -ENOENT || ret == -EBADMSG)
		return 1;
	return ret == 0 && (o.netns_dev != st->netns_dev ||
			    o.netns_ino != st->netns_ino ||
			    strcmp(o.ifname, st->ifname) != 0);
}

static int claim_soft(struct cni_ctx *ctx, const char *key,
		      const struct cni_state *st)
{
	const char *dir = ctx->conf.state_dir;
	char owner[CNI_STATE_KEY_MAX];
	int ret;

	ret = cni_claim_take(dir, st, key, owner, sizeof(owner));
	if (ret == -EEXIST && claim_stale(dir, owner, st))
		ret = cni_claim_replace(dir, st, key);
	if (ret == -EEXIST)
		return cni_fail(&ctx->err, CNI_ERR_ENGINE,
				"interface %s in %s already has an RDMA device of attachment %s (one device per interface)",
				st->ifname, ctx->env.netns, owner);
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_IO,
				"claiming %s in state folder %s failed: %s",
				st->ifname, dir, strerror(-ret));
	return 0;
}

/*
 * Kernel mode.  Exclusive netns mode: the device moves into the pod (DEL
 * moves it back).  Shared mode (the kernel's default): every namespace
 * already sees every RDMA device, so there is nothing to move and nothing
 * to isolate; ADD checks the device exists and succeeds (shared pools of
 * the device plugin hand one device to several pods this way).
 */
static int add_kernel(struct cni_ctx *ctx, int ns_fd, struct cni_state *st)
{
	struct cni_rdma_dev dev;
	int mode, ret;

	ret = cni_kernel_netns_mode(&mode, &ctx->err);
	if (ret < 0)
		return ret;
	ret = cni_kernel_find(ctx->conf.kernel_device, ctx->conf.device_id,
			      &dev, &ctx->err);
	if (ret < 0)
		return ret;
	strcpy(st->kernel_device, dev.name);
	st->kernel_index = dev.index;
	if (mode == CNI_RDMA_NETNS_SHARED)
		return 0;
	ret = cni_kernel_move(dev.index, dev.name, ns_fd, -1, &ctx->err);
	if (ret == 0)
		st->moved = 1;
	return ret;
}

static int state_init(struct cni_ctx *ctx, int ns_fd, struct cni_state *st)
{
	struct netns_id id;
	int ret;

	memset(st, 0, sizeof(*st));
	strcpy(st->network, ctx->conf.name);
	strcpy(st->containerid, ctx->env.containerid);
	strcpy(st->ifname, ctx->env.ifname);
	strcpy(st->netns, ctx->env.netns);
	st->mode = ctx->conf.mode;
	st->phase = CNI_PHASE_ADDING;
	strcpy(st->engine_socket, ctx->conf.engine_socket);
	strcpy(st->admin_socket, ctx->conf.admin_socket);
	strcpy(st->device_name, ctx->conf.device_name);
	st->pkey = ctx->conf.pkey;
	ret = netns_id_of_fd(ns_fd, &id);
	if (ret < 0)
		return cni_fail(&ctx->err, CNI_ERR_INVALID_ENV,
				"CNI_NETNS %s: %s", ctx->env.netns,
				strerror(-ret));
	st->netns_dev = id.dev;
	st->netns_ino = id.ino;
	return 0;
}

static int write_state(struct cni_ctx *ctx, const char *key,
		       const struct cni_state *st)
{
	int ret = cni_state_write(ctx->conf.state_dir, key, st);

	if (ret < 0)
		cni_fail(&ctx->err, CNI_ERR_IO,
			 "writing state %s/%s.json failed: %s",
			 ctx->conf.state_dir, key, strerror(-ret));
	return ret;
}

/* Soft mode: the claim, then the engine; see cni_claim.h. */
static int add_device(struct cni_ctx *ctx, int ns_fd, const char *key,
		      struct cni_state *st)
{
	int refused = 0, ret;

	if (st->mode == CNI_MODE_KERNEL)
		return add_kernel(ctx, ns_fd, st);
	ret = claim_soft(ctx, key, st);
	if (ret < 0)
		return ret;
	ret = add_soft(ctx, st, &refused);
	/* Another's device is there: give up the claim first, so that no
	 * undo (ours below, or a DEL after we die) looks it up. */
	if (refused)
		cni_claim_drop(ctx->conf.state_dir, st, key);
	return ret;
}

/* Does the work under the attachment's lock, and releases it.  ns_fd is
 * CNI_NETNS. */
static int add_locked(struct cni_ctx *ctx, int ns_fd, const char *key,
		      int lock)
{
	const char *dir = ctx->conf.state_dir;
	struct cni_err ignored = { 0 };
	struct cni_state st, old;
	int ret;

	/* ADD again without DEL (a runtime retrying, or one that died
	 * half-way): start from clean. */
	if (cni_state_read(dir, key, &old) == 0) {
		ret = cni_teardown(dir, key, &old, ctx->env.netns, &ctx->err);
		if (ret < 0)
			goto err_unlock;	/* keep the old record */
	}
	ret = state_init(ctx, ns_fd, &st);
	if (ret < 0)
		goto err_remove;
	/* Recorded before the engine is asked: a crash from here on leaves
	 * a record naming the namespace, interface and device name. */
	ret = write_state(ctx, key, &st);
	if (ret < 0)
		goto err_remove;
	ret = add_device(ctx, ns_fd, key, &st);
	if (ret < 0)
		goto err_undo;
	st.phase = CNI_PHASE_READY;
	ret = write_state(ctx, key, &st);
	if (ret < 0)
		goto err_undo;
	close(lock);
	return 0;

err_undo:
	cni_teardown(dir, key, &st, ctx->env.netns, &ignored);
err_remove:
	cni_state_remove(dir, key, lock);
	return ret;
err_unlock:
	close(lock);
	return ret;
}

/* Locks the attachment and makes it; ns_fd is CNI_NETNS. */
static int add_attachment(struct cni_ctx *ctx, int ns_fd)
{
	char key[CNI_STATE_KEY_MAX];
	int lock = cni_attachment_lock(ctx, key);

	if (lock < 0)
		return lock;
	return add_locked(ctx, ns_fd, key, lock);
}

int cni_cmd_add(struct cni_ctx *ctx)
{
	cJSON *res;
	int ns_fd, ret;

	ret = find_interface(ctx, &ns_fd);
	if (ret < 0)
		return ret;
	ret = add_attachment(ctx, ns_fd);
	close(ns_fd);
	if (ret < 0)
		return ret;
	res = cni_result_convert(ctx->conf.prev_result, ctx->conf.ver);
	ctx->out = res ? cJSON_Print(res) : NULL;
	cJSON_Delete(res);
	if (!ctx->out)
		return cni_fail(&ctx->err, CNI_ERR_IO, "out of memory");
	return 0;
}
