/* SPDX-License-Identifier: MIT */
/*
 * t_kprov_mw's program, built against Debian's <infiniband/verbs.h> and
 * run in the VM over our libibverbs.so.1 with Debian's librxe on rxe0:
 *  - memory windows: type 1 allocated, bound with ibv_bind_mw (a bind
 *    completion), type 2 bound by an IBV_WR_BIND_MW send; an RDMA READ
 *    through each window's rkey on a loopback RC QP returns the bound
 *    bytes; both deallocated (ioctl MW_DESTROY on the real kernel);
 *  - ibv_rereg_mr: rxe has no rereg op, so rdma-core's result,
 *    IBV_REREG_MR_ERR_CMD with errno EOPNOTSUPP; bad input ERR_INPUT;
 *  - ibv_cmd_query_mr (the kernel's generic QUERY_MR method) on the MR's
 *    handle: its lkey, rkey and length come back;
 *  - XRC, WQ, RSS table, flow, flow action, counters, DM, dma-buf MR,
 *    advise_mr, open_qp: EOPNOTSUPP, no crash (librxe has none of them);
 *    the ioctl-only commands sent straight to the kernel are refused by
 *    it, not as a malformed request (EOPNOTSUPP/EPROTONOSUPPORT, or EBADF
 *    for the dma-buf fd -1; never EINVAL).
 * Prints "ok: ..." per check; exit 0 when all passed, 1 at the first
 * failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

/* rdma-core 44's driver.h (not shipped by Debian): what we call. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	int mr_type;
	int access;
};
struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};
struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};
struct ibv_command_buffer;
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);

static int checks;

#define FAIL(...) do {							\
		printf("FAIL: " __VA_ARGS__);				\
		printf(" (errno %d %s)\n", errno, strerror(errno));	\
		exit(1);						\
	} while (0)
#define OK(...) do { checks++; printf("ok: " __VA_ARGS__); printf("\n"); } while (0)

static struct ibv_cq *cq;
static struct ibv_qp *qp;

static void poll_one(enum ibv_wc_opcode want, const char *what)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			FAIL("%s: ibv_poll_cq %d", what, n);
		if (n == 1)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			FAIL("%s: no completion in 20 s", what);
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != want)
		FAIL("%s: completion status %s opcode %d (want %d)", what,
		     ibv_wc_status_str(wc.status), wc.opcode, want);
}

static void connect_self(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr a;
	union ibv_gid gid;

	if (ibv_query_port(ctx, 1, &pa) || ibv_query_gid(ctx, 1, 1, &gid))
		FAIL("query port/gid");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		FAIL("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pa.active_mtu;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		FAIL("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		FAIL("modify RTS");
}

/* An RDMA READ of 64 bytes through rkey from buf into buf + 4096. */
static void read_through(struct ibv_mr *mr, char *buf, uint32_t rkey,
			 char pattern, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(buf + 4096), .length = 64, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(buf, pattern, 64);
	memset(buf + 4096, 0, 64);
	wr.wr.rdma.remote_addr = (uintptr_t)buf;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		FAIL("%s: post RDMA READ", what);
	poll_one(IBV_WC_RDMA_READ, what);
	if (memcmp(buf, buf + 4096, 64))
		FAIL("%s: the READ returned other bytes", what);
}

static void mw_checks(struct ibv_pd *pd, struct ibv_mr *mr, char *buf)
{
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)buf,
			       .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_send_wr wr = { .wr_id = 2, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_mw *mw1, *mw2;
	uint32_t old;

	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	if (!mw1 || mw1->type != IBV_MW_TYPE_1 || mw1->pd != pd)
		FAIL("ibv_alloc_mw type 1");
	old = mw1->rkey;
	if (ibv_bind_mw(qp, mw1, &bind))
		FAIL("ibv_bind_mw type 1");
	poll_one(IBV_WC_BIND_MW, "bind type 1");
	if (mw1->rkey == old)
		FAIL("type 1 bind left the rkey at 0x%x", old);
	read_through(mr, buf, mw1->rkey, 0x5a, "READ via type 1 window");
	OK("MW type 1: alloc (rkey 0x%x), ibv_bind_mw -> rkey 0x%x, RDMA READ "
	   "through it", old, mw1->rkey);

	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!mw2 || mw2->type != IBV_MW_TYPE_2)
		FAIL("ibv_alloc_mw type 2");
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info = bind.bind_info;
	if (ibv_post_send(qp, &wr, &bad))
		FAIL("post IBV_WR_BIND_MW type 2");
	poll_one(IBV_WC_BIND_MW, "bind type 2");
	read_through(mr, buf, wr.bind_mw.rkey, 0x3c, "READ via type 2 window");
	OK("MW type 2: alloc (rkey 0x%x), IBV_WR_BIND_MW -> rkey 0x%x, RDMA "
	   "READ through it", mw2->rkey, wr.bind_mw.rkey);
	/* A type 2 window is bound by a work request only. */
	if (ibv_bind_mw(qp, mw2, &bind) != EINVAL)
		FAIL("ibv_bind_mw on a type 2 window is not EINVAL");
	if (ibv_dealloc_mw(mw1))
		FAIL("ibv_dealloc_mw type 1");
	if (ibv_dealloc_mw(mw2))
		FAIL("ibv_dealloc_mw type 2");
	OK("ibv_dealloc_mw of both windows");
}

static void rereg_checks(struct ibv_pd *pd, struct ibv_mr *mr)
{
	struct verbs_mr q;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	if (ret != IBV_REREG_MR_ERR_CMD || errno != EOPNOTSUPP)
		FAIL("ibv_rereg_mr: %d, want IBV_REREG_MR_ERR_CMD/EOPNOTSUPP",
		     ret);
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0,
			   0);
	if (ret != IBV_REREG_MR_ERR_INPUT || errno != EINVAL)
		FAIL("ibv_rereg_mr bad input: %d", ret);
	OK("ibv_rereg_mr: IBV_REREG_MR_ERR_CMD, errno EOPNOTSUPP (librxe has "
	   "no rereg_mr); bad input IBV_REREG_MR_ERR_INPUT/EINVAL");

	memset(&q, 0, sizeof(q));
	ret = ibv_cmd_query_mr(pd, &q, mr->handle);
	if (ret)
		FAIL("ibv_cmd_query_mr: %d", ret);
	if (q.ibv_mr.lkey != mr->lkey || q.ibv_mr.rkey != mr->rkey ||
	    q.ibv_mr.length != mr->length || q.mr_type != 2)
		FAIL("ibv_cmd_query_mr: lkey 0x%x rkey 0x%x length %zu, MR has "
		     "0x%x 0x%x %zu", q.ibv_mr.lkey, q.ibv_mr.rkey,
		     q.ibv_mr.length, mr->lkey, mr->rkey, mr->length);
	OK("ibv_cmd_query_mr (kernel QUERY_MR): lkey 0x%x rkey 0x%x length %zu "
	   "as registered", q.ibv_mr.lkey, q.ibv_mr.rkey, q.ibv_mr.length);
}

#define WANT_NULL(expr, what) do {					\
		errno = 0;						\
		if ((expr) != NULL || errno != EOPNOTSUPP)		\
			FAIL("%s: not NULL/EOPNOTSUPP", what);		\
	} while (0)

/* A refusal by the kernel, not by a request it could not parse. */
static void want_refused(int ret, const char *what)
{
	if (ret != EOPNOTSUPP && ret != EPROTONOSUPPORT && ret != ENOSYS &&
	    ret != EBADF)
		FAIL("%s: %d (%s), want the kernel's EOPNOTSUPP", what, ret,
		     strerror(ret));
}

static void unsupported_checks(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_mr *mr)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ, .max_wr = 1, .max_sge = 1, .pd = pd,
		.cq = cq,
	};
	struct ibv_rwq_ind_table_init_attr ra = { .log_ind_tbl_size = 0 };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} fl = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .num_of_specs = 1,
			  .port = 1, .size = sizeof(fl) },
		.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(fl.eth) },
	};
	struct ibv_flow_action_esp_attr ea = { 0 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_alloc_dm_attr da = { .length = 64 };
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = qp->qp_num, .qp_type = IBV_QPT_RC,
	};
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 64,
			       .lkey = mr->lkey };
	struct verbs_counters vc;
	struct verbs_dm vd;
	struct verbs_mr vm;

	WANT_NULL(ibv_open_xrcd(ctx, &xa), "ibv_open_xrcd");
	WANT_NULL(ibv_create_wq(ctx, &wa), "ibv_create_wq");
	WANT_NULL(ibv_create_rwq_ind_table(ctx, &ra),
		  "ibv_create_rwq_ind_table");
	WANT_NULL(ibv_create_flow(qp, &fl.attr), "ibv_create_flow");
	WANT_NULL(ibv_create_flow_action_esp(ctx, &ea),
		  "ibv_create_flow_action_esp");
	WANT_NULL(ibv_create_counters(ctx, &ca), "ibv_create_counters");
	WANT_NULL(ibv_alloc_dm(ctx, &da), "ibv_alloc_dm");
	WANT_NULL(ibv_open_qp(ctx, &oa), "ibv_open_qp");
	WANT_NULL(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0),
		  "ibv_reg_dmabuf_mr");
	WANT_NULL(ibv_import_mr(pd, mr->handle), "ibv_import_mr");
	if (ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1) !=
	    EOPNOTSUPP)
		FAIL("ibv_advise_mr is not EOPNOTSUPP");
	OK("librxe lacks them: ibv_open_xrcd, ibv_create_wq, "
	   "ibv_create_rwq_ind_table, ibv_create_flow, "
	   "ibv_create_flow_action_esp, ibv_create_counters, ibv_alloc_dm, "
	   "ibv_open_qp, ibv_reg_dmabuf_mr, ibv_import_mr, ibv_advise_mr: "
	   "EOPNOTSUPP");

	want_refused(ibv_cmd_create_counters(ctx, &ca, &vc, NULL),
		     "ibv_cmd_create_counters");
	want_refused(ibv_cmd_alloc_dm(ctx, &da, &vd, NULL), "ibv_cmd_alloc_dm");
	want_refused(ibv_cmd_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				       &sge, 1), "ibv_cmd_advise_mr");
	want_refused(ibv_cmd_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0, &vm),
		     "ibv_cmd_reg_dmabuf_mr");
	OK("the kernel refuses ibv_cmd_create_counters, ibv_cmd_alloc_dm, "
	   "ibv_cmd_advise_mr, ibv_cmd_reg_dmabuf_mr on rxe (not EINVAL)");
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "rxe0";
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_qp_init_attr qa = { 0 };
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		FAIL("open %s", name);
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, 8192);
	if (!pd || !buf)
		FAIL("alloc pd/buffer");
	mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_MW_BIND);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!mr || !cq)
		FAIL("reg_mr/create_cq");
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		FAIL("create_qp");
	connect_self(ctx);

	mw_checks(pd, mr, buf);
	rereg_checks(pd, mr);
	unsupported_checks(ctx, pd, mr);

	if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) ||
	    ibv_dealloc_pd(pd))
		FAIL("teardown");
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("kprov_mw: %d checks passed on %s\n", checks, name);
	return 0;
}
