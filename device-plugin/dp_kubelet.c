// SPDX-License-Identifier: MIT
/*
 * Legacy registration client (gRPC core, one blocking call on a private
 * pluck queue).
 */
#include "device-plugin/dp_kubelet.h"

#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "deviceplugin_v1beta1.pb-c.h"
#include "device-plugin/dp_rpc.h"

enum dp_reg_mode dp_kubelet_mode(const struct dp_config *cfg)
{
	struct stat st;

	if (cfg->reg_mode != DP_REG_AUTO)
		return cfg->reg_mode;
	if (stat(cfg->registry_dir, &st) == 0 && S_ISDIR(st.st_mode))
		return DP_REG_WATCHER;
	return DP_REG_LEGACY;
}

static grpc_byte_buffer *register_request(const struct dp_pool_config *pc)
{
	V1beta1__RegisterRequest req = V1BETA1__REGISTER_REQUEST__INIT;
	V1beta1__DevicePluginOptions opt = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;

	opt.get_preferred_allocation_available = 1;
	req.version = "v1beta1";
	/* Kubelet joins this to its own plugin folder. */
	req.endpoint = (char *)pc->socket_name;
	req.resource_name = (char *)pc->resource_name;
	req.options = &opt;
	return dp_rpc_pack(&req.base);
}

/* Runs the call; returns the gRPC status and fills details. */
static grpc_status_code call_register(grpc_channel *ch,
				      grpc_completion_queue *cq,
				      grpc_byte_buffer *req, int timeout_ms,
				      char *details, size_t cap)
{
	gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
		gpr_time_from_millis(timeout_ms, GPR_TIMESPAN));
	grpc_slice method = grpc_slice_from_static_string(
		"/v1beta1.Registration/Register");
	grpc_metadata_array md_init, md_trail;
	grpc_byte_buffer *resp = NULL;
	grpc_status_code st = GRPC_STATUS_UNKNOWN;
	grpc_slice sdetails = grpc_empty_slice();
	grpc_op ops[6];
	grpc_call *call;
	grpc_event ev;
	char tag;

	call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
					method, NULL, deadline, NULL);
	grpc_metadata_array_init(&md_init);
	grpc_metadata_array_init(&md_trail);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = req;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_init;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &resp;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &md_trail;
	ops[5].data.recv_status_on_client.status = &st;
	ops[5].data.recv_status_on_client.status_details = &sdetails;
	if (grpc_call_start_batch(call, ops, 6, &tag, NULL) == GRPC_CALL_OK) {
		ev = grpc_completion_queue_pluck(cq, &tag,
			gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		(void)ev;
	} else {
		snprintf(details, cap, "start_batch failed");
	}
	if (GRPC_SLICE_LENGTH(sdetails))
		snprintf(details, cap, "%.*s", (int)GRPC_SLICE_LENGTH(sdetails),
			 (const char *)GRPC_SLICE_START_PTR(sdetails));
	grpc_slice_unref(sdetails);
	if (resp)
		grpc_byte_buffer_destroy(resp);
	grpc_metadata_array_destroy(&md_init);
	grpc_metadata_array_destroy(&md_trail);
	grpc_call_unref(call);
	return st;
}

int dp_kubelet_register(struct dp_daemon *dp, int i, int timeout_ms)
{
	const struct dp_pool_config *pc = &dp->cfg->pools[i];
	grpc_channel_credentials *creds;
	grpc_completion_queue *cq;
	grpc_byte_buffer *req;
	grpc_channel *ch;
	grpc_status_code st;
	char target[DP_PATH_MAX + 8], details[256] = "";
	struct stat kst;

	/* Remember which kubelet socket we talk to, so its creation event
	 * arriving after we already registered with it is not a restart. */
	if (stat(dp->cfg->kubelet_socket, &kst))
		kst.st_ino = 0;
	snprintf(target, sizeof(target), "unix:%s", dp->cfg->kubelet_socket);
	creds = grpc_insecure_credentials_create();
	ch = grpc_channel_create(target, creds, NULL);
	grpc_channel_credentials_release(creds);
	cq = grpc_completion_queue_create_for_pluck(NULL);
	req = register_request(pc);
	st = call_register(ch, cq, req, timeout_ms, details, sizeof(details));
	grpc_byte_buffer_destroy(req);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_pluck(cq, NULL,
		gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	grpc_channel_destroy(ch);

	pthread_mutex_lock(&dp->lock);
	if (st == GRPC_STATUS_OK) {
		dp->stats[i].registrations_ok++;
		dp->stats[i].registered = true;
		dp->stats[i].last_register_ns = dp_now_ns();
		dp->stats[i].kubelet_ino = kst.st_ino;
	} else {
		dp->stats[i].registrations_failed++;
		dp->stats[i].registered = false;
	}
	pthread_mutex_unlock(&dp->lock);
	if (st != GRPC_STATUS_OK) {
		dp_log("%s: Register on %s failed: status %d %s",
		       pc->resource_name, dp->cfg->kubelet_socket, (int)st,
		       details);
		return -ECONNREFUSED;
	}
	dp_log("%s: registered with kubelet at %s (endpoint %s)",
	       pc->resource_name, dp->cfg->kubelet_socket, pc->socket_name);
	return 0;
}

void dp_pool_socket_path(const struct dp_daemon *dp, int i, char *buf,
			 size_t cap)
{
	snprintf(buf, cap, "%s/%s",
		 dp->reg_mode == DP_REG_WATCHER ? dp->cfg->registry_dir
						: dp->cfg->plugin_dir,
		 dp->cfg->pools[i].socket_name);
}

/* Kubelet binds its socket a moment before it listens; a connect in that
 * window is refused and gRPC would back off for a second.  Wait for a
 * plain connect to succeed first.  Returns 0 or -ETIMEDOUT. */
int dp_kubelet_wait_listening(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t end = dp_now_ns() + (uint64_t)timeout_ms * 1000000u;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	do {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int ret;

		if (fd < 0)
			return -errno;
		ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (ret == 0)
			return 0;
		usleep(5000);
	} while (dp_now_ns() < end);
	return -ETIMEDOUT;
}
