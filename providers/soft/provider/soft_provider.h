/* SPDX-License-Identifier: MIT */
/*
 * Private to the soft provider: the client side of the podverbsd IPC
 * (providers/soft/pv-soft-abi.h).  One connection per opened context,
 * requests serialised by a mutex; the async and completion-channel
 * sockets carry struct pv_ipc_event / pv_ipc_cq_event datagrams.
 */
#ifndef SOFT_PROVIDER_H
#define SOFT_PROVIDER_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "common/pv_ipc.h"
#include "libverbs/pv_provider.h"

struct soft_conn {
	int fd;
	pthread_mutex_t lock;		/* one request/reply at a time */
	uint32_t seq;
	uint32_t client_id;
};

struct soft_ctx {
	struct soft_conn conn;
	uint32_t dev_id;
};

static inline struct soft_ctx *soft_ctx_of(struct pv_context *ctx)
{
	return ctx->priv;
}

/* soft_conn.c */
int soft_conn_open(struct soft_conn *c, const char *path);
void soft_conn_close(struct soft_conn *c);
int soft_call(struct soft_conn *c, uint16_t op, const void *req,
	      uint32_t req_len, void *resp, uint32_t resp_cap,
	      uint32_t *resp_len, int *fds, int *nfds);
/* A call whose reply must be exactly resp_len bytes (or empty when 0). */
int soft_call_fixed(struct soft_conn *c, uint16_t op, const void *req,
		    uint32_t req_len, void *resp, uint32_t resp_len);

/* soft_discover.c */
int soft_discover(struct pv_dev_desc **ret_descs, char *why, size_t why_len);

/* soft_context.c */
int soft_open_context(struct pv_context *ctx);
void soft_close_context(struct pv_context *ctx);
int soft_query_device(struct pv_context *ctx, struct ibv_device_attr_ex *a);
int soft_query_port(struct pv_context *ctx, uint8_t port,
		    struct ibv_port_attr *a);
int soft_query_gid_table(struct pv_context *ctx, uint8_t port,
			 struct ibv_gid_entry *e, int max);
int soft_query_pkey(struct pv_context *ctx, uint8_t port, int index,
		    uint16_t *ret_pkey);

/* soft_events.c */
int soft_parse_event(const void *buf, size_t n, void *out, size_t out_len);
int soft_read_async_event(struct pv_context *ctx, struct pv_async_desc *ev);
int soft_read_cq_event(struct pv_context *ctx, struct pv_channel *ch,
		       uint32_t *ret_cq_handle);
int soft_create_channel(struct pv_context *ctx, struct pv_channel *ch);
int soft_destroy_channel(struct pv_context *ctx, struct pv_channel *ch);

/* soft_objects.c */
int soft_alloc_pd(struct pv_context *ctx, struct pv_pd *pd);
int soft_dealloc_pd(struct pv_context *ctx, struct pv_pd *pd);
int soft_reg_mr(struct pv_context *ctx, struct pv_pd *pd, struct pv_mr *mr,
		uint64_t iova, unsigned int access);
int soft_dereg_mr(struct pv_context *ctx, struct pv_mr *mr);
int soft_create_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe,
		   struct pv_channel *ch, int comp_vector);
int soft_resize_cq(struct pv_context *ctx, struct pv_cq *cq, int cqe);
int soft_destroy_cq(struct pv_context *ctx, struct pv_cq *cq);
int soft_req_notify_cq(struct pv_context *ctx, struct pv_cq *cq, int solicited);
int soft_create_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr);
int soft_modify_srq(struct pv_context *ctx, struct pv_srq *srq,
		    struct ibv_srq_attr *attr, int mask);
int soft_query_srq(struct pv_context *ctx, struct pv_srq *srq,
		   struct ibv_srq_attr *attr);
int soft_destroy_srq(struct pv_context *ctx, struct pv_srq *srq);
int soft_create_ah(struct pv_context *ctx, struct pv_ah *ah,
		   struct ibv_ah_attr *attr);
int soft_destroy_ah(struct pv_context *ctx, struct pv_ah *ah);

/* soft_qp.c */
int soft_create_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_init_attr_ex *attr);
int soft_modify_qp(struct pv_context *ctx, struct pv_qp *qp,
		   struct ibv_qp_attr *attr, int mask);
int soft_query_qp(struct pv_context *ctx, struct pv_qp *qp,
		  struct ibv_qp_attr *attr, int mask,
		  struct ibv_qp_init_attr *init_attr);
int soft_destroy_qp(struct pv_context *ctx, struct pv_qp *qp);

/* soft_qp_attr.c: pure translation between verbs and IPC structs. */
void soft_ah_attr_to_ipc(const struct ibv_ah_attr *in,
			 struct pv_ipc_ah_attr *out);
void soft_ah_attr_from_ipc(const struct pv_ipc_ah_attr *in,
			   struct ibv_ah_attr *out);
void soft_qp_cap_to_ipc(const struct ibv_qp_cap *in, struct pv_ipc_qp_cap *out);
void soft_qp_cap_from_ipc(const struct pv_ipc_qp_cap *in,
			  struct ibv_qp_cap *out);
void soft_qp_attr_to_ipc(const struct ibv_qp_attr *in,
			 struct pv_ipc_qp_attr *out);
void soft_qp_attr_from_ipc(const struct pv_ipc_qp_attr *in,
			   struct ibv_qp_attr *out);

#endif /* SOFT_PROVIDER_H */
