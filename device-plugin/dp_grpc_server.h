/* SPDX-License-Identifier: MIT */
/*
 * The gRPC side of a pool: one grpc_server per pool on its own unix socket
 * serving v1beta1.DevicePlugin and (plugin watcher mode) the
 * pluginregistration.Registration service, all on the daemon's single
 * completion queue drained by the gRPC thread.
 *
 * ListAndWatch streams keep at most one SEND_MESSAGE in flight; a change
 * while one is in flight is sent when it completes (always the full, latest
 * list).  RECV_CLOSE_ON_SERVER runs as its own batch so a kubelet that goes
 * away is noticed at once.
 */
#ifndef DP_GRPC_SERVER_H
#define DP_GRPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "device-plugin/dp_daemon.h"

/*
 * Checks that path may be bound: absent, or a stale socket nobody accepts
 * on (then unlinked).  A socket another live process serves is never
 * touched: -EADDRINUSE.  Something that is not a socket: -EEXIST.
 */
int dp_srv_claim_path(const char *path);

/* Creates and starts pool i's server on path (claimed first).  Returns 0 or
 * -errno with a message in err.  Caller does not hold dp->lock. */
int dp_srv_start(struct dp_daemon *dp, int i, const char *path,
		 char *err, size_t errlen);

/* Shuts pool i's server down and waits until every call on it is gone.
 * Caller does not hold dp->lock. */
void dp_srv_stop(struct dp_daemon *dp, int i);

/* True when pool i's socket file still is the one its server bound. */
bool dp_srv_socket_intact(struct dp_daemon *dp, int i);

/* Pushes pool i's current list to every stream behind on it.  Caller holds
 * dp->lock. */
void dp_srv_notify(struct dp_daemon *dp, int i);

/* The gRPC thread: drains dp->cq until it is shut down. */
void *dp_srv_thread(void *arg);

#endif /* DP_GRPC_SERVER_H */
