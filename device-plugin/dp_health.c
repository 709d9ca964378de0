// SPDX-License-Identifier: MIT
/*
 * Engine liveness and pool refresh.
 */
#include "device-plugin/dp_health.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "device-plugin/dp_alloc.h"
#include "device-plugin/dp_grpc_server.h"

int dp_health_probe_engine(const char *path, int timeout_ms)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	struct pv_ipc_hello hello = { .abi_version = PV_IPC_VERSION };
	struct pv_ipc_hello reply;
	uint32_t seq = 0, len = 0;
	int fd, ret;

	fd = pv_ipc_connect(path);
	if (fd < 0)
		return fd;
	/* A wedged engine must not stall the control loop. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ret = pv_ipc_call(fd, &seq, PV_OP_HELLO, &hello, sizeof(hello), &reply,
			  sizeof(reply), &len, NULL, NULL);
	close(fd);
	if (ret == 0 && len < sizeof(reply.abi_version))
		ret = -EPROTO;
	return ret;
}

int dp_health_refresh(struct dp_daemon *dp)
{
	struct dp_kdev *scan = calloc(DP_MAX_KDEVS, sizeof(*scan));
	int n = 0, changed = 0, probe = 0;
	bool need_engine = false;

	if (!scan)
		return -ENOMEM;
	for (int i = 0; i < dp->npools; i++)
		need_engine |= dp->cfg->pools[i].kind == DP_POOL_SOFT;
	if (need_engine)
		probe = dp_health_probe_engine(dp->cfg->engine_socket, 500);
	n = dp_discover_scan(dp->cfg->sysfs_root, scan, DP_MAX_KDEVS);
	if (n < 0)
		n = 0;
	pthread_mutex_lock(&dp->lock);
	if (need_engine) {
		if (dp->engine_probed && dp->engine_ok != (probe == 0))
			dp_log("engine %s: %s", dp->cfg->engine_socket,
			       probe == 0 ? "reachable again" : "unreachable");
		dp->engine_ok = probe == 0;
		dp->engine_probed = true;
		if (probe)
			dp->engine_probe_failures++;
	}
	dp->rescans++;
	for (int i = 0; i < dp->npools; i++) {
		if (dp_pool_update(&dp->pools[i], scan, n, dp->engine_ok) != 1)
			continue;
		changed++;
		dp_srv_notify(dp, i);
		if (dp_alloc_write_cdi(dp->cfg, &dp->pools[i]))
			dp_log("%s: could not write its CDI spec",
			       dp->cfg->pools[i].resource_name);
	}
	pthread_mutex_unlock(&dp->lock);
	free(scan);
	return changed;
}
