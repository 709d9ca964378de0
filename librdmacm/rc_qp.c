/* SPDX-License-Identifier: MIT */
/*
 * QPs of ids: rdma_init_qp_attr with the attributes the kernel's IB CM
 * gives (drivers/infiniband/core/cm.c, ib_cm_init_qp_attr, and cma.c for
 * the RDMA CM's INIT), the moves the library makes itself, and
 * rdma_create_qp with the CQs and completion channels it makes when the
 * caller gives none.  XRC ids (RDMA_PS_IB) get what the kernel's CM gives
 * each end: the initiator (XRC_SEND) has no receive side, so its RTR
 * lacks the responder's attributes; the target (XRC_RECV) has no send
 * queue, so its RTS carries only the PSN and timeout, and it is made in
 * the device's XRC domain with no CQs of its own (its SRQs have them).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"
#include "librdmacm/rc_dev.h"

/* The IB CM's local ACK timeout on RoCE: packet life time + 1 (IBA
 * 12.7.34: 4.096 us * 2^n); 16 + 1 as the kernel derives it. */
#define RC_DEFAULT_ACK_TIMEOUT	17

static bool connected(const struct rc_id *id)
{
	return id->remote.qp_num != 0;
}

static void attr_init(struct rc_id *id, struct ibv_qp_attr *a, int *mask)
{
	a->pkey_index = 0;
	a->port_num = 1;
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (id->pub.qp_type == IBV_QPT_UD) {
		a->qkey = RDMA_UDP_QKEY;
		*mask |= IBV_QP_QKEY;
		return;
	}
	a->qp_access_flags = 0;
	if (connected(id)) {
		a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (id->resp_res)
			a->qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC;
	}
	*mask |= IBV_QP_ACCESS_FLAGS;
}

static void attr_rtr(struct rc_id *id, struct ibv_qp_attr *a, int *mask)
{
	struct ibv_ah_attr *ah = &a->ah_attr;

	*mask = IBV_QP_STATE;
	if (id->pub.qp_type == IBV_QPT_UD)
		return;
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.dgid = id->pub.route.addr.addr.ibaddr.dgid;
	ah->grh.sgid_index = (uint8_t)id->gid_index;
	ah->grh.hop_limit = id->path.hop_limit ? id->path.hop_limit : 64;
	ah->grh.traffic_class = id->path.traffic_class;
	a->path_mtu = (enum ibv_mtu)(id->path_mtu ? id->path_mtu : IBV_MTU_1024);
	a->dest_qp_num = id->remote.qp_num;
	/* The kernel's RDMA CM (rdma_init_qp_attr): RTR's rq_psn is the id's
	 * own starting PSN, the one its REQ or REP carried, and the QP sends
	 * from the PSN the peer's message carried (attr_rts).  Kernel rxe
	 * NAKs a first packet sent the other way round (PSN sequence error,
	 * tests/vm/t_cm_interop.sh). */
	a->rq_psn = id->local.psn;
	*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		 IBV_QP_RQ_PSN;
	if (id->pub.qp_type == IBV_QPT_XRC_SEND)
		return;
	a->max_dest_rd_atomic = id->resp_res;
	a->min_rnr_timer = 0;	/* as the kernel's IB CM sets it */
	*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

static void attr_rts(struct rc_id *id, struct ibv_qp_attr *a, int *mask)
{
	a->sq_psn = id->remote.psn;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (id->pub.qp_type == IBV_QPT_UD)
		return;
	a->timeout = id->ack_timeout ? id->ack_timeout : RC_DEFAULT_ACK_TIMEOUT;
	*mask |= IBV_QP_TIMEOUT;
	if (id->pub.qp_type == IBV_QPT_XRC_RECV)
		return;
	/* The REQ's retry count serves both ends (IBA 12.7.38); RNR retries
	 * are what the other end's message asked for (12.7.39). */
	a->retry_cnt = id->passive ? id->remote.retry_count :
				     id->local.retry_count;
	a->rnr_retry = id->remote.rnr_retry_count;
	a->max_rd_atomic = id->init_depth;
	*mask |= IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

static int init_qp_attr(struct rc_id *id, struct ibv_qp_attr *a, int *mask)
{
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		attr_init(id, a, mask);
		return 0;
	case IBV_QPS_RTR:
		if (!connected(id) && id->pub.qp_type != IBV_QPT_UD)
			return -EINVAL;
		attr_rtr(id, a, mask);
		return 0;
	case IBV_QPS_RTS:
		attr_rts(id, a, mask);
		return 0;
	default:
		return -EINVAL;
	}
}

RC_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id,
				struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	if (!id || !qp_attr || !qp_attr_mask)
		return rc_ret(-EINVAL);
	return rc_ret(init_qp_attr(rc_id_of(id), qp_attr, qp_attr_mask));
}

int rc_qp_to(struct rc_id *id, enum ibv_qp_state state)
{
	struct ibv_qp_attr a;
	int mask, ret;

	if (!id->pub.qp)
		return 0;
	if (state == IBV_QPS_RTR && id->pub.qp_type != IBV_QPT_UD) {
		/* INIT again first: the access flags depend on the
		 * responder resources agreed since (as rdma-core does). */
		ret = rc_qp_to(id, IBV_QPS_INIT);
		if (ret < 0)
			return ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	ret = init_qp_attr(id, &a, &mask);
	if (ret < 0)
		return ret;
	ret = ibv_modify_qp(id->pub.qp, &a, mask);
	return ret > 0 ? -ret : ret;
}

int rc_qp_to_err(struct rc_id *id)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int ret;

	if (!id->pub.qp)
		return 0;
	ret = ibv_modify_qp(id->pub.qp, &a, IBV_QP_STATE);
	return ret > 0 ? -ret : ret;
}

void rc_qp_destroy_cqs(struct rc_id *id)
{
	struct rdma_cm_id *p = &id->pub;

	if (!id->own_cqs)
		return;
	if (p->recv_cq && p->recv_cq != p->send_cq)
		ibv_destroy_cq(p->recv_cq);
	if (p->send_cq)
		ibv_destroy_cq(p->send_cq);
	if (p->recv_cq_channel && p->recv_cq_channel != p->send_cq_channel)
		ibv_destroy_comp_channel(p->recv_cq_channel);
	if (p->send_cq_channel)
		ibv_destroy_comp_channel(p->send_cq_channel);
	p->send_cq = p->recv_cq = NULL;
	p->send_cq_channel = p->recv_cq_channel = NULL;
	id->own_cqs = false;
}

/* A CQ with its own completion channel, as rdma-core's librdmacm makes
 * them for rdma_get_send_comp/rdma_get_recv_comp. */
int rc_qp_make_cq(struct rc_id *id, uint32_t cqe, struct ibv_cq **cq,
		  struct ibv_comp_channel **chan)
{
	*chan = ibv_create_comp_channel(id->pub.verbs);
	if (!*chan)
		return -errno;
	*cq = ibv_create_cq(id->pub.verbs, cqe ? (int)cqe : 1, &id->pub,
			    *chan, 0);
	if (!*cq) {
		int err = -errno;

		ibv_destroy_comp_channel(*chan);
		*chan = NULL;
		return err;
	}
	return 0;
}

/* An XRC target is made in an XRC domain (the device's unless given)
 * and has no CQs, SRQ or queues of its own: senders name its SRQs. */
static int xrc_recv_attr(struct rc_id *id, struct ibv_qp_init_attr_ex *a)
{
	if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !a->xrcd) {
		a->xrcd = rc_dev_xrcd(id->pub.verbs);
		if (!a->xrcd)
			return -errno;
	}
	a->comp_mask = (a->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) |
		       IBV_QP_INIT_ATTR_XRCD;
	a->pd = NULL;
	a->send_cq = a->recv_cq = NULL;
	a->srq = NULL;
	memset(&a->cap, 0, sizeof(a->cap));
	return 0;
}

/* The CQs the caller did not give (an XRC initiator has no receive
 * side), each with its completion channel, as rdma-core makes them for
 * rdma_get_send_comp/rdma_get_recv_comp. */
static int make_cqs(struct rc_id *id, struct ibv_qp_init_attr_ex *a)
{
	struct rdma_cm_id *p = &id->pub;
	bool recv = p->qp_type != IBV_QPT_XRC_SEND;
	int ret;

	if (a->send_cq && (a->recv_cq || !recv))
		return 0;
	id->own_cqs = true;
	ret = rc_qp_make_cq(id, a->cap.max_send_wr, &p->send_cq,
			    &p->send_cq_channel);
	if (ret == 0 && recv)
		ret = rc_qp_make_cq(id, a->cap.max_recv_wr, &p->recv_cq,
				    &p->recv_cq_channel);
	if (ret < 0)
		return ret;
	a->send_cq = a->send_cq ? a->send_cq : p->send_cq;
	if (recv)
		a->recv_cq = a->recv_cq ? a->recv_cq : p->recv_cq;
	return 0;
}

static int create_qp(struct rc_id *id, struct ibv_qp_init_attr_ex *a)
{
	struct rdma_cm_id *p = &id->pub;
	struct ibv_pd *pd = (a->comp_mask & IBV_QP_INIT_ATTR_PD) ? a->pd : NULL;
	struct ibv_qp *qp;
	int ret;

	if (!p->verbs || p->qp)
		return -EINVAL;
	pd = pd ? pd : p->pd ? p->pd : rc_dev_pd(p->verbs);
	if (!pd || pd->context != p->verbs)
		return -EINVAL;
	a->qp_type = p->qp_type;
	if (p->qp_type == IBV_QPT_XRC_RECV) {
		ret = xrc_recv_attr(id, a);
		if (ret < 0)
			return ret;
	} else {
		a->comp_mask |= IBV_QP_INIT_ATTR_PD;
		a->pd = pd;
		if (p->qp_type == IBV_QPT_XRC_SEND) {
			a->recv_cq = NULL;
			a->srq = NULL;
			a->cap.max_recv_wr = a->cap.max_recv_sge = 0;
		} else if (!a->srq) {
			a->srq = p->srq;	/* rdma_create_srq's */
		}
		ret = make_cqs(id, a);
		if (ret < 0)
			goto err_cqs;
	}
	qp = ibv_create_qp_ex(p->verbs, a);
	if (!qp) {
		ret = -errno;
		goto err_cqs;
	}
	p->qp = qp;
	p->pd = pd;	/* an XRC target's too: rdma_reg_msgs uses it */
	ret = rc_qp_to(id, IBV_QPS_INIT);
	if (ret == 0 && p->qp_type == IBV_QPT_UD)
		ret = rc_qp_to(id, IBV_QPS_RTR) ?: rc_qp_to(id, IBV_QPS_RTS);
	if (ret < 0) {
		ibv_destroy_qp(qp);
		p->qp = NULL;
		goto err_cqs;
	}
	return 0;
err_cqs:
	if (p->qp_type != IBV_QPT_XRC_RECV)	/* made none */
		rc_qp_destroy_cqs(id);
	return ret;
}

RC_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex a;
	int ret;

	if (!id || !qp_init_attr)
		return rc_ret(-EINVAL);
	memset(&a, 0, sizeof(a));
	memcpy(&a, qp_init_attr, sizeof(*qp_init_attr));
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = pd;
	ret = create_qp(rc_id_of(id), &a);
	if (ret == 0)
		qp_init_attr->cap = a.cap;
	return rc_ret(ret);
}

RC_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				struct ibv_qp_init_attr_ex *attr)
{
	if (!id || !attr)
		return rc_ret(-EINVAL);
	if (attr->comp_mask &
	    ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD))
		return rc_unimplemented("rdma_create_qp_ex (comp_mask)");
	return rc_ret(create_qp(rc_id_of(id), attr));
}

RC_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id || !id->qp)
		return;
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	/* An XRC target's CQ is its SRQ's: rdma_destroy_srq frees it. */
	if (!(id->qp_type == IBV_QPT_XRC_RECV && id->srq))
		rc_qp_destroy_cqs(rc_id_of(id));
}
