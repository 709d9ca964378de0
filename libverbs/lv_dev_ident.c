/* SPDX-License-Identifier: MIT */
/*
 * A provider device's index and sysfs paths beside the kernel's devices
 * (why these values: lv_dev_ident.h).  Pure: no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "libverbs/lv_dev_ident.h"

int lv_prov_dev_index(uint32_t dev_id)
{
	if (dev_id == 0 || dev_id >= LV_PROV_INDEX_BASE)
		return -1;
	return LV_PROV_INDEX_BASE + (int)dev_id;
}

void lv_dev_index_unclash(int *idx, const bool *kern, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (kern[i] || idx[i] < 0)
			continue;
		for (size_t j = 0; j < n; j++)
			if (kern[j] && idx[j] == idx[i]) {
				idx[i] = -1;
				break;
			}
	}
}

bool lv_dev_name_ok(const char *name)
{
	size_t len = strnlen(name, IBV_SYSFS_NAME_MAX);

	return len > 0 && len < IBV_SYSFS_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

bool lv_dev_name_kern(const char *dev_name)
{
	const char *p = dev_name;

	if (strncmp(p, "uverbs", 6) != 0)
		return false;
	for (p += 6; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int lv_prov_dev_paths(const char *sysfs, const char *name,
		      const char *dev_name, bool pod_tree,
		      char *dev_path, size_t dev_path_len,
		      char *ibdev_path, size_t ibdev_path_len)
{
	const char *node = dev_name;
	int a, b;

	if (!lv_dev_name_ok(node) || lv_dev_name_kern(node))
		node = LV_PROV_SYSFS_CLASS;
	a = snprintf(dev_path, dev_path_len, "%s/class/infiniband_verbs/%s",
		     sysfs, node);
	if (!lv_dev_name_ok(name))
		b = snprintf(ibdev_path, ibdev_path_len, "%s/class/%s", sysfs,
			     LV_PROV_SYSFS_CLASS);
	else
		b = snprintf(ibdev_path, ibdev_path_len, "%s/class/%s/%s",
			     sysfs, pod_tree ? "infiniband" :
			     LV_PROV_SYSFS_CLASS, name);
	if (a < 0 || (size_t)a >= dev_path_len || b < 0 ||
	    (size_t)b >= ibdev_path_len) {
		dev_path[0] = '\0';
		ibdev_path[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}
