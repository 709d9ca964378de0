// SPDX-License-Identifier: MIT
/*
 * Pool model: device lists, selector matching, preferred allocation.
 */
#include "device-plugin/dp_pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool list_has(const struct dp_strlist *l, const char *v)
{
	for (int i = 0; i < l->n; i++)
		if (strcasecmp(l->v[i], v) == 0)
			return true;
	return false;
}

/* Selector IDs may carry a 0x prefix; sysfs values have had it removed. */
static bool hex_list_has(const struct dp_strlist *l, const char *v)
{
	for (int i = 0; i < l->n; i++) {
		const char *s = l->v[i];

		if (strncasecmp(s, "0x", 2) == 0)
			s += 2;
		if (strcasecmp(s, v) == 0)
			return true;
	}
	return false;
}

static const char *link_kind(const char *s)
{
	if (!strcasecmp(s, "ether") || !strcasecmp(s, "ethernet"))
		return "ethernet";
	if (!strcasecmp(s, "ib") || !strcasecmp(s, "infiniband"))
		return "infiniband";
	return s;
}

static bool link_list_has(const struct dp_strlist *l, const char *v)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(link_kind(l->v[i]), link_kind(v)) == 0)
			return true;
	return false;
}

bool dp_pool_match(const struct dp_selectors *sel, const struct dp_kdev *d)
{
	if (sel->vendors.n && !hex_list_has(&sel->vendors, d->vendor))
		return false;
	if (sel->device_ids.n && !hex_list_has(&sel->device_ids, d->device_id))
		return false;
	if (sel->drivers.n && !list_has(&sel->drivers, d->driver))
		return false;
	if (sel->if_names.n && !list_has(&sel->if_names, d->netdev))
		return false;
	if (sel->link_types.n && !link_list_has(&sel->link_types, d->link_layer))
		return false;
	if (sel->rdma_devices.n && !list_has(&sel->rdma_devices, d->name))
		return false;
	return true;
}

void dp_pool_init(struct dp_pool *p, const struct dp_pool_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
}

void dp_pool_fini(struct dp_pool *p)
{
	free(p->devs);
	p->devs = NULL;
	p->ndev = 0;
}

/* Merges a scan into the remembered kernel devices. */
static void merge_scan(struct dp_pool *p, const struct dp_kdev *scan, int n)
{
	for (int k = 0; k < p->nkdev; k++)
		p->kdev_present[k] = false;
	for (int i = 0; i < n; i++) {
		int k;

		if (!dp_pool_match(&p->cfg->sel, &scan[i]))
			continue;
		for (k = 0; k < p->nkdev; k++)
			if (strcmp(p->kdevs[k].name, scan[i].name) == 0)
				break;
		if (k == p->nkdev) {
			if (p->nkdev == DP_MAX_KDEVS)
				continue;
			p->nkdev++;
		}
		p->kdevs[k] = scan[i];
		p->kdev_present[k] = true;
	}
}

static int build_devs(const struct dp_pool *p, bool engine_ok,
		      struct dp_dev **ret, int *ret_n)
{
	const struct dp_pool_config *c = p->cfg;
	int n = c->kind == DP_POOL_SOFT ? (int)c->slots
					: p->nkdev * (int)c->slots;
	struct dp_dev *d = calloc(n ? n : 1, sizeof(*d));
	int i = 0;

	if (!d)
		return -ENOMEM;
	if (c->kind == DP_POOL_SOFT) {
		for (; i < n; i++) {
			snprintf(d[i].id, sizeof(d[i].id), "soft-%d", i);
			d[i].healthy = engine_ok;
			d[i].numa = -1;
			d[i].kdev = -1;
			d[i].slot = i;
		}
	} else {
		for (int k = 0; k < p->nkdev; k++) {
			const struct dp_kdev *kd = &p->kdevs[k];

			for (unsigned s = 0; s < c->slots; s++, i++) {
				if (c->mode == DP_MODE_EXCLUSIVE)
					snprintf(d[i].id, sizeof(d[i].id), "%s",
						 kd->name);
				else
					snprintf(d[i].id, sizeof(d[i].id),
						 "%s-%u", kd->name, s);
				d[i].healthy = p->kdev_present[k] &&
					       kd->port_active && kd->uverbs >= 0;
				d[i].numa = kd->numa;
				d[i].kdev = k;
				d[i].slot = (int)s;
			}
		}
	}
	*ret = d;
	*ret_n = n;
	return 0;
}

int dp_pool_update(struct dp_pool *p, const struct dp_kdev *scan, int n,
		   bool engine_ok)
{
	struct dp_dev *devs;
	int ndev, ret;

	if (p->cfg->kind == DP_POOL_KERNEL)
		merge_scan(p, scan, n);
	ret = build_devs(p, engine_ok, &devs, &ndev);
	if (ret)
		return ret;
	if (p->devs && ndev == p->ndev &&
	    memcmp(devs, p->devs, sizeof(*devs) * ndev) == 0) {
		free(devs);
		return 0;
	}
	free(p->devs);
	p->devs = devs;
	p->ndev = ndev;
	p->gen++;
	return 1;
}

const struct dp_dev *dp_pool_find(const struct dp_pool *p, const char *id)
{
	for (int i = 0; i < p->ndev; i++)
		if (strcmp(p->devs[i].id, id) == 0)
			return &p->devs[i];
	return NULL;
}

void dp_pool_count(const struct dp_pool *p, int *healthy, int *unhealthy)
{
	*healthy = *unhealthy = 0;
	for (int i = 0; i < p->ndev; i++)
		(*(p->devs[i].healthy ? healthy : unhealthy))++;
}

static bool in_set(const char *const *set, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (strcmp(set[i], id) == 0)
			return true;
	return false;
}

/* The NUMA node to fill from: the one holding most must-include devices,
 * then the one with most free candidates. -1 when there is no topology. */
static int pick_node(const struct dp_pool *p, const char *const *avail,
		     int navail, const char *const *must, int nmust)
{
	int best = -1, best_must = -1, best_free = -1;

	for (int i = 0; i < navail; i++) {
		const struct dp_dev *d = dp_pool_find(p, avail[i]);
		int node = d ? d->numa : -1, m = 0, f = 0;

		if (node < 0 || node == best)
			continue;
		for (int j = 0; j < navail; j++) {
			const struct dp_dev *e = dp_pool_find(p, avail[j]);

			if (!e || e->numa != node)
				continue;
			if (in_set(must, nmust, avail[j]))
				m++;
			else
				f++;
		}
		if (m > best_must || (m == best_must && f > best_free) ||
		    (m == best_must && f == best_free && node < best)) {
			best = node;
			best_must = m;
			best_free = f;
		}
	}
	return best;
}

/* Ranks a candidate: lower is better.  Same node first, then the lowest
 * slot (spreads over physical devices), then its order in avail. */
static long rank(const struct dp_pool *p, const char *id, int node, int pos)
{
	const struct dp_dev *d = dp_pool_find(p, id);
	long r = pos;

	if (!d)
		return 1L << 40;
	if (node >= 0 && d->numa != node)
		r += 1L << 30;
	r += (long)d->slot << 16;
	return r;
}

int dp_pool_preferred(const struct dp_pool *p, const char *const *avail,
		      int navail, const char *const *must, int nmust,
		      int size, const char **out)
{
	int n = 0, node;

	if (size < nmust || size < 0)
		return -EINVAL;
	for (int i = 0; i < nmust; i++) {
		if (!in_set(avail, navail, must[i]))
			return -EINVAL;
		out[n++] = must[i];
	}
	node = pick_node(p, avail, navail, must, nmust);
	while (n < size) {
		long best_r = 0;
		int best = -1;

		for (int i = 0; i < navail; i++) {
			long r;

			if (in_set(out, n, avail[i]))
				continue;
			r = rank(p, avail[i], node, i);
			if (best < 0 || r < best_r) {
				best = i;
				best_r = r;
			}
		}
		if (best < 0)
			break;
		out[n++] = avail[best];
	}
	return n;
}
