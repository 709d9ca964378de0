// SPDX-License-Identifier: MIT
/*
 * Metrics endpoint.
 */
#include "device-plugin/dp_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DP_METRICS_MAX (64 * 1024)
#define DP_METRICS_REQ_TIMEOUT_MS 500

int dp_metrics_listen(const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	char host[64], port[8];
	unsigned p;
	int fd, one = 1, ret;

	if (dp_config_split_addr(addr, host, sizeof(host), &p))
		return -EINVAL;
	if (host[0] == '[') {	/* [::1] */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	snprintf(port, sizeof(port), "%u", p);
	if (getaddrinfo(host, port, &hints, &res))
		return -EADDRNOTAVAIL;
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 16)) {
		ret = -errno;
		close(fd);
		goto out;
	}
	ret = fd;
out:
	freeaddrinfo(res);
	return ret;
}

struct out {
	char *buf;
	size_t cap, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	o->len += n > 0 ? (size_t)n : 0;
	if (o->len > o->cap)
		o->len = o->cap;
}

static void per_pool(const struct dp_daemon *dp, struct out *o,
		     const char *name, const char *type, const char *help,
		     uint64_t (*get)(const struct dp_pool_stats *))
{
	put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (int i = 0; i < dp->npools; i++)
		put(o, "%s{pool=\"%s\"} %llu\n", name,
		    dp->cfg->pools[i].resource_name,
		    (unsigned long long)get(&dp->stats[i]));
}

static uint64_t g_alloc(const struct dp_pool_stats *s) { return s->allocations; }
static uint64_t g_alloc_err(const struct dp_pool_stats *s) { return s->allocate_errors; }
static uint64_t g_pref(const struct dp_pool_stats *s) { return s->preferred_calls; }
static uint64_t g_reg_ok(const struct dp_pool_stats *s) { return s->registrations_ok; }
static uint64_t g_reg_fail(const struct dp_pool_stats *s) { return s->registrations_failed; }
static uint64_t g_registered(const struct dp_pool_stats *s) { return s->registered; }
static uint64_t g_streams(const struct dp_pool_stats *s) { return (uint64_t)s->streams; }
static uint64_t g_updates(const struct dp_pool_stats *s) { return s->list_updates; }

size_t dp_metrics_render(const struct dp_daemon *dp, char *buf, size_t cap)
{
	struct out o = { buf, cap, 0 };

	put(&o, "# HELP podverbs_dp_devices Devices advertised, by pool and "
		"health.\n# TYPE podverbs_dp_devices gauge\n");
	for (int i = 0; i < dp->npools; i++) {
		int h, u;

		dp_pool_count(&dp->pools[i], &h, &u);
		put(&o, "podverbs_dp_devices{pool=\"%s\",health=\"Healthy\"} %d\n"
			"podverbs_dp_devices{pool=\"%s\",health=\"Unhealthy\"} %d\n",
		    dp->cfg->pools[i].resource_name, h,
		    dp->cfg->pools[i].resource_name, u);
	}
	per_pool(dp, &o, "podverbs_dp_allocations_total", "counter",
		 "Containers given devices by Allocate.", g_alloc);
	per_pool(dp, &o, "podverbs_dp_allocate_errors_total", "counter",
		 "Allocate calls refused.", g_alloc_err);
	per_pool(dp, &o, "podverbs_dp_preferred_allocation_calls_total",
		 "counter", "GetPreferredAllocation calls.", g_pref);
	per_pool(dp, &o, "podverbs_dp_registrations_total", "counter",
		 "Successful registrations with kubelet.", g_reg_ok);
	per_pool(dp, &o, "podverbs_dp_registration_failures_total", "counter",
		 "Failed registrations with kubelet.", g_reg_fail);
	per_pool(dp, &o, "podverbs_dp_registered", "gauge",
		 "1 while kubelet has the pool registered.", g_registered);
	per_pool(dp, &o, "podverbs_dp_list_streams", "gauge",
		 "Open ListAndWatch streams.", g_streams);
	per_pool(dp, &o, "podverbs_dp_list_updates_total", "counter",
		 "ListAndWatch messages sent.", g_updates);
	put(&o, "# HELP podverbs_dp_engine_reachable 1 when the engine answered "
		"the last probe.\n# TYPE podverbs_dp_engine_reachable gauge\n"
		"podverbs_dp_engine_reachable %d\n", dp->engine_ok ? 1 : 0);
	put(&o, "# HELP podverbs_dp_engine_probe_failures_total Failed engine "
		"probes.\n# TYPE podverbs_dp_engine_probe_failures_total counter\n"
		"podverbs_dp_engine_probe_failures_total %llu\n",
	    (unsigned long long)dp->engine_probe_failures);
	put(&o, "# HELP podverbs_dp_udev_events_total udev events on RDMA and "
		"net devices.\n# TYPE podverbs_dp_udev_events_total counter\n"
		"podverbs_dp_udev_events_total %llu\n"
		"# HELP podverbs_dp_rescans_total sysfs rescans.\n"
		"# TYPE podverbs_dp_rescans_total counter\n"
		"podverbs_dp_rescans_total %llu\n",
	    (unsigned long long)dp->udev_events,
	    (unsigned long long)dp->rescans);
	put(&o, "# HELP podverbs_dp_config_reloads_total Config reloads "
		"applied.\n# TYPE podverbs_dp_config_reloads_total counter\n"
		"podverbs_dp_config_reloads_total %llu\n",
	    (unsigned long long)dp->reloads);
	put(&o, "# HELP podverbs_dp_config_reload_failures_total Reloads "
		"refused for a bad config.\n"
		"# TYPE podverbs_dp_config_reload_failures_total counter\n"
		"podverbs_dp_config_reload_failures_total %llu\n",
	    (unsigned long long)dp->reload_failures);
	return o.len;
}

/* Reads the request head, bounded in size and time. */
static int read_request(int fd, char *req, size_t cap)
{
	size_t got = 0;

	while (got < cap - 1) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, DP_METRICS_REQ_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = read(fd, req + got, cap - 1 - got);
		if (n <= 0)
			return -EIO;
		got += (size_t)n;
		req[got] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			return 0;
	}
	return -E2BIG;
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

void dp_metrics_serve(struct dp_daemon *dp, int lfd)
{
	char req[2048], head[256], *body;
	size_t len = 0;
	int fd, ok;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	body = malloc(DP_METRICS_MAX);
	if (!body || read_request(fd, req, sizeof(req)))
		goto out;
	ok = strncmp(req, "GET /metrics ", 13) == 0 ||
	     strncmp(req, "GET /metrics?", 13) == 0;
	if (ok) {
		pthread_mutex_lock(&dp->lock);
		len = dp_metrics_render(dp, body, DP_METRICS_MAX);
		pthread_mutex_unlock(&dp->lock);
	} else {
		len = (size_t)snprintf(body, DP_METRICS_MAX, "not found\n");
	}
	snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		 ok ? "200 OK" : "404 Not Found",
		 ok ? "text/plain; version=0.0.4" : "text/plain", len);
	write_all(fd, head, strlen(head));
	write_all(fd, body, len);
out:
	free(body);
	close(fd);
}
