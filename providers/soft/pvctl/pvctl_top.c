/* SPDX-License-Identifier: MIT */
/*
 * pvctl top [dev DEV] [--interval MS] [--count N]: per-QP rates from the
 * NIC-style counters (ADM_HWC), refreshed every interval: packets and
 * MB/s each way and resent packets per second, busiest QP first.  On a
 * terminal the screen is redrawn; otherwise one block per interval.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/pvctl/pvctl.h"

#define TOP_MAX 4096		/* QPs tracked; more are not shown */

struct top_row {
	uint32_t dev_id, qpn, client;
	uint64_t v[5];		/* sent_pkts rcvd_pkts sent_bytes rcvd_bytes resent */
	double rate[5];
	bool seen;
};

static const char *const top_names[5] = {
	"sent_pkts", "rcvd_pkts", "sent_bytes", "rcvd_bytes", "resent_pkts",
};

struct top {
	struct top_row *rows;
	uint32_t n;
	int col[5];		/* the counters' columns in the reply */
};

static struct top_row *find(struct top *t, uint32_t dev, uint32_t qpn)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->rows[i].dev_id == dev && t->rows[i].qpn == qpn)
			return &t->rows[i];
	if (t->n >= TOP_MAX)
		return NULL;
	t->rows[t->n] = (struct top_row){ .dev_id = dev, .qpn = qpn };
	return &t->rows[t->n++];
}

/* One fetch of every page; rates over secs.  0 or -errno. */
static int top_sample(struct pvctl *c, struct top *t,
		      struct pv_ipc_adm_hwc_req *req, double secs, bool first)
{
	uint32_t shown = 0, len;

	for (uint32_t i = 0; i < t->n; i++)
		t->rows[i].seen = false;
	for (bool done = false; !done;) {
		const struct pv_ipc_adm_hwc_list *l;
		size_t names, rs;
		void *buf;
		int ret;

		req->index = shown;
		ret = pvctl_call(c, PV_OP_ADM_HWC, req, sizeof(*req), &buf, &len);
		if (ret < 0)
			return ret;
		l = buf;
		if (len < sizeof(*l) || l->ncounters > 4096) {
			free(buf);
			return -EPROTO;
		}
		names = (size_t)l->ncounters * PV_HWC_NAME_MAX;
		rs = sizeof(struct pv_ipc_adm_hwc_row) + 8 * l->ncounters;
		if (len - sizeof(*l) < names ||
		    (len - sizeof(*l) - names) / rs < l->count) {
			free(buf);
			return -EPROTO;
		}
		for (int k = 0; k < 5; k++) {
			t->col[k] = -1;
			for (uint32_t j = 0; j < l->ncounters; j++)
				if (!strncmp((const char *)(l + 1) +
					     j * PV_HWC_NAME_MAX, top_names[k],
					     PV_HWC_NAME_MAX))
					t->col[k] = (int)j;
		}
		for (uint32_t i = 0; i < l->count; i++, shown++) {
			const struct pv_ipc_adm_hwc_row *r = (const void *)
				((const uint8_t *)(l + 1) + names + i * rs);
			struct top_row *x;

			if (r->flags & PV_HWC_ROW_PORT)
				continue;
			x = find(t, r->dev_id, r->qp_num);
			if (!x)
				continue;
			x->client = r->client_id;
			for (int k = 0; k < 5; k++) {
				uint64_t v = t->col[k] < 0 ? 0 :
					     r->value[t->col[k]];

				x->rate[k] = first || v < x->v[k] ? 0 :
					     (double)(v - x->v[k]) / secs;
				x->v[k] = v;
			}
			x->seen = true;
		}
		done = l->count == 0 || shown >= l->total;
		free(buf);
	}
	/* QPs gone since the last sample leave the table. */
	for (uint32_t i = 0; i < t->n;)
		if (!t->rows[i].seen)
			t->rows[i] = t->rows[--t->n];
		else
			i++;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	double bx = x->rate[2] + x->rate[3], by = y->rate[2] + y->rate[3];

	return bx < by ? 1 : bx > by ? -1 : 0;
}

static void top_print(struct top *t, bool tty)
{
	if (tty)
		fputs("\033[H\033[2J", stdout);
	qsort(t->rows, t->n, sizeof(t->rows[0]), by_bytes);
	printf("%-5s %-9s %-7s %12s %12s %10s %10s %10s\n", "DEV", "QPN",
	       "CLIENT", "TX pkt/s", "RX pkt/s", "TX MB/s", "RX MB/s",
	       "resent/s");
	for (uint32_t i = 0; i < t->n; i++) {
		const struct top_row *r = &t->rows[i];

		printf("%-5u %-9u %-7u %12.0f %12.0f %10.2f %10.2f %10.0f\n",
		       r->dev_id, r->qpn, r->client, r->rate[0], r->rate[1],
		       r->rate[2] / 1e6, r->rate[3] / 1e6, r->rate[4]);
	}
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

static int top_args(struct pvctl *c, int argc, char **argv, long *ms,
		    long *count, const char **dev)
{
	static const struct option lopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ 0 },
	};
	char *end;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "i:n:", lopts, NULL)) != -1) {
		long *p = opt == 'i' ? ms : count;

		if (opt != 'i' && opt != 'n')
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: top "
					  "[dev DEV] [--interval MS] [--count N]");
		*p = strtol(optarg, &end, 10);
		if (*end || *p < (opt == 'i' ? 100 : 1) || *p > 86400000)
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "bad --%s '%s'",
					  opt == 'i' ? "interval" : "count",
					  optarg);
	}
	if (optind + 2 == argc && !strcmp(argv[optind], "dev"))
		*dev = argv[optind + 1];
	else if (optind != argc)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: top [dev DEV] "
				  "[--interval MS] [--count N]");
	return 0;
}

int pvctl_top(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_adm_hwc_req req = { .flags = PV_ADM_HWC_QPS };
	struct top t = { 0 };
	long ms = 1000, count = 0;
	const char *dev = NULL;
	bool tty = isatty(STDOUT_FILENO);
	int ret;

	if ((ret = top_args(c, argc, argv, &ms, &count, &dev)) != 0)
		return ret;
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if (dev) {
		struct pv_ipc_adm_dev_list *l;
		int64_t id;

		if ((ret = pvctl_dev_list_get(c, &l)) < 0)
			return pvctl_fail_common(c, ret);
		id = pvctl_dev_resolve(l, dev, NULL);
		free(l);
		if (id <= 0)
			return pvctl_fail(c, PVCTL_EXIT_FAIL, "no device %s (or "
					  "not unique: give the id)", dev);
		req.dev_id = (uint32_t)id;
	}
	t.rows = calloc(TOP_MAX, sizeof(*t.rows));
	if (!t.rows)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "out of memory");
	ret = top_sample(c, &t, &req, 1, true);
	for (long i = 0; ret == 0 && (!count || i < count); i++) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		ret = top_sample(c, &t, &req, (double)ms / 1000, false);
		if (ret == 0)
			top_print(&t, tty);
	}
	free(t.rows);
	return ret < 0 ? pvctl_fail_common(c, ret) : 0;
}
