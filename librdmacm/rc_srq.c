/* SPDX-License-Identifier: MIT */
/*
 * SRQs of ids (rdma_create_srq, rdma_create_srq_ex, rdma_destroy_srq), as
 * rdma_create_srq(3) describes them: a basic SRQ on the id's PD that the
 * id's QP, made after it, receives from; or, on an XRC target id
 * (IBV_QPT_XRC_RECV), an XRC SRQ in the device's XRC domain with a
 * receive CQ and completion channel of the id's own unless the caller
 * gives them, so that rdma_get_recv_comp finds the completions a peer's
 * XRC SEND leaves there.  The peer learns the SRQ's number from the
 * application (rdma_xserver sends it in the REP's private data).
 */
#include <errno.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"
#include "librdmacm/rc_dev.h"

static int xrc_parts(struct rc_id *id, struct ibv_srq_init_attr_ex *a)
{
	struct rdma_cm_id *p = &id->pub;
	int ret;

	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !a->xrcd) {
		a->xrcd = rc_dev_xrcd(p->verbs);
		if (!a->xrcd)
			return -errno;
	}
	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !a->cq) {
		if (!p->recv_cq) {
			ret = rc_qp_make_cq(id, a->attr.max_wr, &p->recv_cq,
					    &p->recv_cq_channel);
			if (ret < 0)
				return ret;
			id->own_cqs = true;
		}
		a->cq = p->recv_cq;
	}
	a->comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	return 0;
}

static int create_srq(struct rc_id *id, struct ibv_srq_init_attr_ex *a)
{
	struct rdma_cm_id *p = &id->pub;
	struct ibv_srq *srq;
	int ret;

	if (!p->verbs || p->srq || !(a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return -EINVAL;
	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !a->pd) {
		a->pd = p->pd ? p->pd : rc_dev_pd(p->verbs);
		if (!a->pd)
			return -ENOMEM;
		a->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (a->pd->context != p->verbs)
		return -EINVAL;
	if (a->srq_type == IBV_SRQT_XRC) {
		ret = xrc_parts(id, a);
		if (ret < 0)
			return ret;
	}
	srq = ibv_create_srq_ex(p->verbs, a);
	if (!srq) {
		ret = -errno;
		if (!p->qp)
			rc_qp_destroy_cqs(id);
		return ret;
	}
	p->srq = srq;
	if (!p->pd)
		p->pd = a->pd;
	return 0;
}

RC_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				 struct ibv_srq_init_attr_ex *attr)
{
	if (!id || !attr)
		return rc_ret(-EINVAL);
	return rc_ret(create_srq(rc_id_of(id), attr));
}

RC_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex a;
	int ret;

	if (!id || !attr)
		return rc_ret(-EINVAL);
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	a.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
						       IBV_SRQT_BASIC;
	a.pd = pd;
	ret = create_srq(rc_id_of(id), &a);
	if (ret == 0)
		attr->attr = a.attr;
	return rc_ret(ret);
}

RC_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
	/* The CQ an XRC SRQ took is the id's own receive CQ. */
	if (!id->qp)
		rc_qp_destroy_cqs(rc_id_of(id));
}
