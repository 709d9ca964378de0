/* SPDX-License-Identifier: MIT */
/*
 * The public verbs on a kernel context: each exported verb checks
 * lv_kern_priv() first (one load and branch on the soft path) and comes
 * here, where the call goes to the provider's op, and the core fills the
 * fields rdma-core 44's verbs.c fills around it.  A slot the provider
 * left NULL fails with EOPNOTSUPP, like rdma-core's dummy ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_verbs.h"

#define OP(c, name) (lv_kops(c)->name)
#define NEED(c, name, fail)						\
	do {								\
		if (!OP(c, name)) {					\
			errno = EOPNOTSUPP;				\
			return fail;					\
		}							\
	} while (0)

int lv_kern_query_port_ex(struct ibv_context *c, uint8_t port,
			  struct ibv_port_attr *attr, size_t attr_len)
{
	struct ibv_port_attr full;
	int ret;

	NEED(c, query_port, EOPNOTSUPP);
	memset(&full, 0, sizeof(full));
	ret = OP(c, query_port)(c, port, &full);
	if (ret)
		return ret;
	memcpy(attr, &full, attr_len < sizeof(full) ? attr_len : sizeof(full));
	return 0;
}

int lv_k_query_device(struct ibv_context *c, struct ibv_device_attr *attr)
{
	NEED(c, query_device_ex, EOPNOTSUPP);
	return OP(c, query_device_ex)(c, NULL, (struct ibv_device_attr_ex *)attr,
				      sizeof(*attr));
}

struct ibv_pd *lv_k_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd;

	NEED(c, alloc_pd, NULL);
	pd = OP(c, alloc_pd)(c);
	if (pd)
		pd->context = c;
	return pd;
}

int lv_k_dealloc_pd(struct ibv_pd *pd)
{
	NEED(pd->context, dealloc_pd, EOPNOTSUPP);
	return OP(pd->context, dealloc_pd)(pd);
}

struct ibv_mr *lv_k_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t iova, unsigned int access)
{
	struct ibv_mr *mr;

	NEED(pd->context, reg_mr, NULL);
	if (ibv_dontfork_range(addr, length))
		return NULL;
	mr = OP(pd->context, reg_mr)(pd, addr, length, iova, (int)access);
	if (!mr) {
		ibv_dofork_range(addr, length);
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	return mr;
}

int lv_k_dereg_mr(struct ibv_mr *mr)
{
	void *addr = mr->addr;
	size_t length = mr->length;
	int ret;

	NEED(mr->context, dereg_mr, EOPNOTSUPP);
	ret = OP(mr->context, dereg_mr)((struct verbs_mr *)mr);
	if (!ret)
		ibv_dofork_range(addr, length);
	return ret;
}

struct ibv_comp_channel *lv_k_create_comp_channel(struct ibv_context *c)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ret = lv_cmd_create_comp_channel(c, &ch->fd);
	if (ret) {
		free(ch);
		errno = ret;
		return NULL;
	}
	ch->context = c;
	return ch;
}

int lv_k_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	struct ibv_context *c = ch->context;
	int busy;

	pthread_mutex_lock(&c->mutex);
	busy = ch->refcnt;
	pthread_mutex_unlock(&c->mutex);
	if (busy)
		return EBUSY;
	close(ch->fd);
	free(ch);
	return 0;
}

struct ibv_cq *lv_k_create_cq(struct ibv_context *c, int cqe, void *cq_ctx,
			      struct ibv_comp_channel *ch, int vector)
{
	struct ibv_cq *cq;

	NEED(c, create_cq, NULL);
	cq = OP(c, create_cq)(c, cqe, ch, vector);
	if (cq)
		verbs_init_cq(cq, c, ch, cq_ctx);
	return cq;
}

struct ibv_cq_ex *lv_kern_create_cq_ex(struct ibv_context *c,
				       struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq;

	NEED(c, create_cq_ex, NULL);
	cq = OP(c, create_cq_ex)(c, attr);
	if (cq)
		verbs_init_cq(ibv_cq_ex_to_cq(cq), c, attr->channel,
			      attr->cq_context);
	return cq;
}

int lv_k_resize_cq(struct ibv_cq *cq, int cqe)
{
	NEED(cq->context, resize_cq, EOPNOTSUPP);
	return OP(cq->context, resize_cq)(cq, cqe);
}

int lv_k_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_comp_channel *ch = cq->channel;
	struct ibv_context *c = cq->context;
	int ret;

	NEED(c, destroy_cq, EOPNOTSUPP);
	ret = OP(c, destroy_cq)(cq);
	if (!ret && ch) {
		pthread_mutex_lock(&c->mutex);
		ch->refcnt--;
		pthread_mutex_unlock(&c->mutex);
	}
	return ret;
}

/* The kernel writes the CQ's user_handle (our pointer) per event. */
int lv_k_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
		      void **cq_ctx)
{
	struct ib_uverbs_comp_event_desc ev;

	if (read(ch->fd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)ev.cq_handle;
	*cq_ctx = (*cq)->cq_context;
	if (OP(ch->context, cq_event))
		OP(ch->context, cq_event)(*cq);
	return 0;
}

struct ibv_qp *lv_k_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	NEED(pd->context, create_qp, NULL);
	return OP(pd->context, create_qp)(pd, a);
}

int lv_k_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret;

	NEED(qp->context, modify_qp, EOPNOTSUPP);
	ret = OP(qp->context, modify_qp)(qp, attr, mask);
	if (!ret && (mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

int lv_k_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init)
{
	int ret;

	NEED(qp->context, query_qp, EOPNOTSUPP);
	ret = OP(qp->context, query_qp)(qp, attr, mask, init);
	if (!ret && (mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

int lv_k_destroy_qp(struct ibv_qp *qp)
{
	NEED(qp->context, destroy_qp, EOPNOTSUPP);
	return OP(qp->context, destroy_qp)(qp);
}

struct ibv_srq *lv_k_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *a)
{
	NEED(pd->context, create_srq, NULL);
	return OP(pd->context, create_srq)(pd, a);
}

int lv_k_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask)
{
	NEED(srq->context, modify_srq, EOPNOTSUPP);
	return OP(srq->context, modify_srq)(srq, a, mask);
}

int lv_k_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a)
{
	NEED(srq->context, query_srq, EOPNOTSUPP);
	return OP(srq->context, query_srq)(srq, a);
}

int lv_k_destroy_srq(struct ibv_srq *srq)
{
	NEED(srq->context, destroy_srq, EOPNOTSUPP);
	return OP(srq->context, destroy_srq)(srq);
}

struct ibv_ah *lv_k_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *a)
{
	struct ibv_ah *ah;

	NEED(pd->context, create_ah, NULL);
	ah = OP(pd->context, create_ah)(pd, a);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah;
}

int lv_k_destroy_ah(struct ibv_ah *ah)
{
	NEED(ah->context, destroy_ah, EOPNOTSUPP);
	return OP(ah->context, destroy_ah)(ah);
}

int lv_k_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid, bool attach)
{
	if (attach) {
		NEED(qp->context, attach_mcast, EOPNOTSUPP);
		return OP(qp->context, attach_mcast)(qp, gid, lid);
	}
	NEED(qp->context, detach_mcast, EOPNOTSUPP);
	return OP(qp->context, detach_mcast)(qp, gid, lid);
}

/* struct ib_uverbs_async_event_desc: element is the object's user_handle
 * (our pointer) or the port number, by event type. */
int lv_k_get_async_event(struct ibv_context *c, struct ibv_async_event *e)
{
	struct ib_uverbs_async_event_desc ev;

	if (read(c->async_fd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;
	e->event_type = (enum ibv_event_type)ev.event_type;
	switch (e->event_type) {
	case IBV_EVENT_CQ_ERR:
		e->element.cq = (struct ibv_cq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		e->element.qp = (struct ibv_qp *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		e->element.srq = (struct ibv_srq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_WQ_FATAL:
		e->element.wq = (struct ibv_wq *)(uintptr_t)ev.element;
		break;
	default:
		e->element.port_num = (int)ev.element;
		break;
	}
	if (OP(c, async_event))
		OP(c, async_event)(c, e);
	return 0;
}

/* GIDs and P_Keys of kernel devices are in sysfs (ports/N/gids/I,
 * ports/N/pkeys/I), as rdma-core's fallback reads them. */
int lv_k_query_gid(struct ibv_context *c, uint8_t port, int index,
		   union ibv_gid *gid)
{
	char name[64], val[64];
	unsigned int w[8];

	snprintf(name, sizeof(name), "ports/%u/gids/%d", port, index);
	if (ibv_read_sysfs_file(c->device->ibdev_path, name, val,
				sizeof(val)) < 0 ||
	    sscanf(val, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		gid->raw[2 * i] = (uint8_t)(w[i] >> 8);
		gid->raw[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

int lv_k_query_pkey(struct ibv_context *c, uint8_t port, int index,
		    __be16 *pkey)
{
	char name[64], val[16];

	snprintf(name, sizeof(name), "ports/%u/pkeys/%d", port, index);
	if (ibv_read_sysfs_file(c->device->ibdev_path, name, val,
				sizeof(val)) < 0)
		return -1;
	*pkey = htobe16((uint16_t)strtoul(val, NULL, 16));
	return 0;
}

/* One GID table entry from sysfs: gids/I, gid_attrs/types/I ("IB/RoCE
 * v1", "RoCE v2"), gid_attrs/ndevs/I.  -ENODATA for an empty (zero) or
 * unreadable slot inside the table, -EINVAL past its end. */
int lv_k_gid_entry(struct ibv_context *c, uint8_t port, uint32_t index,
		   struct ibv_gid_entry *e)
{
	static const union ibv_gid zero;
	struct ibv_port_attr pa;
	char name[96], val[64];

	if (lv_kern_query_port_ex(c, port, &pa, sizeof(pa)))
		return -EINVAL;
	if (index >= (uint32_t)pa.gid_tbl_len)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	if (lv_k_query_gid(c, port, (int)index, &e->gid) ||
	    !memcmp(&e->gid, &zero, sizeof(zero)))
		return -ENODATA;
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = pa.link_layer == IBV_LINK_LAYER_ETHERNET ?
		IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	snprintf(name, sizeof(name), "ports/%u/gid_attrs/types/%u", port, index);
	if (ibv_read_sysfs_file(c->device->ibdev_path, name, val,
				sizeof(val)) > 0 && !strcmp(val, "RoCE v2"))
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
	snprintf(name, sizeof(name), "ports/%u/gid_attrs/ndevs/%u", port, index);
	if (ibv_read_sysfs_file(c->device->ibdev_path, name, val,
				sizeof(val)) > 0)
		e->ndev_ifindex = if_nametoindex(val);
	return 0;
}

ssize_t lv_k_query_gid_table(struct ibv_context *c,
			     struct ibv_gid_entry *entries, size_t max,
			     size_t entry_size)
{
	struct ibv_device_attr da;
	size_t out = 0;
	int ret = lv_k_query_device(c, &da);

	if (ret)
		return -ret;
	for (int port = 1; port <= da.phys_port_cnt; port++) {
		struct ibv_port_attr pa;

		if (lv_kern_query_port_ex(c, (uint8_t)port, &pa, sizeof(pa)))
			return -EIO;
		for (int i = 0; i < pa.gid_tbl_len; i++) {
			struct ibv_gid_entry e;

			ret = lv_k_gid_entry(c, (uint8_t)port, (uint32_t)i, &e);
			if (ret == -ENODATA)
				continue;
			if (ret < 0)
				return ret;
			if (out >= max)
				return -EINVAL;
			memcpy((char *)entries + out++ * entry_size, &e,
			       sizeof(e));
		}
	}
	return (ssize_t)out;
}
