/* SPDX-License-Identifier: MIT */
/*
 * Multicast: rdma_join_multicast(_ex) and rdma_leave_multicast.  The
 * engine answers a join with MULTICAST_JOIN carrying the group's UD
 * parameters (eng_cm_mcast.c: MGID = the group address, RoCEv2's mapping
 * for IPv4; QPN 0xFFFFFF; Q_Key RDMA_UDP_QKEY); here, as rdma-core's
 * librdmacm does, the id's QP is attached to the group when the event is
 * read (not for a send-only join) and detached at the leave, and the
 * join's context comes back as the event's param.ud.private_data.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"

struct rc_mc {
	struct rc_mc *next;
	struct pv_cm_addr addr;		/* the group */
	void *context;
	bool sendonly;
	bool attached;
	union ibv_gid mgid;
};

/* Joins are rare; one lock for all ids' lists (the event reader and the
 * joining thread may differ). */
static pthread_mutex_t mc_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rc_mc **mc_find(struct rc_id *id, const uint8_t addr[16])
{
	struct rc_mc **pp = &id->mcs;

	while (*pp && memcmp((*pp)->addr.addr, addr, 16))
		pp = &(*pp)->next;
	return pp;
}

static int join(struct rc_id *id, const struct sockaddr *addr, bool sendonly,
		void *context)
{
	struct pv_ipc_cm_addr req = { .id = id->handle };
	struct rc_mc *mc, **pp;
	int ret;

	if (!addr)
		return -EINVAL;
	ret = rc_addr_from_sa(addr, &req.dst);
	if (ret < 0)
		return ret;
	if (!id->pub.verbs)
		return -ENODEV;		/* no address resolved or bound yet */
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return -ENOMEM;
	mc->addr = req.dst;
	mc->context = context;
	mc->sendonly = sendonly;
	pthread_mutex_lock(&mc_lock);
	if (*mc_find(id, req.dst.addr)) {
		pthread_mutex_unlock(&mc_lock);
		free(mc);
		return -EADDRINUSE;	/* joined already */
	}
	mc->next = id->mcs;
	id->mcs = mc;
	pthread_mutex_unlock(&mc_lock);
	ret = rc_call(id->ch, PV_OP_CM_JOIN, &req, sizeof(req), NULL, 0);
	if (ret == 0 && id->sync)
		ret = rc_sync_wait(id, RDMA_CM_EVENT_MULTICAST_JOIN);
	if (ret < 0) {
		pthread_mutex_lock(&mc_lock);
		pp = mc_find(id, req.dst.addr);
		if (*pp == mc)
			*pp = mc->next;
		pthread_mutex_unlock(&mc_lock);
		if (mc->attached && id->pub.qp)
			ibv_detach_mcast(id->pub.qp, &mc->mgid, 0);
		free(mc);
	}
	return ret;
}

int rc_mc_event(struct rc_id *id, struct rc_event *e,
		const struct pv_cm_event *ev)
{
	struct rdma_ud_param *ud = &e->pub.param.ud;
	struct rc_mc *mc;
	int ret = 0;

	pthread_mutex_lock(&mc_lock);
	mc = *mc_find(id, ev->dst.addr);
	if (!mc) {
		pthread_mutex_unlock(&mc_lock);
		return -ENOENT;
	}
	e->pub.id = &id->pub;
	e->pub.event = RDMA_CM_EVENT_MULTICAST_JOIN;
	e->pub.status = ev->status;
	memcpy(mc->mgid.raw, ev->dgid, 16);
	ud->private_data = mc->context;
	ud->qp_num = ev->p.qp_num;
	ud->qkey = ev->p.qkey;
	ud->ah_attr.is_global = 1;
	ud->ah_attr.port_num = 1;
	ud->ah_attr.grh.dgid = mc->mgid;
	ud->ah_attr.grh.sgid_index = (uint8_t)id->gid_index;
	ud->ah_attr.grh.hop_limit = 64;	/* RoCEv2: IPv6's default */
	if (id->pub.qp && !mc->sendonly && !mc->attached) {
		ret = ibv_attach_mcast(id->pub.qp, &mc->mgid, 0);
		if (ret == 0)
			mc->attached = true;
	}
	pthread_mutex_unlock(&mc_lock);
	if (ret) {
		e->pub.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		e->pub.status = -ret;
	}
	return 0;
}

void rc_mc_free_all(struct rc_id *id)
{
	pthread_mutex_lock(&mc_lock);
	while (id->mcs) {
		struct rc_mc *mc = id->mcs;

		id->mcs = mc->next;
		/* The QP, if still there, is the app's to destroy; the
		 * engine drops its attachments with it. */
		free(mc);
	}
	pthread_mutex_unlock(&mc_lock);
}

RC_EXPORT int rdma_join_multicast(struct rdma_cm_id *id,
				  struct sockaddr *addr, void *context)
{
	if (!id)
		return rc_ret(-EINVAL);
	return rc_ret(join(rc_id_of(id), addr, false, context));
}

RC_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
				     struct rdma_cm_join_mc_attr_ex *attr,
				     void *context)
{
	const uint32_t need = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			      RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;

	if (!id || !attr || (attr->comp_mask & need) != need ||
	    (attr->comp_mask & ~need))
		return rc_ret(-EINVAL);
	if (attr->join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
	    attr->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return rc_ret(-EINVAL);
	return rc_ret(join(rc_id_of(id), attr->addr,
			   attr->join_flags ==
			   RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER, context));
}

RC_EXPORT int rdma_leave_multicast(struct rdma_cm_id *pub,
				   struct sockaddr *addr)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_cm_addr a;
	struct rc_mc *mc, **pp;
	int ret;

	if (!pub || !addr)
		return rc_ret(-EINVAL);
	ret = rc_addr_from_sa(addr, &a);
	if (ret < 0)
		return rc_ret(ret);
	pthread_mutex_lock(&mc_lock);
	pp = mc_find(id, a.addr);
	mc = *pp;
	if (mc)
		*pp = mc->next;
	pthread_mutex_unlock(&mc_lock);
	if (!mc)
		return rc_ret(-EADDRNOTAVAIL);
	if (mc->attached && pub->qp)
		ret = ibv_detach_mcast(pub->qp, &mc->mgid, 0);
	free(mc);
	return ret ? rc_ret(-ret) : 0;
}
