/* SPDX-License-Identifier: MIT */
/* Per-device shares of fds, mappings and registered bytes (eng_quota.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_quota.h"
#include "providers/soft/engine/eng_stats.h"

#define FDS_RESERVE_MIN		256u
#define MAPS_RESERVE_MIN	1024u
#define MAPS_DEFAULT		65530u	/* the kernel's default */

static bool totals_known;
static uint64_t total[ENG_QUOTA_KINDS], reserve[ENG_QUOTA_KINDS];
static uint64_t all_used[ENG_QUOTA_KINDS];

bool eng_quota_fits(uint64_t dev_used, uint64_t all, uint64_t n,
		    uint64_t dev_limit, uint64_t tot, uint64_t res)
{
	uint64_t usable = tot > res ? tot - res : 0;

	/* However the limit is set, one device never gets more than half
	 * of what is shared: the others are never locked out. */
	if (dev_limit > usable / 2)
		dev_limit = usable / 2;
	if (n > dev_limit || dev_used > dev_limit - n)
		return false;
	return n <= usable && all <= usable - n;
}

static uint64_t max_map_count(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : MAPS_DEFAULT;
}

static uint64_t phys_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return (uint64_t)4 << 30;	/* unknown: assume 4 GiB */
	return (uint64_t)pages * (uint64_t)psz;
}

static void totals_read(void)
{
	struct rlimit rl;

	total[ENG_QUOTA_FDS] = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		total[ENG_QUOTA_FDS] = rl.rlim_cur;
	reserve[ENG_QUOTA_FDS] = total[ENG_QUOTA_FDS] / 4;
	if (reserve[ENG_QUOTA_FDS] < FDS_RESERVE_MIN)
		reserve[ENG_QUOTA_FDS] = FDS_RESERVE_MIN;
	total[ENG_QUOTA_MAPS] = max_map_count();
	reserve[ENG_QUOTA_MAPS] = total[ENG_QUOTA_MAPS] / 8;
	if (reserve[ENG_QUOTA_MAPS] < MAPS_RESERVE_MIN)
		reserve[ENG_QUOTA_MAPS] = MAPS_RESERVE_MIN;
	/* Registered bytes are charged to the pods' own memory (the
	 * engine refuses unpopulated memfds): per-device limit only. */
	total[ENG_QUOTA_MR_BYTES] = UINT64_MAX;
	reserve[ENG_QUOTA_MR_BYTES] = 0;
	/* Rings live in the engine's own memory: all devices together get
	 * at most half the machine's (one device half of that). */
	total[ENG_QUOTA_RING_BYTES] = phys_bytes() / 2;
	reserve[ENG_QUOTA_RING_BYTES] = 0;
	totals_known = true;
	eng_dbg("quota: %llu fds (%llu reserved), %llu mappings "
		"(%llu reserved)",
		(unsigned long long)total[ENG_QUOTA_FDS],
		(unsigned long long)reserve[ENG_QUOTA_FDS],
		(unsigned long long)total[ENG_QUOTA_MAPS],
		(unsigned long long)reserve[ENG_QUOTA_MAPS]);
}

static uint64_t dev_limit(enum eng_quota_kind kind)
{
	switch (kind) {
	case ENG_QUOTA_FDS:		return eng_lim.max_dev_fds;
	case ENG_QUOTA_MAPS:		return eng_lim.max_dev_maps;
	case ENG_QUOTA_MR_BYTES:	return eng_lim.max_dev_mr_mb << 20;
	case ENG_QUOTA_RING_BYTES:	return eng_lim.max_dev_ring_mb << 20;
	case ENG_QUOTA_KINDS:		break;
	}
	return 0;
}

static int refuse(const struct eng_conn *c, enum eng_quota_kind kind)
{
	static const char *const names[] = { "fd", "mapping", "MR byte",
					      "ring byte" };

	eng_dbg("client %u: device %s: %s quota reached", c->id,
		c->dev ? c->dev->name : "?", names[kind]);
	switch (kind) {
	case ENG_QUOTA_FDS:
		eng_stat_inc(quota_fds_hit);
		return eng_limit_hit(-EMFILE);
	case ENG_QUOTA_MAPS:
		eng_stat_inc(quota_maps_hit);
		break;
	case ENG_QUOTA_RING_BYTES:
		eng_stat_inc(quota_ring_bytes_hit);
		break;
	default:
		eng_stat_inc(quota_mr_bytes_hit);
		break;
	}
	return eng_limit_hit(-ENOMEM);
}

int eng_quota_take(struct eng_conn *c, enum eng_quota_kind kind, uint64_t n)
{
	uint64_t dev_used;

	if (!totals_known)
		totals_read();
	if (!c->dev)
		return -ENODEV;		/* device deleted: nothing new */
	dev_used = c->dev->quota.used[kind];
	if (!eng_quota_fits(dev_used, all_used[kind], n, dev_limit(kind),
			    total[kind], reserve[kind]))
		return refuse(c, kind);
	c->quota.used[kind] += n;
	c->dev->quota.used[kind] += n;
	all_used[kind] += n;
	return 0;
}

void eng_quota_put(struct eng_conn *c, enum eng_quota_kind kind, uint64_t n)
{
	/* Never below zero: a put without its take is a bug, not a
	 * reason to corrupt every later check. */
	if (n > c->quota.used[kind])
		n = c->quota.used[kind];
	c->quota.used[kind] -= n;
	all_used[kind] -= n <= all_used[kind] ? n : all_used[kind];
	if (c->dev)
		c->dev->quota.used[kind] -= n <= c->dev->quota.used[kind] ?
					    n : c->dev->quota.used[kind];
}

void eng_quota_move(struct eng_conn *from, struct eng_conn *to,
		    enum eng_quota_kind kind, uint64_t n)
{
	if (n > from->quota.used[kind])
		n = from->quota.used[kind];
	from->quota.used[kind] -= n;
	to->quota.used[kind] += n;
	/* The engine's total is unchanged; a device's sum only if the two
	 * are not on one (one lost its device: eng_quota_detach). */
	if (from->dev == to->dev)
		return;
	if (from->dev)
		from->dev->quota.used[kind] -= n <= from->dev->quota.used[kind]
					       ? n : from->dev->quota.used[kind];
	if (to->dev)
		to->dev->quota.used[kind] += n;
}

void eng_quota_detach(struct eng_conn *c)
{
	if (!c->dev)
		return;
	for (int k = 0; k < ENG_QUOTA_KINDS; k++) {
		uint64_t n = c->quota.used[k];

		c->dev->quota.used[k] -= n <= c->dev->quota.used[k] ?
					 n : c->dev->quota.used[k];
	}
}
