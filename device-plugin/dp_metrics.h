/* SPDX-License-Identifier: MIT */
/*
 * Prometheus text exposition (format 0.0.4) on a loopback TCP address:
 * devices by pool and health, allocations, registrations, streams, engine
 * reachability.  Served inline by the control loop — one short request at
 * a time is all a scraper needs.
 */
#ifndef DP_METRICS_H
#define DP_METRICS_H

#include <stddef.h>

#include "device-plugin/dp_daemon.h"

/* Listens on "host:port" (loopback only); returns the fd or -errno. */
int dp_metrics_listen(const char *addr);

/* Accepts one client on lfd and answers it (GET /metrics, else 404). */
void dp_metrics_serve(struct dp_daemon *dp, int lfd);

/* Renders the exposition into buf; returns its length (truncated at cap).
 * Caller holds dp->lock. */
size_t dp_metrics_render(const struct dp_daemon *dp, char *buf, size_t cap);

#endif /* DP_METRICS_H */
