/* SPDX-License-Identifier: MIT */
/*
 * What the metrics endpoint exposes (eng_metrics.h): the port counters
 * of every device (eng_hwc.h) as podverbs_port_<name>_total, per-device
 * gauges (clients, objects by kind, quota use: fds, mappings,
 * registered bytes), and the engine's own counters (eng_stats.h) as
 * podverbs_engine_<name>_total (gauges for the *_live ones).  A metric's
 * samples stay together, as the format requires.
 */
#include <stdio.h>
#include <string.h>

#include "providers/soft/engine/eng_metrics.h"
#include "providers/soft/engine/eng_obj.h"

#define DEV_LABELS 6	/* 5 of the device, one of the sample */

struct dev_labels {
	char id[12];
	struct eng_prom_label l[DEV_LABELS];
};

static unsigned dev_labels(const struct eng_dev *d, struct dev_labels *dl)
{
	snprintf(dl->id, sizeof(dl->id), "%u", d->id);
	dl->l[0] = (struct eng_prom_label){ "device", d->name,
					    sizeof(d->name) };
	dl->l[1] = (struct eng_prom_label){ "dev_id", dl->id, sizeof(dl->id) };
	dl->l[2] = (struct eng_prom_label){ "netns", d->netns_path,
					    sizeof(d->netns_path) };
	dl->l[3] = (struct eng_prom_label){ "pod_namespace", d->pod_ns,
					    sizeof(d->pod_ns) };
	dl->l[4] = (struct eng_prom_label){ "pod_name", d->pod_name,
					    sizeof(d->pod_name) };
	return d->pod_name[0] ? 5 : 3;
}

static void port_counters(struct eng *e, struct eng_prom_buf *b)
{
	char name[96], help[128];

	for (unsigned i = 0; i < ENG_HWC_COUNT; i++) {
		snprintf(name, sizeof(name), "podverbs_port_%s_total",
			 eng_hwc_name(i));
		snprintf(help, sizeof(help), "Port counter %s of the soft "
			 "RDMA device (rdma statistic name)", eng_hwc_name(i));
		eng_prom_family(b, name, "counter", help);
		for (uint32_t k = e->devs.min; k < e->devs.cap; k++) {
			struct eng_dev *d = e->devs.slot[k];
			struct dev_labels dl;

			if (d)
				eng_prom_sample(b, name, dl.l,
						dev_labels(d, &dl), d->hw.v[i]);
		}
	}
}

/* Objects of kind held on d by its connections. */
static uint64_t dev_objects(struct eng *e, const struct eng_dev *d,
			    uint32_t kind)
{
	struct eng_list *pos;
	uint64_t n = 0;

	for (pos = e->conns.next; pos != &e->conns; pos = pos->next) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);

		if (c->dev == d)
			n += c->count[kind];
	}
	return n;
}

static void dev_gauges(struct eng *e, struct eng_prom_buf *b)
{
	static const uint32_t kinds[] = { PV_OBJ_PD, PV_OBJ_MR, PV_OBJ_CQ,
		PV_OBJ_QP, PV_OBJ_SRQ, PV_OBJ_AH, PV_OBJ_CHANNEL, PV_OBJ_MW };
	static const char *const quota[ENG_QUOTA_KINDS] = {
		[ENG_QUOTA_FDS] = "fds", [ENG_QUOTA_MAPS] = "mappings",
		[ENG_QUOTA_MR_BYTES] = "mr_bytes",
		[ENG_QUOTA_RING_BYTES] = "ring_bytes",
	};
	struct dev_labels dl;

	eng_prom_family(b, "podverbs_device_clients", "gauge",
			"Connections with a context open on the device");
	for (uint32_t k = e->devs.min; k < e->devs.cap; k++) {
		struct eng_dev *d = e->devs.slot[k];

		if (d)
			eng_prom_sample(b, "podverbs_device_clients", dl.l,
					dev_labels(d, &dl), d->clients);
	}
	eng_prom_family(b, "podverbs_device_objects", "gauge",
			"Verbs objects held on the device, by kind");
	for (uint32_t k = e->devs.min; k < e->devs.cap; k++) {
		struct eng_dev *d = e->devs.slot[k];
		unsigned n;

		if (!d)
			continue;
		n = dev_labels(d, &dl);
		for (unsigned j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
			dl.l[n] = (struct eng_prom_label){ "kind",
				eng_obj_kind_name(kinds[j]), 16 };
			eng_prom_sample(b, "podverbs_device_objects", dl.l,
					n + 1, dev_objects(e, d, kinds[j]));
		}
	}
	eng_prom_family(b, "podverbs_device_resources", "gauge",
			"Engine resources the device's clients hold: fds, "
			"mappings, registered bytes (its quota use)");
	for (uint32_t k = e->devs.min; k < e->devs.cap; k++) {
		struct eng_dev *d = e->devs.slot[k];
		unsigned n;

		if (!d)
			continue;
		n = dev_labels(d, &dl);
		for (unsigned q = 0; q < ENG_QUOTA_KINDS; q++) {
			if (!quota[q])	/* a kind added without a name */
				continue;
			dl.l[n] = (struct eng_prom_label){ "resource",
							   quota[q], 16 };
			eng_prom_sample(b, "podverbs_device_resources", dl.l,
					n + 1, d->quota.used[q]);
		}
	}
}

/* The counter's name with "ns" (a network namespace in eng_stats.h)
 * spelt "netns": Prometheus reads "_ns" as nanoseconds. */
static void stat_name(const char *s, bool gauge, char *out, size_t cap)
{
	char tmp[80];
	size_t o = 0;

	for (const char *c = s; *c && o + 8 < sizeof(tmp);) {
		if (!strncmp(c, "_ns", 3) && (c[3] == '_' || !c[3])) {
			memcpy(tmp + o, "_netns", 6);
			o += 6;
			c += 3;
		} else {
			tmp[o++] = *c++;
		}
	}
	tmp[o] = '\0';
	snprintf(out, cap, "podverbs_engine_%s%s", tmp, gauge ? "" : "_total");
}

static void loop_time(struct eng_prom_buf *b)
{
	static const char name[] = "podverbs_engine_loop_seconds_total";
	struct eng_prom_label l = { "state", "busy", 8 };

	eng_prom_family(b, name, "counter", "Time of the engine's loop "
			"thread: busy (serving, polling rings) or idle (in "
			"epoll)");
	eng_prom_sample_ns(b, name, &l, 1, eng_stats[ENG_STAT_loop_busy_ns]);
	l.value = "idle";
	eng_prom_sample_ns(b, name, &l, 1, eng_stats[ENG_STAT_loop_idle_ns]);
}

static void engine_counters(struct eng_prom_buf *b)
{
	char name[128];

	loop_time(b);
	for (int i = 0; i < ENG_STAT_COUNT; i++) {
		const char *s = eng_stat_name(i);
		size_t n = strlen(s);
		bool gauge = n > 5 && !strcmp(s + n - 5, "_live");

		if (i == ENG_STAT_loop_busy_ns || i == ENG_STAT_loop_idle_ns)
			continue;
		stat_name(s, gauge, name, sizeof(name));
		eng_prom_family(b, name, gauge ? "gauge" : "counter",
				"Engine counter (pvctl stats)");
		eng_prom_sample(b, name, NULL, 0, eng_stats[i]);
	}
}

void eng_metrics_body(struct eng *e, struct eng_prom_buf *b)
{
	port_counters(e, b);
	dev_gauges(e, b);
	engine_counters(b);
}
