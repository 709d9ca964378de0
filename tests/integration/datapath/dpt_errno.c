/* SPDX-License-Identifier: MIT */
/*
 * errno conventions (issue 12, item 4): a control verb that fails returns
 * an errno value and leaves the same value in errno, as rdma-core's do
 * (its commands return the errno of the failed write/ioctl on the cmd
 * fd); the -1 verbs (ibv_query_gid, ibv_query_pkey) set errno.  Each call
 * here fails the way the kernel (ib_uverbs, rxe) fails it: EINVAL for a
 * bad transition, port, size or limit, EBUSY for an object still in use.
 * errno is cleared before each call.  Side B only takes part in the
 * connection of the RC QP.
 */
#include "dpt.h"

#include <errno.h>
#include <string.h>

static int n_checked;

/* call must return want, and errno must then be want too. */
#define EXPECT_ERR(call, want)						\
	do {								\
		int r_, e_;						\
		errno = 0;						\
		r_ = (call);						\
		e_ = errno;						\
		CHECK(r_ == (want) && e_ == (want),			\
		      "%s: returned %d (%s), errno %d (%s); expected %s " \
		      "in both", #call, r_, strerror(r_), e_,		\
		      strerror(e_), strerror(want));			\
		n_checked++;						\
	} while (0)

/* -1 verbs: -1 and errno set. */
#define EXPECT_M1(call)							\
	do {								\
		int r_, e_;						\
		errno = 0;						\
		r_ = (call);						\
		e_ = errno;						\
		CHECK(r_ == -1 && e_ != 0, "%s: returned %d, errno %d", \
		      #call, r_, e_);					\
		n_checked++;						\
	} while (0)

static int side_a(struct dpt_side *s)
{
	struct ibv_context *ctx = s->ctx;
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(s->pd, &sia);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTS };
	struct ibv_srq_attr sa = { .srq_limit = 1000000 };
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp *sqp;
	struct ibv_pd *pd2;
	struct ibv_mr *mr;
	union ibv_gid gid;
	uint16_t pkey;
	char *buf = dpt_buf(4096);

	CHECK(srq != NULL, "create SRQ: %s", strerror(errno));
	CHECK(ibv_query_device(ctx, &da) == 0, "query device");

	/* EINVAL: the transition, the port, the sizes, the limit */
	EXPECT_ERR(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL);
	qa.qp_state = IBV_QPS_RTR;
	EXPECT_ERR(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL);
	EXPECT_ERR(ibv_query_port(ctx, da.phys_port_cnt + 1, &pa), EINVAL);
	EXPECT_ERR(ibv_resize_cq(cq, 0), EINVAL);
	EXPECT_ERR(ibv_resize_cq(cq, da.max_cqe + 1), EINVAL);
	EXPECT_ERR(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), EINVAL);
	EXPECT_M1(ibv_query_gid(ctx, 1, 100000, &gid));
	EXPECT_M1(ibv_query_pkey(ctx, 1, 100000, &pkey));

	/* EBUSY: objects other objects still use */
	EXPECT_ERR(ibv_destroy_cq(cq), EBUSY);
	pd2 = ibv_alloc_pd(ctx);
	CHECK(pd2 != NULL, "alloc PD");
	mr = ibv_reg_mr(pd2, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL, "reg MR: %s", strerror(errno));
	EXPECT_ERR(ibv_dealloc_pd(pd2), EBUSY);
	{
		struct ibv_qp_init_attr qia = {
			.send_cq = cq, .recv_cq = cq, .srq = srq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		};

		sqp = ibv_create_qp(s->pd, &qia);
		CHECK(sqp != NULL, "create QP on the SRQ: %s",
		      strerror(errno));
	}
	EXPECT_ERR(ibv_destroy_srq(srq), EBUSY);

	/* and success leaves no stale error behind in the return value */
	CHECK(ibv_destroy_qp(sqp) == 0, "destroy QP");
	CHECK(ibv_destroy_srq(srq) == 0, "destroy SRQ");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg MR");
	CHECK(ibv_dealloc_pd(pd2) == 0, "dealloc PD");

	{
		struct dpt_conn me, peer;

		dpt_conn_fill(s, &me, qp, NULL);
		dpt_swap(s, &me, &peer);
	}
	dpt_sync(s);
	dpt_log(s, "%d failing control verbs: errno equals the returned "
		"error each time: ok", n_checked);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 0);
	struct dpt_conn me, peer;

	dpt_conn_fill(s, &me, qp, NULL);
	dpt_swap(s, &me, &peer);
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
