// SPDX-License-Identifier: MIT
/*
 * RPC handlers of v1beta1.DevicePlugin and pluginregistration.Registration.
 */
#include "device-plugin/dp_rpc.h"

#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deviceplugin_v1beta1.pb-c.h"
#include "pluginregistration_v1.pb-c.h"
#include "device-plugin/dp_alloc.h"
#include "device-plugin/dp_arena.h"

/* Bounds what one request may make us build. */
#define DP_RPC_MAX_CONTAINERS	64
#define DP_RPC_MAX_IDS		4096

static const char *const method_paths[DP_M_COUNT] = {
	[DP_M_GET_OPTIONS] = "/v1beta1.DevicePlugin/GetDevicePluginOptions",
	[DP_M_LIST_AND_WATCH] = "/v1beta1.DevicePlugin/ListAndWatch",
	[DP_M_PREFERRED] = "/v1beta1.DevicePlugin/GetPreferredAllocation",
	[DP_M_ALLOCATE] = "/v1beta1.DevicePlugin/Allocate",
	[DP_M_PRESTART] = "/v1beta1.DevicePlugin/PreStartContainer",
	[DP_M_REG_GET_INFO] = "/pluginregistration.Registration/GetInfo",
	[DP_M_REG_NOTIFY] =
		"/pluginregistration.Registration/NotifyRegistrationStatus",
};

const char *dp_rpc_method_path(enum dp_method m)
{
	return method_paths[m];
}

grpc_byte_buffer *dp_rpc_pack(const ProtobufCMessage *msg)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	grpc_slice s = grpc_slice_malloc(len);
	grpc_byte_buffer *bb;

	protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
	bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

/* Unpacks a request; NULL when absent or malformed. */
static ProtobufCMessage *unpack(const ProtobufCMessageDescriptor *desc,
				grpc_byte_buffer *bb)
{
	grpc_byte_buffer_reader r;
	ProtobufCMessage *msg;
	grpc_slice s;

	if (!bb || !grpc_byte_buffer_reader_init(&r, bb))
		return NULL;
	s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	msg = protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(s),
					GRPC_SLICE_START_PTR(s));
	grpc_slice_unref(s);
	return msg;
}

grpc_byte_buffer *dp_rpc_list(struct dp_daemon *dp, int i)
{
	const struct dp_pool *p = &dp->pools[i];
	V1beta1__ListAndWatchResponse resp = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
	struct dp_arena a = { 0 };
	grpc_byte_buffer *bb = NULL;

	resp.devices = dp_arena_alloc(&a, sizeof(*resp.devices) * (p->ndev + 1));
	for (int k = 0; resp.devices && k < p->ndev; k++) {
		const struct dp_dev *d = &p->devs[k];
		V1beta1__Device *dev = dp_arena_alloc(&a, sizeof(*dev));

		if (!dev)
			break;
		v1beta1__device__init(dev);
		dev->id = (char *)d->id;
		dev->health = d->healthy ? "Healthy" : "Unhealthy";
		if (d->numa >= 0) {
			V1beta1__TopologyInfo *t = dp_arena_alloc(&a, sizeof(*t));
			V1beta1__NUMANode *n = dp_arena_alloc(&a, sizeof(*n));
			V1beta1__NUMANode **nodes = dp_arena_alloc(&a, sizeof(*nodes));

			if (!t || !n || !nodes)
				break;
			v1beta1__topology_info__init(t);
			v1beta1__numanode__init(n);
			n->id = d->numa;
			nodes[0] = n;
			t->nodes = nodes;
			t->n_nodes = 1;
			dev->topology = t;
		}
		resp.devices[resp.n_devices++] = dev;
	}
	if (!a.failed)
		bb = dp_rpc_pack(&resp.base);
	dp_arena_free(&a);
	return bb;
}

static grpc_status_code get_options(struct dp_daemon *dp, int i,
				    grpc_byte_buffer **resp)
{
	V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;

	(void)dp;
	(void)i;
	o.pre_start_required = 0;
	o.get_preferred_allocation_available = 1;
	*resp = dp_rpc_pack(&o.base);
	return GRPC_STATUS_OK;
}

/* One container's preferred IDs (pointing into the request's strings). */
static grpc_status_code preferred_one(
	const struct dp_pool *p, size_t c,
	const V1beta1__ContainerPreferredAllocationRequest *cr,
	struct dp_arena *a, V1beta1__ContainerPreferredAllocationResponse **ret,
	char *details, size_t cap)
{
	V1beta1__ContainerPreferredAllocationResponse *o =
		dp_arena_alloc(a, sizeof(*o));
	int size = cr->allocation_size, n;

	if (cr->n_available_deviceids > DP_RPC_MAX_IDS || size < 0 ||
	    size > DP_RPC_MAX_IDS) {
		snprintf(details, cap, "container %zu: too many IDs", c);
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	if (!o)
		return GRPC_STATUS_RESOURCE_EXHAUSTED;
	v1beta1__container_preferred_allocation_response__init(o);
	o->deviceids = dp_arena_alloc(a, sizeof(char *) * (size + 1));
	if (!o->deviceids)
		return GRPC_STATUS_RESOURCE_EXHAUSTED;
	n = dp_pool_preferred(p, (const char *const *)cr->available_deviceids,
			      (int)cr->n_available_deviceids,
			      (const char *const *)cr->must_include_deviceids,
			      (int)cr->n_must_include_deviceids, size,
			      (const char **)o->deviceids);
	if (n < 0) {
		snprintf(details, cap, "container %zu: must-include IDs not all "
			 "available, or more of them than allocation_size", c);
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	o->n_deviceids = (size_t)n;
	*ret = o;
	return GRPC_STATUS_OK;
}

static grpc_status_code preferred(struct dp_daemon *dp, int i,
				  grpc_byte_buffer *req, grpc_byte_buffer **resp,
				  char *details, size_t cap)
{
	V1beta1__PreferredAllocationRequest *r = (void *)unpack(
		&v1beta1__preferred_allocation_request__descriptor, req);
	V1beta1__PreferredAllocationResponse out =
		V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
	grpc_status_code st = GRPC_STATUS_OK;
	struct dp_arena a = { 0 };

	if (!r || r->n_container_requests > DP_RPC_MAX_CONTAINERS) {
		snprintf(details, cap, "malformed PreferredAllocationRequest");
		st = GRPC_STATUS_INVALID_ARGUMENT;
		goto out;
	}
	dp->stats[i].preferred_calls++;
	out.container_responses = dp_arena_alloc(&a,
		sizeof(*out.container_responses) * (r->n_container_requests + 1));
	if (!out.container_responses)
		st = GRPC_STATUS_RESOURCE_EXHAUSTED;
	for (size_t c = 0; !st && c < r->n_container_requests; c++) {
		st = preferred_one(&dp->pools[i], c, r->container_requests[c], &a,
				   &out.container_responses[c], details, cap);
		if (!st)
			out.n_container_responses++;
	}
	if (st == GRPC_STATUS_RESOURCE_EXHAUSTED)
		snprintf(details, cap, "out of memory");
	if (!st)
		*resp = dp_rpc_pack(&out.base);
out:
	dp_arena_free(&a);
	if (r)
		protobuf_c_message_free_unpacked(&r->base, NULL);
	return st;
}

static grpc_status_code allocate(struct dp_daemon *dp, int i,
				 grpc_byte_buffer *req, grpc_byte_buffer **resp,
				 char *details, size_t cap)
{
	V1beta1__AllocateRequest *r = (void *)unpack(
		&v1beta1__allocate_request__descriptor, req);
	V1beta1__AllocateResponse out = V1BETA1__ALLOCATE_RESPONSE__INIT;
	grpc_status_code st = GRPC_STATUS_OK;
	struct dp_arena a = { 0 };

	if (!r || r->n_container_requests > DP_RPC_MAX_CONTAINERS) {
		snprintf(details, cap, "malformed AllocateRequest");
		st = GRPC_STATUS_INVALID_ARGUMENT;
		goto out;
	}
	out.container_responses = dp_arena_alloc(&a,
		sizeof(*out.container_responses) * (r->n_container_requests + 1));
	for (size_t c = 0; c < r->n_container_requests; c++) {
		V1beta1__ContainerAllocateRequest *cr = r->container_requests[c];
		int ret;

		if (!out.container_responses) {
			ret = -ENOMEM;
		} else {
			ret = dp_alloc_container(dp->cfg, &dp->pools[i],
				cr->devices_ids, cr->n_devices_ids, &a,
				&out.container_responses[c], details, cap);
		}
		if (ret) {
			if (ret == -ENOMEM)
				snprintf(details, cap, "out of memory");
			st = ret == -ENOMEM ? GRPC_STATUS_RESOURCE_EXHAUSTED
					    : GRPC_STATUS_INVALID_ARGUMENT;
			goto out;
		}
		out.n_container_responses++;
	}
	*resp = dp_rpc_pack(&out.base);
out:
	if (st == GRPC_STATUS_OK)
		dp->stats[i].allocations += out.n_container_responses;
	else
		dp->stats[i].allocate_errors++;
	dp_arena_free(&a);
	if (r)
		protobuf_c_message_free_unpacked(&r->base, NULL);
	return st;
}

static grpc_status_code get_info(struct dp_daemon *dp, int i,
				 grpc_byte_buffer **resp)
{
	Pluginregistration__PluginInfo info = PLUGINREGISTRATION__PLUGIN_INFO__INIT;
	char path[DP_PATH_MAX + DP_NAME_MAX + 32];
	char *versions[] = { "v1beta1" };

	dp_pool_socket_path(dp, i, path, sizeof(path));
	info.type = "DevicePlugin";
	info.name = dp->cfg->pools[i].resource_name;
	info.endpoint = path;
	info.supported_versions = versions;
	info.n_supported_versions = 1;
	*resp = dp_rpc_pack(&info.base);
	return GRPC_STATUS_OK;
}

static grpc_status_code notify(struct dp_daemon *dp, int i,
			       grpc_byte_buffer *req, grpc_byte_buffer **resp,
			       char *details, size_t cap)
{
	Pluginregistration__RegistrationStatus *r = (void *)unpack(
		&pluginregistration__registration_status__descriptor, req);
	Pluginregistration__RegistrationStatusResponse out =
		PLUGINREGISTRATION__REGISTRATION_STATUS_RESPONSE__INIT;
	struct dp_pool_stats *s = &dp->stats[i];

	if (!r) {
		snprintf(details, cap, "malformed RegistrationStatus");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	s->registered = r->plugin_registered;
	if (r->plugin_registered) {
		s->registrations_ok++;
		s->last_register_ns = dp_now_ns();
		dp_log("%s: registered through the plugin watcher",
		       dp->cfg->pools[i].resource_name);
	} else {
		s->registrations_failed++;
		dp_log("%s: kubelet refused the registration: %s",
		       dp->cfg->pools[i].resource_name, r->error);
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	*resp = dp_rpc_pack(&out.base);
	return GRPC_STATUS_OK;
}

grpc_status_code dp_rpc_unary(struct dp_daemon *dp, int i, enum dp_method m,
			      grpc_byte_buffer *req, grpc_byte_buffer **resp,
			      char *details, size_t cap)
{
	V1beta1__PreStartContainerResponse ps =
		V1BETA1__PRE_START_CONTAINER_RESPONSE__INIT;

	switch (m) {
	case DP_M_GET_OPTIONS:
		return get_options(dp, i, resp);
	case DP_M_PREFERRED:
		return preferred(dp, i, req, resp, details, cap);
	case DP_M_ALLOCATE:
		return allocate(dp, i, req, resp, details, cap);
	case DP_M_PRESTART:
		*resp = dp_rpc_pack(&ps.base);
		return GRPC_STATUS_OK;
	case DP_M_REG_GET_INFO:
		return get_info(dp, i, resp);
	case DP_M_REG_NOTIFY:
		return notify(dp, i, req, resp, details, cap);
	default:
		snprintf(details, cap, "method not implemented");
		return GRPC_STATUS_UNIMPLEMENTED;
	}
}
