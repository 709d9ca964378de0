/* SPDX-License-Identifier: MIT */
/*
 * Registration with kubelet.  Plugin watcher mode: kubelet finds our socket
 * in its plugins_registry folder and calls GetInfo (served in dp_rpc.c);
 * nothing to do here but pick the mode.  Legacy mode: we call
 * v1beta1.Registration/Register on kubelet.sock, again whenever kubelet
 * recreates it.
 */
#ifndef DP_KUBELET_H
#define DP_KUBELET_H

#include "device-plugin/dp_daemon.h"

/* Resolves "auto": the watcher when the registry folder exists. */
enum dp_reg_mode dp_kubelet_mode(const struct dp_config *cfg);

/*
 * Legacy Register of pool i, waiting up to timeout_ms for kubelet to
 * answer (wait-for-ready, so a kubelet still starting up is waited for).
 * Updates the pool's stats and logs the outcome.  Returns 0 or -errno.
 * Caller does not hold dp->lock.
 */
int dp_kubelet_register(struct dp_daemon *dp, int i, int timeout_ms);

/* Waits until a plain connect to kubelet's socket succeeds (it binds a
 * moment before it listens).  0 or -ETIMEDOUT. */
int dp_kubelet_wait_listening(const char *path, int timeout_ms);

#endif /* DP_KUBELET_H */
