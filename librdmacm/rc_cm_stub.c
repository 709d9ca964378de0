/* SPDX-License-Identifier: MIT */
/*
 * The id calls until the engine's CM service answers them: ENOSYS.
 * (Replaced call by call by rc_channel.c, rc_id.c, rc_conn.c.)
 */
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_core.h"

#define STUB(name, ...) \
	RC_EXPORT int name(__VA_ARGS__) { return rc_unimplemented(#name); }

RC_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	rc_unimplemented("rdma_create_event_channel");
	return NULL;
}

RC_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	rc_unimplemented("rdma_destroy_event_channel");
}

STUB(rdma_create_id, struct rdma_event_channel *ch, struct rdma_cm_id **id,
     void *context, enum rdma_port_space ps)
STUB(rdma_create_ep, struct rdma_cm_id **id, struct rdma_addrinfo *res,
     struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
STUB(rdma_destroy_id, struct rdma_cm_id *id)
STUB(rdma_bind_addr, struct rdma_cm_id *id, struct sockaddr *addr)
STUB(rdma_resolve_addr, struct rdma_cm_id *id, struct sockaddr *src,
     struct sockaddr *dst, int timeout_ms)
STUB(rdma_resolve_route, struct rdma_cm_id *id, int timeout_ms)
STUB(rdma_create_qp, struct rdma_cm_id *id, struct ibv_pd *pd,
     struct ibv_qp_init_attr *attr)
STUB(rdma_create_qp_ex, struct rdma_cm_id *id,
     struct ibv_qp_init_attr_ex *attr)
STUB(rdma_connect, struct rdma_cm_id *id, struct rdma_conn_param *p)
STUB(rdma_establish, struct rdma_cm_id *id)
STUB(rdma_listen, struct rdma_cm_id *id, int backlog)
STUB(rdma_get_request, struct rdma_cm_id *listen, struct rdma_cm_id **id)
STUB(rdma_accept, struct rdma_cm_id *id, struct rdma_conn_param *p)
STUB(rdma_reject, struct rdma_cm_id *id, const void *data, uint8_t len)
STUB(rdma_disconnect, struct rdma_cm_id *id)
STUB(rdma_get_cm_event, struct rdma_event_channel *ch,
     struct rdma_cm_event **event)
STUB(rdma_ack_cm_event, struct rdma_cm_event *event)
STUB(rdma_set_option, struct rdma_cm_id *id, int level, int name,
     void *val, size_t len)
STUB(rdma_migrate_id, struct rdma_cm_id *id, struct rdma_event_channel *ch)
STUB(rdma_init_qp_attr, struct rdma_cm_id *id, struct ibv_qp_attr *attr,
     int *mask)

RC_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	rc_unimplemented("rdma_destroy_ep");
}

RC_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	rc_unimplemented("rdma_destroy_qp");
}

/* The ports are the id's own addresses' (network order), 0 for others. */
static __be16 sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

RC_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return sa_port(&id->route.addr.src_addr);
}

RC_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return sa_port(&id->route.addr.dst_addr);
}
