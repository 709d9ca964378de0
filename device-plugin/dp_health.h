/* SPDX-License-Identifier: MIT */
/*
 * Health inputs: is the engine reachable (connect + HELLO over its IPC),
 * and the periodic refresh of every pool from a sysfs scan.
 */
#ifndef DP_HEALTH_H
#define DP_HEALTH_H

#include <stdbool.h>

#include "device-plugin/dp_daemon.h"

/* Connects to the engine socket and exchanges HELLO, waiting at most
 * timeout_ms.  Returns 0 when the engine answered, else -errno. */
int dp_health_probe_engine(const char *path, int timeout_ms);

/*
 * Probes the engine, rescans sysfs and updates every pool; pushes changed
 * lists to their streams and rewrites changed CDI specs.  Caller does not
 * hold dp->lock.  Returns the number of pools that changed.
 */
int dp_health_refresh(struct dp_daemon *dp);

#endif /* DP_HEALTH_H */
