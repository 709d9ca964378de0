/* SPDX-License-Identifier: MIT */
/*
 * The providers compiled into the library and their default ops: every
 * slot a provider leaves NULL fails with -EOPNOTSUPP, so the core can call
 * any op without checking.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "libverbs/lv_core.h"

#define DEFAULT_OP(name, ...) \
	static int default_##name(__VA_ARGS__) { return -EOPNOTSUPP; }

DEFAULT_OP(discover, struct pv_dev_desc **d, char *w, size_t l)
DEFAULT_OP(open_context, struct pv_context *c)
DEFAULT_OP(query_device, struct pv_context *c, struct ibv_device_attr_ex *a)
DEFAULT_OP(query_port, struct pv_context *c, uint8_t p, struct ibv_port_attr *a)
DEFAULT_OP(query_gid_table, struct pv_context *c, uint8_t p,
	   struct ibv_gid_entry *e, int m)
DEFAULT_OP(query_pkey, struct pv_context *c, uint8_t p, int i, uint16_t *k)
DEFAULT_OP(alloc_pd, struct pv_context *c, struct pv_pd *pd)
DEFAULT_OP(dealloc_pd, struct pv_context *c, struct pv_pd *pd)
DEFAULT_OP(reg_mr, struct pv_context *c, struct pv_pd *pd, struct pv_mr *mr,
	   uint64_t iova, unsigned int access)
DEFAULT_OP(dereg_mr, struct pv_context *c, struct pv_mr *mr)
DEFAULT_OP(create_channel, struct pv_context *c, struct pv_channel *ch)
DEFAULT_OP(destroy_channel, struct pv_context *c, struct pv_channel *ch)
DEFAULT_OP(read_cq_event, struct pv_context *c, struct pv_channel *ch,
	   uint32_t *h)
DEFAULT_OP(create_cq, struct pv_context *c, struct pv_cq *cq, int cqe,
	   struct pv_channel *ch, int v)
DEFAULT_OP(resize_cq, struct pv_context *c, struct pv_cq *cq, int cqe)
DEFAULT_OP(destroy_cq, struct pv_context *c, struct pv_cq *cq)
DEFAULT_OP(req_notify_cq, struct pv_context *c, struct pv_cq *cq, int s)
DEFAULT_OP(poll_cq, struct pv_context *c, struct pv_cq *cq, int n,
	   struct ibv_wc *wc)
DEFAULT_OP(create_qp, struct pv_context *c, struct pv_qp *qp,
	   struct ibv_qp_init_attr_ex *a)
DEFAULT_OP(modify_qp, struct pv_context *c, struct pv_qp *qp,
	   struct ibv_qp_attr *a, int m)
DEFAULT_OP(query_qp, struct pv_context *c, struct pv_qp *qp,
	   struct ibv_qp_attr *a, int m, struct ibv_qp_init_attr *i)
DEFAULT_OP(destroy_qp, struct pv_context *c, struct pv_qp *qp)
DEFAULT_OP(open_qp, struct pv_context *c, struct pv_qp *qp,
	   const struct ibv_qp_open_attr *a)
DEFAULT_OP(post_send, struct pv_context *c, struct pv_qp *qp,
	   struct ibv_send_wr *wr, struct ibv_send_wr **bad)
DEFAULT_OP(post_recv, struct pv_context *c, struct pv_qp *qp,
	   struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
DEFAULT_OP(create_srq, struct pv_context *c, struct pv_srq *s,
	   struct ibv_srq_attr *a)
DEFAULT_OP(modify_srq, struct pv_context *c, struct pv_srq *s,
	   struct ibv_srq_attr *a, int m)
DEFAULT_OP(query_srq, struct pv_context *c, struct pv_srq *s,
	   struct ibv_srq_attr *a)
DEFAULT_OP(destroy_srq, struct pv_context *c, struct pv_srq *s)
DEFAULT_OP(post_srq_recv, struct pv_context *c, struct pv_srq *s,
	   struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
DEFAULT_OP(create_ah, struct pv_context *c, struct pv_ah *ah,
	   struct ibv_ah_attr *a)
DEFAULT_OP(destroy_ah, struct pv_context *c, struct pv_ah *ah)
DEFAULT_OP(attach_mcast, struct pv_context *c, struct pv_qp *qp,
	   const union ibv_gid *g, uint16_t l)
DEFAULT_OP(detach_mcast, struct pv_context *c, struct pv_qp *qp,
	   const union ibv_gid *g, uint16_t l)
DEFAULT_OP(read_async_event, struct pv_context *c, struct pv_async_desc *e)

static void default_close_context(struct pv_context *c)
{
}

#define FILL(o, name) do { if (!(o)->name) (o)->name = default_##name; } while (0)

static void fill_defaults(struct pv_provider_ops *o)
{
	FILL(o, discover);
	FILL(o, open_context);
	FILL(o, close_context);
	FILL(o, query_device);
	FILL(o, query_port);
	FILL(o, query_gid_table);
	FILL(o, query_pkey);
	FILL(o, alloc_pd);
	FILL(o, dealloc_pd);
	FILL(o, reg_mr);
	FILL(o, dereg_mr);
	FILL(o, create_channel);
	FILL(o, destroy_channel);
	FILL(o, read_cq_event);
	FILL(o, create_cq);
	FILL(o, resize_cq);
	FILL(o, destroy_cq);
	FILL(o, req_notify_cq);
	FILL(o, poll_cq);
	FILL(o, create_qp);
	FILL(o, modify_qp);
	FILL(o, query_qp);
	FILL(o, destroy_qp);
	FILL(o, open_qp);
	FILL(o, post_send);
	FILL(o, post_recv);
	FILL(o, create_srq);
	FILL(o, modify_srq);
	FILL(o, query_srq);
	FILL(o, destroy_srq);
	FILL(o, post_srq_recv);
	FILL(o, create_ah);
	FILL(o, destroy_ah);
	FILL(o, attach_mcast);
	FILL(o, detach_mcast);
	FILL(o, read_async_event);
}

/* The providers compiled in, in discovery order.  Add new ones here. */
static const struct pv_provider *const providers[] = {
	&pv_soft_provider,
};
#define N_PROVIDERS (sizeof(providers) / sizeof(providers[0]))

static struct pv_provider_ops resolved[N_PROVIDERS];
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve_all(void)
{
	for (size_t i = 0; i < N_PROVIDERS; i++) {
		resolved[i] = providers[i]->ops;
		fill_defaults(&resolved[i]);
	}
}

const struct pv_provider_ops *lv_provider_ops(const struct pv_provider *prov)
{
	pthread_once(&resolve_once, resolve_all);
	for (size_t i = 0; i < N_PROVIDERS; i++)
		if (providers[i] == prov)
			return &resolved[i];
	return NULL;
}

size_t lv_provider_count(void)
{
	return N_PROVIDERS;
}

const struct pv_provider *lv_provider_at(size_t i)
{
	return i < N_PROVIDERS ? providers[i] : NULL;
}
