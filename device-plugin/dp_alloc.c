// SPDX-License-Identifier: MIT
/*
 * Allocate responses and CDI specs.
 */
#include "device-plugin/dp_alloc.h"
#include "common/pv_devnode.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DP_CDI_VERSION "0.5.0"

void dp_alloc_env_name(const char *resource, char *buf, size_t cap)
{
	size_t n = (size_t)snprintf(buf, cap, "PODVERBS_DEVICES_%s", resource);

	for (size_t i = 0; i < n && i < cap; i++)
		buf[i] = isalnum((unsigned char)buf[i]) ?
			 (char)toupper((unsigned char)buf[i]) : '_';
}

void dp_alloc_cdi_path(const struct dp_config *cfg,
		       const struct dp_pool_config *pc, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/podverbs-%s.json", cfg->cdi_dir,
		 strchr(pc->resource_name, '/') + 1);
}

/* Host folder of the engine socket ("/" for a socket at the root). */
static void engine_host_dir(const struct dp_config *cfg, char *buf,
			    size_t cap)
{
	char *slash;

	snprintf(buf, cap, "%s", cfg->engine_socket);
	slash = strrchr(buf, '/');
	*(slash == buf ? slash + 1 : slash) = 0;
}

static const char *engine_base(const struct dp_config *cfg)
{
	return strrchr(cfg->engine_socket, '/') + 1;
}

static int add_env(struct dp_arena *a, V1beta1__ContainerAllocateResponse *r,
		   const char *key, const char *value)
{
	V1beta1__ContainerAllocateResponse__EnvsEntry *e =
		dp_arena_alloc(a, sizeof(*e));

	if (!e)
		return -ENOMEM;
	v1beta1__container_allocate_response__envs_entry__init(e);
	e->key = dp_arena_strdup(a, key);
	e->value = dp_arena_strdup(a, value);
	r->envs[r->n_envs++] = e;
	return a->failed ? -ENOMEM : 0;
}

static int add_devspec(struct dp_arena *a,
		       V1beta1__ContainerAllocateResponse *r,
		       const struct dp_config *cfg, const char *node)
{
	V1beta1__DeviceSpec *d = dp_arena_alloc(a, sizeof(*d));

	if (!d)
		return -ENOMEM;
	v1beta1__device_spec__init(d);
	d->container_path = dp_arena_printf(a, "/dev/infiniband/%s", node);
	d->host_path = dp_arena_printf(a, "%s/%s", cfg->dev_dir, node);
	d->permissions = dp_arena_strdup(a, "rw");
	r->devices[r->n_devices++] = d;
	return a->failed ? -ENOMEM : 0;
}

static int alloc_soft(const struct dp_config *cfg, struct dp_arena *a,
		      V1beta1__ContainerAllocateResponse *r)
{
	V1beta1__Mount *m = dp_arena_alloc(a, sizeof(*m));
	char host[DP_PATH_MAX];
	char *env;

	V1beta1__DeviceSpec *d = dp_arena_alloc(a, sizeof(*d));

	r->mounts = dp_arena_alloc(a, sizeof(*r->mounts));
	r->envs = dp_arena_alloc(a, sizeof(*r->envs));
	r->devices = dp_arena_alloc(a, sizeof(*r->devices));
	if (!m || !d || !r->mounts || !r->envs || !r->devices)
		return -ENOMEM;
	/* The node a soft device names as dev_name (UCX keeps a verbs device
	 * only if it can open /dev/infiniband/<dev_name> read-write): the
	 * host's /dev/null under that name, reaching no RDMA kernel code
	 * (common/pv_devnode.h, docs/SECURITY.md). */
	v1beta1__device_spec__init(d);
	d->container_path = dp_arena_strdup(a, PV_DEVNODE_PATH);
	d->host_path = dp_arena_strdup(a, "/dev/null");
	d->permissions = dp_arena_strdup(a, "rw");
	r->devices[r->n_devices++] = d;
	v1beta1__mount__init(m);
	engine_host_dir(cfg, host, sizeof(host));
	m->host_path = dp_arena_strdup(a, host);
	m->container_path = dp_arena_strdup(a, cfg->container_engine_dir);
	m->read_only = 1;
	r->mounts[r->n_mounts++] = m;
	env = dp_arena_printf(a, "%s%s%s", cfg->container_engine_dir,
			      strcmp(cfg->container_engine_dir, "/") ? "/" : "",
			      engine_base(cfg));
	if (!env)
		return -ENOMEM;
	return add_env(a, r, "PODVERBS_ENGINE", env);
}

static cJSON *kdev_json(const struct dp_dev *d, const struct dp_kdev *k)
{
	cJSON *o = cJSON_CreateObject();
	char path[64];

	if (!o)
		return NULL;
	snprintf(path, sizeof(path), "/dev/infiniband/uverbs%d", k->uverbs);
	cJSON_AddStringToObject(o, "id", d->id);
	cJSON_AddStringToObject(o, "rdmaDevice", k->name);
	cJSON_AddStringToObject(o, "uverbs", path);
	if (k->umad >= 0) {
		snprintf(path, sizeof(path), "/dev/infiniband/umad%d", k->umad);
		cJSON_AddStringToObject(o, "umad", path);
	}
	cJSON_AddStringToObject(o, "pciAddress", k->pci_addr);
	cJSON_AddStringToObject(o, "vendor", k->vendor);
	cJSON_AddStringToObject(o, "deviceID", k->device_id);
	cJSON_AddStringToObject(o, "driver", k->driver);
	cJSON_AddStringToObject(o, "netdev", k->netdev);
	cJSON_AddStringToObject(o, "linkLayer", k->link_layer);
	cJSON_AddNumberToObject(o, "numaNode", k->numa);
	return o;
}

/* Device nodes of the distinct kernel devices behind ids, then rdma_cm. */
static int kernel_devspecs(const struct dp_config *cfg,
			   const struct dp_pool *p, const struct dp_dev **devs,
			   size_t n, struct dp_arena *a,
			   V1beta1__ContainerAllocateResponse *r)
{
	char node[32];
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		const struct dp_kdev *k = &p->kdevs[devs[i]->kdev];
		size_t j;

		for (j = 0; j < i && devs[j]->kdev != devs[i]->kdev; j++)
			;
		if (j < i)
			continue;
		snprintf(node, sizeof(node), "uverbs%d", k->uverbs);
		ret = add_devspec(a, r, cfg, node);
		if (!ret && p->cfg->umad && k->umad >= 0) {
			snprintf(node, sizeof(node), "umad%d", k->umad);
			ret = add_devspec(a, r, cfg, node);
		}
	}
	return ret ? ret : add_devspec(a, r, cfg, "rdma_cm");
}

static int alloc_kernel(const struct dp_config *cfg, const struct dp_pool *p,
			const struct dp_dev **devs, size_t n,
			struct dp_arena *a,
			V1beta1__ContainerAllocateResponse *r)
{
	cJSON *arr = cJSON_CreateArray();
	char env[DP_RESOURCE_MAX + 24], *json;
	int ret;

	r->devices = dp_arena_alloc(a, sizeof(*r->devices) * (2 * n + 1));
	r->envs = dp_arena_alloc(a, sizeof(*r->envs));
	if (!arr || !r->devices || !r->envs) {
		cJSON_Delete(arr);
		return -ENOMEM;
	}
	ret = kernel_devspecs(cfg, p, devs, n, a, r);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, kdev_json(devs[i],
						    &p->kdevs[devs[i]->kdev]));
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	if (!json)
		return -ENOMEM;
	dp_alloc_env_name(p->cfg->resource_name, env, sizeof(env));
	if (!ret)
		ret = add_env(a, r, env, json);
	free(json);
	return ret;
}

static int add_cdi(const struct dp_pool *p, const struct dp_dev **devs,
		   size_t n, struct dp_arena *a,
		   V1beta1__ContainerAllocateResponse *r)
{
	r->cdi_devices = dp_arena_alloc(a, sizeof(*r->cdi_devices) * n);
	if (!r->cdi_devices)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		V1beta1__CDIDevice *c = dp_arena_alloc(a, sizeof(*c));

		if (!c)
			return -ENOMEM;
		v1beta1__cdidevice__init(c);
		/* Fully qualified CDI name: vendor/class=device. */
		c->name = dp_arena_printf(a, "%s=%s", p->cfg->resource_name,
					  devs[i]->id);
		r->cdi_devices[r->n_cdi_devices++] = c;
	}
	return a->failed ? -ENOMEM : 0;
}

int dp_alloc_container(const struct dp_config *cfg, const struct dp_pool *p,
		       char *const *ids, size_t nids, struct dp_arena *a,
		       V1beta1__ContainerAllocateResponse **ret,
		       char *err, size_t errlen)
{
	V1beta1__ContainerAllocateResponse *r = dp_arena_alloc(a, sizeof(*r));
	const struct dp_dev **devs = dp_arena_alloc(a, sizeof(*devs) * (nids + 1));
	int rc;

	if (!r || !devs)
		return -ENOMEM;
	v1beta1__container_allocate_response__init(r);
	if (nids == 0) {
		snprintf(err, errlen, "%s: no device IDs in the request",
			 p->cfg->resource_name);
		return -EINVAL;
	}
	for (size_t i = 0; i < nids; i++) {
		devs[i] = dp_pool_find(p, ids[i]);
		if (!devs[i]) {
			snprintf(err, errlen, "%s: unknown device ID \"%s\"",
				 p->cfg->resource_name, ids[i]);
			return -EINVAL;
		}
	}
	if (p->cfg->kind == DP_POOL_SOFT)
		rc = alloc_soft(cfg, a, r);
	else
		rc = alloc_kernel(cfg, p, devs, nids, a, r);
	if (!rc && cfg->cdi_dir[0])
		rc = add_cdi(p, devs, nids, a, r);
	if (rc)
		return rc;
	*ret = r;
	return 0;
}

static cJSON *cdi_node(const struct dp_config *cfg, const char *node)
{
	cJSON *o = cJSON_CreateObject();
	char path[DP_PATH_MAX + 32];

	snprintf(path, sizeof(path), "/dev/infiniband/%s", node);
	cJSON_AddStringToObject(o, "path", path);
	snprintf(path, sizeof(path), "%s/%s", cfg->dev_dir, node);
	cJSON_AddStringToObject(o, "hostPath", path);
	cJSON_AddStringToObject(o, "permissions", "rw");
	return o;
}

static cJSON *cdi_edits(const struct dp_config *cfg, const struct dp_pool *p,
			const struct dp_dev *d)
{
	cJSON *e = cJSON_CreateObject();
	char buf[DP_PATH_MAX + 32];

	if (p->cfg->kind == DP_POOL_SOFT) {
		cJSON *mounts = cJSON_AddArrayToObject(e, "mounts");
		cJSON *m = cJSON_CreateObject();
		cJSON *env = cJSON_AddArrayToObject(e, "env");
		cJSON *opts = cJSON_CreateArray();

		engine_host_dir(cfg, buf, sizeof(buf));
		cJSON_AddStringToObject(m, "hostPath", buf);
		cJSON_AddStringToObject(m, "containerPath",
					cfg->container_engine_dir);
		cJSON_AddItemToArray(opts, cJSON_CreateString("ro"));
		cJSON_AddItemToArray(opts, cJSON_CreateString("bind"));
		cJSON_AddItemToObject(m, "options", opts);
		cJSON_AddItemToArray(mounts, m);
		snprintf(buf, sizeof(buf), "PODVERBS_ENGINE=%s/%s",
			 cfg->container_engine_dir, engine_base(cfg));
		cJSON_AddItemToArray(env, cJSON_CreateString(buf));
	} else {
		const struct dp_kdev *k = &p->kdevs[d->kdev];
		cJSON *nodes = cJSON_AddArrayToObject(e, "deviceNodes");

		snprintf(buf, sizeof(buf), "uverbs%d", k->uverbs);
		cJSON_AddItemToArray(nodes, cdi_node(cfg, buf));
		if (p->cfg->umad && k->umad >= 0) {
			snprintf(buf, sizeof(buf), "umad%d", k->umad);
			cJSON_AddItemToArray(nodes, cdi_node(cfg, buf));
		}
		cJSON_AddItemToArray(nodes, cdi_node(cfg, "rdma_cm"));
	}
	return e;
}

static int write_atomic(const char *path, const char *text)
{
	char tmp[DP_PATH_MAX + 96];
	size_t len = strlen(text), off = 0;
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0) {
			ret = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int dp_alloc_write_cdi(const struct dp_config *cfg, const struct dp_pool *p)
{
	cJSON *spec, *devices;
	char path[DP_PATH_MAX + 80], *text;
	int ret;

	if (!cfg->cdi_dir[0])
		return 0;
	spec = cJSON_CreateObject();
	if (!spec)
		return -ENOMEM;
	cJSON_AddStringToObject(spec, "cdiVersion", DP_CDI_VERSION);
	cJSON_AddStringToObject(spec, "kind", p->cfg->resource_name);
	devices = cJSON_AddArrayToObject(spec, "devices");
	for (int i = 0; i < p->ndev; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "name", p->devs[i].id);
		cJSON_AddItemToObject(d, "containerEdits",
				      cdi_edits(cfg, p, &p->devs[i]));
		cJSON_AddItemToArray(devices, d);
	}
	text = cJSON_Print(spec);
	cJSON_Delete(spec);
	if (!text)
		return -ENOMEM;
	dp_alloc_cdi_path(cfg, p->cfg, path, sizeof(path));
	ret = write_atomic(path, text);
	free(text);
	return ret;
}
