/* SPDX-License-Identifier: MIT */
/*
 * Pools: what each resource advertises to kubelet.  Pure logic — building
 * the device list from config, discovered kernel devices and engine
 * reachability; selector matching; preferred allocation.  No I/O here.
 *
 * Device IDs: soft slots "soft-<i>"; kernel exclusive "<ibdev>"; kernel
 * shared "<ibdev>-<slot>".  A kernel device once seen stays listed (as
 * Unhealthy) after it disappears, so kubelet sees it go bad rather than
 * silently shrinking capacity under running pods.
 */
#ifndef DP_POOL_H
#define DP_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "device-plugin/dp_config.h"
#include "device-plugin/dp_discover.h"

#define DP_ID_MAX 80

struct dp_dev {
	char id[DP_ID_MAX];
	bool healthy;
	int numa;		/* -1: no topology */
	int kdev;		/* index in pool->kdevs, -1 for soft */
	int slot;
};

struct dp_pool {
	const struct dp_pool_config *cfg;
	struct dp_kdev kdevs[DP_MAX_KDEVS];	/* matched, ever seen */
	bool kdev_present[DP_MAX_KDEVS];
	int nkdev;
	struct dp_dev *devs;
	int ndev;
	uint64_t gen;		/* bumped on every change of devs */
};

/* Pure: does a kernel device match the selectors? */
bool dp_pool_match(const struct dp_selectors *sel, const struct dp_kdev *d);

void dp_pool_init(struct dp_pool *p, const struct dp_pool_config *cfg);
void dp_pool_fini(struct dp_pool *p);

/*
 * Recomputes the device list from the latest scan (kdevs, n) and engine
 * reachability.  Returns 1 when the list changed (gen bumped), 0 when not,
 * -ENOMEM.
 */
int dp_pool_update(struct dp_pool *p, const struct dp_kdev *scan, int n,
		   bool engine_ok);

/* Finds a device by ID; NULL when unknown. */
const struct dp_dev *dp_pool_find(const struct dp_pool *p, const char *id);

/* Counts devices by health. */
void dp_pool_count(const struct dp_pool *p, int *healthy, int *unhealthy);

/*
 * Preferred allocation: picks size IDs from avail, all of must first, then
 * devices on the NUMA node best placed to satisfy the rest on its own,
 * spreading over distinct physical devices before reusing one.  Writes
 * pointers into avail/must to out[] and returns how many (<= size), or
 * -EINVAL when must names something not in avail or size < nmust.
 */
int dp_pool_preferred(const struct dp_pool *p, const char *const *avail,
		      int navail, const char *const *must, int nmust,
		      int size, const char **out);

#endif /* DP_POOL_H */
