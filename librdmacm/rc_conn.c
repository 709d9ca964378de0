/* SPDX-License-Identifier: MIT */
/*
 * Connections: rdma_connect (REQ), rdma_accept (REP), rdma_reject (REJ),
 * rdma_establish (RTU), rdma_disconnect (DREQ), and the synchronous
 * conveniences rdma_get_request, rdma_create_ep, rdma_destroy_ep.  QPs
 * move as rdma-core's librdmacm moves them: INIT at creation, RTR+RTS
 * before the REP at the passive side, at the REP at the active side, ERR
 * at disconnect.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rdma/rdma_verbs.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"

static uint32_t random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint32_t)(uintptr_t)&v;
	return v & 0xffffff;
}

/* The device's limits bound what a caller asks for (0xff: the most). */
static void cap_depths(struct rc_id *id, uint8_t *rr, uint8_t *idep)
{
	struct ibv_device_attr da;

	if (!id->pub.verbs || ibv_query_device(id->pub.verbs, &da) != 0)
		return;
	if (*rr > da.max_qp_rd_atom)
		*rr = (uint8_t)da.max_qp_rd_atom;
	if (*idep > da.max_qp_init_rd_atom)
		*idep = (uint8_t)da.max_qp_init_rd_atom;
}

static int fill_conn(struct rc_id *id, const struct rdma_conn_param *cp,
		     uint32_t limit, struct pv_ipc_cm_conn *req)
{
	memset(req, 0, sizeof(*req));
	req->id = id->handle;
	if (!cp) {
		/* rdma-core's defaults for a NULL conn_param: the most the
		 * device allows, flow control, retries without end. */
		req->p.responder_resources = RDMA_MAX_RESP_RES;
		req->p.initiator_depth = RDMA_MAX_INIT_DEPTH;
		req->p.flow_control = 1;
		req->p.retry_count = 7;
		req->p.rnr_retry_count = 7;
		return 0;
	}
	if (cp->private_data_len > limit ||
	    (cp->private_data_len && !cp->private_data))
		return -EINVAL;
	req->p.pdata_len = cp->private_data_len;
	if (cp->private_data_len)
		memcpy(req->pdata, cp->private_data, cp->private_data_len);
	req->p.responder_resources = cp->responder_resources;
	req->p.initiator_depth = cp->initiator_depth;
	req->p.flow_control = cp->flow_control;
	req->p.retry_count = cp->retry_count > 7 ? 7 : cp->retry_count;
	req->p.rnr_retry_count = cp->rnr_retry_count > 7 ? 7 :
				 cp->rnr_retry_count;
	req->p.srq = cp->srq;
	req->p.qp_num = cp->qp_num & 0xffffff;
	return 0;
}

static void own_qp(struct rc_id *id, struct pv_ipc_cm_conn *req)
{
	if (id->pub.qp) {
		req->p.qp_num = id->pub.qp->qp_num;
		req->p.srq = id->pub.qp->srq != NULL;
	}
	if (id->pub.ps == RDMA_PS_UDP)
		req->p.qkey = RDMA_UDP_QKEY;
	req->p.psn = random_psn();
}

static int do_connect(struct rc_id *id, const struct rdma_conn_param *cp)
{
	struct pv_ipc_cm_conn req;
	int ret = fill_conn(id, cp, id->pub.ps == RDMA_PS_UDP ?
			    PV_CM_SIDR_REQ_PDATA : PV_CM_REQ_PDATA, &req);

	if (ret < 0)
		return ret;
	own_qp(id, &req);
	cap_depths(id, &req.p.responder_resources, &req.p.initiator_depth);
	id->local = req.p;
	id->resp_res = req.p.responder_resources;
	id->init_depth = req.p.initiator_depth;
	ret = rc_call(id->ch, PV_OP_CM_CONNECT, &req, sizeof(req), NULL, 0);
	if (ret == 0 && id->sync)
		ret = rc_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return ret;
}

RC_EXPORT int rdma_connect(struct rdma_cm_id *id,
			   struct rdma_conn_param *conn_param)
{
	if (!id)
		return rc_ret(-EINVAL);
	return rc_ret(do_connect(rc_id_of(id), conn_param));
}

static void drop_held_event(struct rc_id *id)
{
	free(id->pub.event);
	id->pub.event = NULL;
}

static int do_accept(struct rc_id *id, const struct rdma_conn_param *cp)
{
	uint32_t limit = id->pub.ps == RDMA_PS_UDP ? PV_CM_SIDR_REP_PDATA :
						     PV_CM_REP_PDATA;
	struct pv_ipc_cm_conn req;
	int ret = fill_conn(id, cp, limit, &req);

	if (ret < 0)
		return ret;
	own_qp(id, &req);
	/* No more than the requester offered (IBA 12.7.26). */
	if (req.p.responder_resources > id->resp_res)
		req.p.responder_resources = id->resp_res;
	if (req.p.initiator_depth > id->init_depth)
		req.p.initiator_depth = id->init_depth;
	cap_depths(id, &req.p.responder_resources, &req.p.initiator_depth);
	id->resp_res = req.p.responder_resources;
	id->init_depth = req.p.initiator_depth;
	id->local = req.p;
	if (id->pub.qp && id->pub.qp_type != IBV_QPT_UD) {
		ret = rc_qp_to(id, IBV_QPS_RTR);
		if (ret == 0)
			ret = rc_qp_to(id, IBV_QPS_RTS);
		if (ret < 0)
			return ret;
	}
	ret = rc_call(id->ch, PV_OP_CM_ACCEPT, &req, sizeof(req), NULL, 0);
	drop_held_event(id);
	if (ret == 0 && id->sync && id->pub.ps != RDMA_PS_UDP)
		ret = rc_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return ret;
}

RC_EXPORT int rdma_accept(struct rdma_cm_id *id,
			  struct rdma_conn_param *conn_param)
{
	if (!id)
		return rc_ret(-EINVAL);
	return rc_ret(do_accept(rc_id_of(id), conn_param));
}

RC_EXPORT int rdma_reject(struct rdma_cm_id *pub, const void *private_data,
			  uint8_t private_data_len)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_conn req;
	int ret;

	if (!pub || private_data_len > PV_CM_REJ_PDATA ||
	    (private_data_len && !private_data))
		return rc_ret(-EINVAL);
	memset(&req, 0, sizeof(req));
	req.id = id->handle;
	req.p.pdata_len = private_data_len;
	if (private_data_len)
		memcpy(req.pdata, private_data, private_data_len);
	ret = rc_call(id->ch, PV_OP_CM_REJECT, &req, sizeof(req), NULL, 0);
	drop_held_event(id);
	return rc_ret(ret);
}

RC_EXPORT int rdma_establish(struct rdma_cm_id *pub)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_ref ref;

	if (!pub)
		return rc_ret(-EINVAL);
	ref = (struct pv_ipc_cm_ref){ .id = id->handle };
	return rc_ret(rc_call(id->ch, PV_OP_CM_ESTABLISH, &ref, sizeof(ref),
			      NULL, 0));
}

RC_EXPORT int rdma_disconnect(struct rdma_cm_id *pub)
{
	struct rc_id *id = rc_id_of(pub);
	struct pv_ipc_cm_ref ref;
	int ret;

	if (!pub)
		return rc_ret(-EINVAL);
	rc_qp_to_err(id);
	ref = (struct pv_ipc_cm_ref){ .id = id->handle };
	ret = rc_call(id->ch, PV_OP_CM_DISCONNECT, &ref, sizeof(ref), NULL, 0);
	if (ret == 0 && id->sync)
		rc_sync_wait(id, RDMA_CM_EVENT_DISCONNECTED);
	return rc_ret(ret);
}

/* A synchronous listener's next request, with the QP its rdma_create_ep
 * attributes ask for; the id holds the request's event until accept. */
static int get_request(struct rc_id *l, struct rdma_cm_id **out)
{
	struct rc_event *e;
	struct rc_id *id;
	int ret;

	if (!l->sync)
		return -EINVAL;
	e = rc_sync_take_request(l);
	if (!e) {
		ret = rc_sync_wait(l, RDMA_CM_EVENT_CONNECT_REQUEST);
		if (ret < 0)
			return ret;
		e = rc_sync_take_request(l);
		if (!e)
			return -EIO;
	}
	id = rc_id_of(e->pub.id);
	id->pub.event = &e->pub;
	if (l->ep_attr) {
		struct ibv_qp_init_attr a = *l->ep_attr;

		ret = rdma_create_qp(&id->pub, l->pub.pd, &a) ? -errno : 0;
		if (ret < 0) {
			rdma_reject(&id->pub, NULL, 0);
			rdma_destroy_id(&id->pub);
			return ret;
		}
	}
	*out = &id->pub;
	return 0;
}

RC_EXPORT int rdma_get_request(struct rdma_cm_id *listen,
			       struct rdma_cm_id **id)
{
	if (!listen || !id)
		return rc_ret(-EINVAL);
	return rc_ret(get_request(rc_id_of(listen), id));
}

static int create_ep(struct rdma_cm_id **out, struct rdma_addrinfo *res,
		     struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct rdma_cm_id *pub;
	struct rc_id *id;
	int ret;

	if (!out || !res)
		return -EINVAL;
	ret = rc_id_create(NULL, &pub, NULL,
			   (enum rdma_port_space)res->ai_port_space,
			   (enum ibv_qp_type)res->ai_qp_type);
	if (ret < 0)
		return ret;
	id = rc_id_of(pub);
	if (res->ai_flags & RAI_PASSIVE) {
		ret = rdma_bind_addr(pub, res->ai_src_addr) ? -errno : 0;
		if (ret == 0 && attr) {
			id->ep_attr = malloc(sizeof(*attr));
			if (!id->ep_attr)
				ret = -ENOMEM;
			else
				*id->ep_attr = *attr;
			pub->pd = pd;
		}
	} else {
		ret = rdma_resolve_addr(pub, res->ai_src_addr,
					res->ai_dst_addr, 2000) ? -errno : 0;
		if (ret == 0)
			ret = rdma_resolve_route(pub, 2000) ? -errno : 0;
		if (ret == 0 && attr)
			ret = rdma_create_qp(pub, pd, attr) ? -errno : 0;
	}
	if (ret < 0) {
		rdma_destroy_ep(pub);
		return ret;
	}
	*out = pub;
	return 0;
}

RC_EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
			     struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	return rc_ret(create_ep(id, res, pd, qp_init_attr));
}

RC_EXPORT void rdma_destroy_ep(struct rdma_cm_id *pub)
{
	struct rc_id *id = rc_id_of(pub);

	if (!pub)
		return;
	rdma_destroy_qp(pub);
	rdma_destroy_srq(pub);
	free(id->ep_attr);
	id->ep_attr = NULL;
	free(pub->event);
	pub->event = NULL;
	rdma_destroy_id(pub);
}
