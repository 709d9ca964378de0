/* SPDX-License-Identifier: MIT */
/*
 * Ids: create/destroy, bind, address and route resolution, listen,
 * options.  Each call is a request on the id's channel connection; the
 * engine decides (a pod binds only its own devices' addresses) and
 * reports ADDR_RESOLVED/ROUTE_RESOLVED on the channel, so every event of
 * an id comes in order through one fd.  The source address is chosen
 * here, in the pod's own namespace, by the kernel's routing; the engine
 * finds the device whose GID table holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"

/* The QP type an id of ps has: TCP RC and UDP UD whatever was asked (as
 * the kernel's ucma decides), IB the caller's (rdma_create_ep's
 * ai_qp_type: RC or either end of XRC). */
static enum ibv_qp_type qp_type_of(enum rdma_port_space ps,
				   enum ibv_qp_type asked)
{
	switch (ps) {
	case RDMA_PS_TCP: return IBV_QPT_RC;
	case RDMA_PS_UDP: return IBV_QPT_UD;
	default: return asked ? asked : IBV_QPT_RC;
	}
}

static int create_id(struct rdma_event_channel *channel,
		     struct rdma_cm_id **out, void *context,
		     enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct pv_ipc_cm_id_create req = { .ps = ps, .qp_type = qpt };
	struct pv_ipc_cm_ref rep;
	struct rc_chan *ch = (struct rc_chan *)channel;
	struct rc_id *id;
	int ret;

	if (!out)
		return -EINVAL;
	id = calloc(1, sizeof(*id));
	if (!id)
		return -ENOMEM;
	if (!ch) {
		ret = rc_chan_open(&ch);
		if (ret < 0)
			goto err_free;
		id->sync = id->own_chan = true;
		rc_chan_ref(ch);
	}
	req.cookie = (uintptr_t)id;
	ret = rc_call(ch, PV_OP_CM_ID_CREATE, &req, sizeof(req), &rep,
		      sizeof(rep));
	if (ret < 0)
		goto err_chan;
	id->handle = rep.id;
	id->pub.channel = &ch->pub;
	id->pub.context = context;
	id->pub.ps = ps;
	id->pub.qp_type = qpt;
	id->resp_res = id->init_depth = RDMA_MAX_RESP_RES;
	rc_id_link(ch, id);
	*out = &id->pub;
	return 0;

err_chan:
	if (id->own_chan)
		rc_chan_unref(ch);
err_free:
	free(id);
	return ret;
}

RC_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
			     struct rdma_cm_id **id, void *context,
			     enum rdma_port_space ps)
{
	return rc_ret(rc_id_create(channel, id, context, ps, 0));
}

int rc_id_create(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		 void *context, enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	/* IPoIB's port space needs an IB fabric. */
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP && ps != RDMA_PS_IB)
		return -EPROTONOSUPPORT;
	return create_id(channel, id, context, ps, qp_type_of(ps, qpt));
}

RC_EXPORT int rdma_destroy_id(struct rdma_cm_id *pub)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_ref ref;
	struct rc_event *e;

	if (!pub)
		return rc_ret(-EINVAL);
	ref = (struct pv_ipc_cm_ref){ .id = id->handle };
	rc_call(id->ch, PV_OP_CM_ID_DESTROY, &ref, sizeof(ref), NULL, 0);
	rc_id_unlink(id->ch, id);
	rc_mc_free_all(id);
	while ((e = id->queue) != NULL) {
		id->queue = e->next;
		free(e);
	}
	if (id->own_chan)
		rc_chan_unref(id->ch);
	free(id->pub.event);	/* rdma_get_request's, if never answered */
	free(id->ep_attr);
	free(id);
	return 0;
}

static int bind_addr(struct rc_id *id, const struct sockaddr *sa)
{
	struct pv_ipc_cm_addr req = { .id = id->handle };
	struct pv_ipc_cm_bound rep;
	int ret = rc_addr_from_sa(sa, &req.src);

	if (ret < 0)
		return ret;
	ret = rc_call(id->ch, PV_OP_CM_BIND, &req, sizeof(req), &rep,
		      sizeof(rep));
	if (ret == 0)
		rc_id_set_bound(id, &rep);
	return ret;
}

RC_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (!id || !addr)
		return rc_ret(-EINVAL);
	return rc_ret(bind_addr(rc_id_of(id), addr));
}

static int resolve_addr(struct rc_id *id, struct sockaddr *src,
			struct sockaddr *dst, int timeout_ms)
{
	struct pv_ipc_cm_addr req = { .id = id->handle };
	struct pv_ipc_cm_bound rep;
	struct rdma_addr *ra = &id->pub.route.addr;
	int ret;

	req.timeout_ms = timeout_ms > 0 ? (uint32_t)timeout_ms : 0;
	ret = rc_addr_from_sa(dst, &req.dst);
	if (ret < 0)
		return ret;
	if (src)
		ret = rc_addr_from_sa(src, &req.src);
	else
		ret = rc_addr_route_src(dst, &req.src);
	if (ret < 0)
		return ret;
	ret = rc_call(id->ch, PV_OP_CM_RESOLVE_ADDR, &req, sizeof(req), &rep,
		      sizeof(rep));
	if (ret < 0)
		return ret;
	rc_id_set_bound(id, &rep);
	rc_addr_to_sa(&req.dst, &ra->dst_storage);
	memcpy(ra->addr.ibaddr.dgid.raw, req.dst.addr, 16);
	return id->sync ? rc_sync_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED) : 0;
}

RC_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src,
				struct sockaddr *dst, int timeout_ms)
{
	if (!id || !dst)
		return rc_ret(-EINVAL);
	return rc_ret(resolve_addr(rc_id_of(id), src, dst, timeout_ms));
}

RC_EXPORT int rdma_resolve_route(struct rdma_cm_id *pub, int timeout_ms)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_ref ref;
	int ret;

	if (!pub)
		return rc_ret(-EINVAL);
	ref = (struct pv_ipc_cm_ref){ .id = id->handle };
	ret = rc_call(id->ch, PV_OP_CM_RESOLVE_ROUTE, &ref, sizeof(ref),
		      NULL, 0);
	if (ret == 0 && id->sync)
		ret = rc_sync_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	return rc_ret(ret);
}

RC_EXPORT int rdma_listen(struct rdma_cm_id *pub, int backlog)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_ref ref;

	if (!pub)
		return rc_ret(-EINVAL);
	ref = (struct pv_ipc_cm_ref){ .id = id->handle,
				      .arg = (uint32_t)backlog };
	return rc_ret(rc_call(id->ch, PV_OP_CM_LISTEN, &ref, sizeof(ref),
			      NULL, 0));
}

static int set_option(struct rc_id *id, int level, int name,
		      const void *val, size_t len)
{
	struct pv_ipc_cm_ref ref = { .id = id->handle };

	if (!val)
		return -EINVAL;
	if (level == RDMA_OPTION_IB && name == RDMA_OPTION_IB_PATH)
		return 0;	/* RoCE paths come from the route */
	if (level != RDMA_OPTION_ID)
		return -ENOSYS;
	switch (name) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(uint8_t))
			return -EINVAL;
		ref.arg = name == RDMA_OPTION_ID_TOS ? PV_CM_OPT_TOS :
						       PV_CM_OPT_ACK_TIMEOUT;
		ref.arg2 = *(const uint8_t *)val;
		if (name == RDMA_OPTION_ID_ACK_TIMEOUT && ref.arg2 <= 31)
			id->ack_timeout = (uint8_t)ref.arg2;
		break;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (len != sizeof(int))
			return -EINVAL;
		ref.arg = name == RDMA_OPTION_ID_REUSEADDR ?
			  PV_CM_OPT_REUSEADDR : PV_CM_OPT_AFONLY;
		ref.arg2 = *(const int *)val != 0;
		break;
	default:
		return -ENOSYS;
	}
	return rc_call(id->ch, PV_OP_CM_OPTION, &ref, sizeof(ref), NULL, 0);
}

RC_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			      void *optval, size_t optlen)
{
	if (!id)
		return rc_ret(-EINVAL);
	return rc_ret(set_option(rc_id_of(id), level, optname, optval, optlen));
}

/* Ids live on their channel's engine connection: moving one would mean
 * moving it between connections in the engine (not done yet). */
RC_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
			      struct rdma_event_channel *channel)
{
	if (id && channel == id->channel)
		return 0;
	return rc_unimplemented("rdma_migrate_id (to another channel)");
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
