/* SPDX-License-Identifier: MIT */
/*
 * Device list and per-device queries: ibv_get_device_list asks every
 * provider compiled in for its devices, then appends the host's kernel
 * devices (lv_kern_dev.c; none without /sys/class/infiniband_verbs);
 * devices are refcounted so an open context keeps its device alive after
 * ibv_free_device_list.  Provider devices' indices and sysfs paths never
 * equal a kernel device's (lv_dev_ident.h).
 */
#include <endian.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_dev_ident.h"
#include "libverbs/lv_kern.h"

void lv_device_ref(struct pv_device *dev)
{
	atomic_fetch_add(&dev->refcnt, 1);
}

void lv_device_unref(struct pv_device *dev)
{
	if (dev && atomic_fetch_sub(&dev->refcnt, 1) == 1)
		free(dev);
}

/* <sysfs>/class/infiniband/<name> is a per-pod tree's folder (pvctl
 * sysfs mounted over the class): a real folder not on sysfs.  A kernel
 * device's entry is a symbolic link on sysfs. */
static bool in_pod_tree(const char *sysfs, const char *name)
{
	char path[IBV_SYSFS_PATH_MAX];
	struct statfs fs;
	struct stat st;

	if (!lv_dev_name_ok(name) ||
	    snprintf(path, sizeof(path), "%s/class/infiniband/%s", sysfs,
		     name) >= (int)sizeof(path))
		return false;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       statfs(path, &fs) == 0 && fs.f_type != SYSFS_MAGIC;
}

static struct pv_device *device_new(const struct pv_provider *prov,
				    const struct pv_dev_desc *d)
{
	struct pv_device *dev = calloc(1, sizeof(*dev));
	const char *sysfs = ibv_get_sysfs_path();

	if (!dev)
		return NULL;
	dev->prov = prov;
	dev->dev_id = d->dev_id;
	dev->node_guid = d->node_guid;
	dev->index = lv_prov_dev_index(d->dev_id);
	atomic_init(&dev->refcnt, 1);
	dev->ibv.node_type = d->node_type;
	dev->ibv.transport_type = d->transport_type;
	snprintf(dev->ibv.name, sizeof(dev->ibv.name), "%s", d->name);
	/* No kernel uverbs node backs a provider device: the names and paths
	 * are synthetic, so sysfs reads under them fail like missing files
	 * (or read a per-pod tree); a provider may name a stand-in node
	 * (soft: common/pv_devnode.h). */
	if (d->dev_name[0])
		snprintf(dev->ibv.dev_name, sizeof(dev->ibv.dev_name), "%s",
			 d->dev_name);
	else
		snprintf(dev->ibv.dev_name, sizeof(dev->ibv.dev_name),
			 LV_PROV_SYSFS_CLASS "%u", d->dev_id);
	lv_prov_dev_paths(sysfs, dev->ibv.name, dev->ibv.dev_name,
			  in_pod_tree(sysfs, dev->ibv.name),
			  dev->ibv.dev_path, sizeof(dev->ibv.dev_path),
			  dev->ibv.ibdev_path, sizeof(dev->ibv.ibdev_path));
	return dev;
}

/* Appends one provider's devices to *list (n entries so far, grown). */
static int add_provider_devices(const struct pv_provider *prov,
				struct ibv_device ***list, int *n)
{
	const struct pv_provider_ops *ops = lv_provider_ops(prov);
	struct pv_dev_desc *descs = NULL;
	struct ibv_device **grown;
	char why[256] = "";
	int count;

	count = ops->discover(&descs, why, sizeof(why));
	if (count < 0) {
		if (getenv("PODVERBS_DEBUG"))
			fprintf(stderr, "podverbs: %s\n",
				why[0] ? why : strerror(-count));
		return 0;	/* a provider without devices is not an error */
	}
	grown = realloc(*list, sizeof(**list) * (*n + count + 1));
	if (!grown)
		goto err_free_descs;
	*list = grown;
	for (int i = 0; i < count; i++) {
		struct pv_device *dev = device_new(prov, &descs[i]);

		if (!dev)
			goto err_free_descs;
		(*list)[(*n)++] = &dev->ibv;
		(*list)[*n] = NULL;
	}
	free(descs);
	return 0;

err_free_descs:
	free(descs);
	return -ENOMEM;
}

static void put_device(struct ibv_device *d)
{
	if (lv_kern_is_dev(d))
		lv_kern_dev_put(d);
	else
		lv_device_unref((struct pv_device *)d);
}

/* No provider device keeps an index a kernel device of the list holds. */
static int unclash(struct ibv_device **list, int n)
{
	int *idx;
	bool *kern;

	if (n < 2)
		return 0;
	idx = calloc((size_t)n, sizeof(*idx));
	kern = calloc((size_t)n, sizeof(*kern));
	if (!idx || !kern) {
		free(idx);
		free(kern);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		kern[i] = lv_kern_is_dev(list[i]);
		idx[i] = ibv_get_device_index(list[i]);
	}
	lv_dev_index_unclash(idx, kern, (size_t)n);
	for (int i = 0; i < n; i++)
		if (!kern[i])
			((struct pv_device *)list[i])->index = idx[i];
	free(idx);
	free(kern);
	return 0;
}

LV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(1, sizeof(*list));
	int n = 0;

	if (!list)
		goto err_nomem;
	for (size_t i = 0; i < lv_provider_count(); i++)
		if (add_provider_devices(lv_provider_at(i), &list, &n) < 0)
			goto err_free_list;
	if (lv_kern_add_devices(&list, &n) < 0 || unclash(list, n) < 0)
		goto err_free_list;
	if (num_devices)
		*num_devices = n;
	return list;

err_free_list:
	for (int i = 0; i < n; i++)
		put_device(list[i]);
	free(list);
err_nomem:
	if (num_devices)
		*num_devices = 0;
	errno = ENOMEM;
	return NULL;
}

LV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	if (!list)
		return;
	for (struct ibv_device **d = list; *d; d++)
		put_device(*d);
	free(list);
}

LV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

LV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	const struct pv_device *dev = (const struct pv_device *)device;

	if (lv_kern_is_dev(device))
		return lv_kern_dev_guid(device);
	return dev->node_guid;	/* already big-endian */
}

LV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	if (lv_kern_is_dev(device))
		return lv_vdev(device)->sysfs->ibdev_idx;
	return ((const struct pv_device *)device)->index;
}
