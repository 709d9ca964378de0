/* SPDX-License-Identifier: MIT */
/*
 * How a provider device (the soft ones) is told apart from the kernel's
 * in one device list: its ibv_get_device_index and its sysfs paths
 * (lv_dev_ident.c, pure).
 *
 * Index.  The kernel's ib_core numbers its devices cyclically over
 * 0..INT_MAX, each registration since boot taking the next number, so
 * its indices stay small in practice (a node would have to register 2^30
 * devices before reaching ours).  A provider device's index is
 * LV_PROV_INDEX_BASE + its provider id (the engine's device id,
 * 1..65535, kept across engine restarts by its state file), so it is the
 * same in every process and never one a kernel device holds in practice;
 * should a kernel device hold it anyway, the provider device's is -1
 * (rdma-core's "no index") in that list, so indices stay unique.
 *
 * Paths.  A kernel device's dev_path is <sysfs>/class/infiniband_verbs/
 * uverbsN and its ibdev_path <sysfs>/class/infiniband/<name>; a provider
 * device must never name those, or tools reading files under them would
 * read a kernel device's data.  Its dev_path ends in its dev_name
 * ("podverbs": the kernel names its nodes uverbsN only); its ibdev_path
 * is <sysfs>/class/infiniband/<name> only when that entry is a per-pod
 * tree's (pvctl sysfs, mounted over /sys/class/infiniband: a plain
 * folder, not sysfs), else <sysfs>/class/podverbs/<name>, a class no
 * kernel registers (reads fail as for a missing file).
 */
#ifndef LV_DEV_IDENT_H
#define LV_DEV_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LV_PROV_INDEX_BASE	0x40000000	/* 2^30 */
#define LV_PROV_SYSFS_CLASS	"podverbs"

/* LV_PROV_INDEX_BASE + dev_id for dev_id 1..LV_PROV_INDEX_BASE - 1, else
 * -1. */
int lv_prov_dev_index(uint32_t dev_id);

/* idx[0..n) are one list's indices, kern[i] true for a kernel device's:
 * every provider entry equal to a kernel entry becomes -1. */
void lv_dev_index_unclash(int *idx, const bool *kern, size_t n);

/* name is usable as one path component: 1..IBV_SYSFS_NAME_MAX - 1 bytes,
 * no '/', not "." or "..". */
bool lv_dev_name_ok(const char *name);

/* dev_name names a kernel uverbs node: "uverbs" and digits only. */
bool lv_dev_name_kern(const char *dev_name);

/*
 * A provider device's paths under sysfs (ibv_get_sysfs_path()): dev_path
 * from dev_name ("podverbs" instead when it is not usable or is a kernel
 * node's name), ibdev_path from name and pod_tree (true: a per-pod tree
 * holds <sysfs>/class/infiniband/<name>).  0, or -ENAMETOOLONG (paths
 * then empty).
 */
int lv_prov_dev_paths(const char *sysfs, const char *name,
		      const char *dev_name, bool pod_tree,
		      char *dev_path, size_t dev_path_len,
		      char *ibdev_path, size_t ibdev_path_len);

#endif
