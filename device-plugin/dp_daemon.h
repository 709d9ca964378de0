/* SPDX-License-Identifier: MIT */
/*
 * The daemon's shared state.  Two threads touch it:
 *  - the gRPC thread drains the completion queue and answers calls;
 *  - the main thread runs the control loop (signals, inotify, udev, the
 *    health timer, metrics) and may start sends on ListAndWatch streams and
 *    shut servers down.
 * Locking rule: everything below `lock` is read and written under it;
 * gRPC calls that only queue work (grpc_call_start_batch, server shutdown)
 * may be made with it held, never a blocking wait.
 */
#ifndef DP_DAEMON_H
#define DP_DAEMON_H

#include <grpc/grpc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "device-plugin/dp_config.h"
#include "device-plugin/dp_pool.h"

struct dp_srv;

struct dp_pool_stats {
	uint64_t allocations;		/* containers allocated */
	uint64_t allocate_errors;
	uint64_t preferred_calls;
	uint64_t registrations_ok;
	uint64_t registrations_failed;
	uint64_t list_updates;		/* ListAndWatch messages sent */
	int streams;			/* open ListAndWatch streams */
	bool registered;
	uint64_t last_register_ns;	/* CLOCK_MONOTONIC of last success */
	uint64_t kubelet_ino;		/* kubelet.sock we registered with */
};

struct dp_daemon {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a server finished shutting down */
	grpc_completion_queue *cq;
	pthread_t cq_thread;

	struct dp_config *cfg;		/* owned */
	enum dp_reg_mode reg_mode;	/* resolved: WATCHER or LEGACY */
	int npools;
	struct dp_pool pools[DP_MAX_POOLS];
	struct dp_srv *srv[DP_MAX_POOLS];
	struct dp_pool_stats stats[DP_MAX_POOLS];

	bool engine_ok;
	bool engine_probed;
	uint64_t engine_probe_failures;
	uint64_t reloads;
	uint64_t reload_failures;
	uint64_t rescans;
	uint64_t udev_events;
	bool stopping;
};

/* One line to stderr with a timestamp (the daemon's only log sink). */
__attribute__((format(printf, 1, 2)))
void dp_log(const char *fmt, ...);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dp_now_ns(void);

/* Absolute path of pool i's DevicePlugin socket. */
void dp_pool_socket_path(const struct dp_daemon *dp, int i, char *buf,
			 size_t cap);

#endif /* DP_DAEMON_H */
