/* SPDX-License-Identifier: MIT */
/*
 * tests/vm/t_kcmd_qp.sh's program: on a kernel device (rxe0 in the VM,
 * through Debian's librxe over our libibverbs) it drives the provider ABI
 * commands of issue 16's QP/CQ/SRQ part and checks what comes back:
 *   ibv_create_cq_ex, ibv_resize_cq (cqe grows), ibv_create_qp_ex on an
 *   RC QP taken RESET -> INIT -> RTR -> RTS to itself, ibv_query_qp after
 *   each step (state, port, access flags, dest QPN, MTU, PSNs, caps),
 *   a SEND and an RDMA WRITE of 4 KiB on that QP, completions read with
 *   ibv_start_poll/ibv_next_poll, payloads compared; ibv_create_srq and
 *   ibv_create_srq_ex, ibv_modify_srq/ibv_query_srq (limit); a UD QP from
 *   ibv_create_qp_ex, ibv_attach_mcast/ibv_detach_mcast.
 * Then the kernel-side commands no provider of this VM calls:
 *   ibv_cmd_query_context (ioctl) agrees with get_context's vector count,
 *   or is EOPNOTSUPP from a driver without query_ucontext (rxe);
 *   ibv_cmd_post_send of a two-WR chain on the RC QP is accepted by the
 *   kernel's parser (rxe then only kicks its requester: the WRs are not
 *   executed), and on the UD QP (in RTS) a chain is accepted and refused
 *   once its second WR names an AH handle the kernel never gave.
 * Prints "ok: ..." per step, "FAIL: ..." and exits 1 on the first error.
 * Usage: kcmd-probe DEVICE GID_INDEX
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define LEN 4096
#define PSN 0x1234

/* The provider ABI itself (IBVERBS_PRIVATE_34), called directly: the
 * kernel's uverbs parses what these send. */
int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_query_context(struct ibv_context *c, void *driver_link);

static int fail(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, strerror(err));
	exit(1);
}

#define CHECK(cond, what)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL: %s\n", what);			\
			exit(1);					\
		}							\
	} while (0)

static void query(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr init;
	int mask = IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
		   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_SQ_PSN | IBV_QP_CAP | IBV_QP_AV;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = ibv_query_qp(qp, a, mask, &init);
	if (ret)
		fail("ibv_query_qp", ret);
	CHECK(init.qp_type == qp->qp_type, "query_qp: init qp_type");
	CHECK(init.send_cq == qp->send_cq, "query_qp: init send_cq");
}

/* One completion within 20 s (TCG is slow); its status and opcode. */
static void wait_wc(struct ibv_cq_ex *cq, enum ibv_wc_opcode op,
		    uint64_t wr_id, uint32_t len)
{
	struct ibv_poll_cq_attr pa = { 0 };
	time_t end = time(NULL) + 20;
	int ret;

	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT) {
		if (time(NULL) > end)
			fail("no completion within 20 s", ETIMEDOUT);
	}
	if (ret)
		fail("ibv_start_poll", ret);
	if (cq->status != IBV_WC_SUCCESS) {
		printf("FAIL: completion wr_id %llu status %s\n",
		       (unsigned long long)cq->wr_id,
		       ibv_wc_status_str(cq->status));
		exit(1);
	}
	CHECK(cq->wr_id == wr_id, "completion wr_id");
	CHECK(ibv_wc_read_opcode(cq) == op, "completion opcode");
	if (op == IBV_WC_RECV)
		CHECK(ibv_wc_read_byte_len(cq) == len, "recv byte_len");
	ibv_end_poll(cq);
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		fail(what, ret);
}

static void rc_path(struct ibv_context *c, struct ibv_pd *pd,
		    struct ibv_cq_ex *cq, int gid_index)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC, .comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd, .send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	int ret;

	qp = ibv_create_qp_ex(c, &qa);
	if (!qp)
		fail("ibv_create_qp_ex (RC)", errno);
	CHECK(qp->qp_num != 0 && qp->qp_type == IBV_QPT_RC, "create_qp_ex: qpn");
	CHECK(qa.cap.max_send_wr >= 8 && qa.cap.max_recv_wr >= 8,
	      "create_qp_ex: caps below the request");
	query(qp, &a);
	CHECK(a.qp_state == IBV_QPS_RESET, "query_qp: new QP not RESET");
	printf("ok: ibv_create_qp_ex RC qpn 0x%x caps send %u recv %u, query RESET\n",
	       qp->qp_num, qa.cap.max_send_wr, qa.cap.max_recv_wr);

	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qp_access_flags = (unsigned int)access };
	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "modify INIT");
	query(qp, &a);
	CHECK(a.qp_state == IBV_QPS_INIT, "query_qp: not INIT");
	CHECK(a.port_num == 1, "query_qp: port_num");
	CHECK(a.qp_access_flags == (unsigned int)access, "query_qp: access");
	printf("ok: INIT, query: port %u access 0x%x\n", a.port_num,
	       a.qp_access_flags);

	if (ibv_query_gid(c, 1, gid_index, &gid))
		fail("ibv_query_gid", errno);
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp->qp_num, .rq_psn = PSN,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid, .hop_limit = 1,
				      .sgid_index = (uint8_t)gid_index } },
	};
	modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "modify RTR");
	/* Connected to itself: what it sends is what it expects. */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = PSN,
				  .timeout = 14, .retry_cnt = 7,
				  .rnr_retry = 7, .max_rd_atomic = 1 };
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "modify RTS");
	query(qp, &a);
	CHECK(a.qp_state == IBV_QPS_RTS, "query_qp: not RTS");
	CHECK(a.dest_qp_num == qp->qp_num, "query_qp: dest_qp_num");
	CHECK(a.path_mtu == IBV_MTU_1024, "query_qp: path_mtu");
	CHECK(a.rq_psn == PSN && a.sq_psn == PSN, "query_qp: PSNs");
	CHECK(a.cap.max_send_wr >= 8, "query_qp: cap.max_send_wr");
	CHECK(!memcmp(a.ah_attr.grh.dgid.raw, gid.raw, 16), "query_qp: dgid");
	printf("ok: RTR, RTS to itself, query: dest 0x%x mtu %d rq_psn 0x%x sq_psn 0x%x\n",
	       a.dest_qp_num, a.path_mtu, a.rq_psn, a.sq_psn);

	buf = calloc(1, 3 * LEN);
	CHECK(buf, "calloc");
	mr = ibv_reg_mr(pd, buf, 3 * LEN, access);
	if (!mr)
		fail("ibv_reg_mr", errno);
	for (int i = 0; i < LEN; i++)
		buf[i] = (char)(i * 7 + 3);

	struct ibv_sge rs = { (uintptr_t)(buf + LEN), LEN, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_sge ss = { (uintptr_t)buf, LEN, mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *sbad;

	ret = ibv_post_recv(qp, &rwr, &rbad);
	if (ret)
		fail("ibv_post_recv", ret);
	ret = ibv_post_send(qp, &swr, &sbad);
	if (ret)
		fail("ibv_post_send SEND", ret);
	/* Either completion may come first on one CQ. */
	for (int n = 0; n < 2; n++) {
		struct ibv_poll_cq_attr pa = { 0 };
		time_t end = time(NULL) + 20;

		while ((ret = ibv_start_poll(cq, &pa)) == ENOENT)
			if (time(NULL) > end)
				fail("SEND: no completion within 20 s", ETIMEDOUT);
		if (ret)
			fail("ibv_start_poll", ret);
		CHECK(cq->status == IBV_WC_SUCCESS, "SEND/RECV completion status");
		if (cq->wr_id == 1)
			CHECK(ibv_wc_read_byte_len(cq) == LEN, "recv byte_len");
		ibv_end_poll(cq);
	}
	CHECK(!memcmp(buf, buf + LEN, LEN), "SEND payload differs");
	printf("ok: SEND %d bytes on the create_qp_ex QP, payload equal\n", LEN);

	swr = (struct ibv_send_wr){
		.wr_id = 3, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)(buf + 2 * LEN), mr->rkey },
	};
	ret = ibv_post_send(qp, &swr, &sbad);
	if (ret)
		fail("ibv_post_send RDMA_WRITE", ret);
	wait_wc(cq, IBV_WC_RDMA_WRITE, 3, 0);
	CHECK(!memcmp(buf, buf + 2 * LEN, LEN), "RDMA WRITE payload differs");
	printf("ok: RDMA WRITE %d bytes, payload equal\n", LEN);

	struct ibv_sge s2[2] = { { (uintptr_t)buf, 64, mr->lkey },
				 { (uintptr_t)(buf + 64), 64, mr->lkey } };
	struct ibv_send_wr w2 = {
		.wr_id = 5, .sg_list = s2, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { (uintptr_t)(buf + 2 * LEN), mr->rkey },
	};
	struct ibv_send_wr w1 = { .wr_id = 4, .next = &w2, .sg_list = &ss,
				  .num_sge = 1, .opcode = IBV_WR_SEND };

	sbad = NULL;
	ret = ibv_cmd_post_send(qp, &w1, &sbad);
	if (ret)
		fail("ibv_cmd_post_send (RC chain of 2)", ret);
	printf("ok: ibv_cmd_post_send RC chain (2 WRs, 3 SGEs) accepted by uverbs\n");

	if (ibv_destroy_qp(qp))
		fail("ibv_destroy_qp RC", errno);
	if (ibv_dereg_mr(mr))
		fail("ibv_dereg_mr", errno);
	free(buf);
}

static void srq_path(struct ibv_context *c, struct ibv_pd *pd,
		     struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_init_attr_ex xa = {
		.attr = { .max_wr = 32, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC, .pd = pd,
	};
	struct ibv_srq_attr q;
	struct ibv_srq *srq, *xsrq;
	int ret;

	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		fail("ibv_create_srq", errno);
	q = (struct ibv_srq_attr){ .srq_limit = 4 };
	ret = ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT);
	if (ret)
		fail("ibv_modify_srq (limit)", ret);
	memset(&q, 0, sizeof(q));
	ret = ibv_query_srq(srq, &q);
	if (ret)
		fail("ibv_query_srq", ret);
	CHECK(q.srq_limit == 4, "query_srq: srq_limit is not 4");
	CHECK(q.max_wr >= 16, "query_srq: max_wr below the request");
	printf("ok: ibv_create_srq, modify limit 4, query: max_wr %u max_sge %u limit %u\n",
	       q.max_wr, q.max_sge, q.srq_limit);

	xsrq = ibv_create_srq_ex(c, &xa);
	if (!xsrq)
		fail("ibv_create_srq_ex (basic)", errno);
	CHECK(xa.attr.max_wr >= 32, "create_srq_ex: max_wr below the request");
	memset(&q, 0, sizeof(q));
	ret = ibv_query_srq(xsrq, &q);
	if (ret)
		fail("ibv_query_srq (srq_ex)", ret);
	CHECK(q.max_wr >= 32 && q.srq_limit == 0, "query_srq (srq_ex)");
	printf("ok: ibv_create_srq_ex basic, query: max_wr %u limit %u\n",
	       q.max_wr, q.srq_limit);
	if (ibv_destroy_srq(xsrq) || ibv_destroy_srq(srq))
		fail("ibv_destroy_srq", errno);
	(void)cq;
}

static void ud_mcast(struct ibv_context *c, struct ibv_pd *pd,
		     struct ibv_cq *cq, int gid_index)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_UD, .comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	/* An IPv6 multicast GID (ff0e::/16, RoCE v2 maps it to 33:33:...). */
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [14] = 0x12, [15] = 0x34 } };
	struct ibv_qp *qp;
	int ret;

	qp = ibv_create_qp_ex(c, &qa);
	if (!qp)
		fail("ibv_create_qp_ex (UD)", errno);
	ret = ibv_attach_mcast(qp, &mgid, 0);
	if (ret)
		fail("ibv_attach_mcast", ret);
	ret = ibv_detach_mcast(qp, &mgid, 0);
	if (ret)
		fail("ibv_detach_mcast", ret);
	/* Detached: a second detach is refused by the kernel. */
	ret = ibv_detach_mcast(qp, &mgid, 0);
	CHECK(ret != 0, "second ibv_detach_mcast succeeded");
	printf("ok: UD qpn 0x%x attach/detach ff0e::1234, second detach refused (%s)\n",
	       qp->qp_num, strerror(ret));

	/* A real AH, then one whose handle the kernel never gave out. */
	union ibv_gid gid;
	if (ibv_query_gid(c, 1, gid_index, &gid))
		fail("ibv_query_gid", errno);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = gid, .hop_limit = 1,
					   .sgid_index = (uint8_t)gid_index } };
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	struct ibv_ah bogus = { .context = c, .pd = pd, .handle = 0xdead };
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	if (!ah || !mr)
		fail("ibv_create_ah/ibv_reg_mr", errno);
	struct ibv_sge sg = { (uintptr_t)buf, sizeof(buf), mr->lkey };
	struct ibv_send_wr u2 = { .wr_id = 2, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .wr.ud = { &bogus, qp->qp_num, 0x11111111 } };
	struct ibv_send_wr u1 = { .wr_id = 1, .next = &u2, .sg_list = &sg,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .wr.ud = { ah, qp->qp_num, 0x11111111 } };
	struct ibv_send_wr *bad = NULL;
	struct ibv_qp_attr qa2 = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				   .qkey = 0x11111111 };

	modify(qp, &qa2, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_QKEY, "UD modify INIT");
	qa2 = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	modify(qp, &qa2, IBV_QP_STATE, "UD modify RTR");
	qa2 = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1 };
	modify(qp, &qa2, IBV_QP_STATE | IBV_QP_SQ_PSN, "UD modify RTS");
	/* Both AHs real: the kernel's parser takes the chain. */
	u2.wr.ud.ah = ah;
	ret = ibv_cmd_post_send(qp, &u1, &bad);
	if (ret)
		fail("ibv_cmd_post_send (UD chain of 2)", ret);
	/* The second names an AH the kernel never gave out: refused while
	 * parsing (no index comes back: bad_wr is the chain's first, as
	 * rdma-core's). */
	u2.wr.ud.ah = &bogus;
	ret = ibv_cmd_post_send(qp, &u1, &bad);
	/* Kernels answer ENOENT (the handle's lookup) or EINVAL. */
	if ((ret != ENOENT && ret != EINVAL) || bad != &u1) {
		printf("FAIL: ibv_cmd_post_send with an unknown AH: %d (%s), bad_wr %s\n",
		       ret, strerror(ret), bad == &u1 ? "WR 1" : bad == &u2 ?
		       "WR 2" : "neither");
		exit(1);
	}
	printf("ok: ibv_cmd_post_send UD chain accepted; with an unknown AH in WR 2: %s\n",
	       strerror(ret));
	if (ibv_destroy_ah(ah) || ibv_dereg_mr(mr))
		fail("ibv_destroy_ah/ibv_dereg_mr", errno);
	if (ibv_destroy_qp(qp))
		fail("ibv_destroy_qp UD", errno);
}

int main(int argc, char **argv)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_device **list;
	struct ibv_context *c = NULL;
	struct ibv_cq_ex *cq;
	struct ibv_pd *pd;
	int n, ret, old;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	CHECK(list, "ibv_get_device_list");
	for (int i = 0; i < n && !c; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			c = ibv_open_device(list[i]);
	CHECK(c, "device not found or not opened");
	pd = ibv_alloc_pd(c);
	if (!pd)
		fail("ibv_alloc_pd", errno);

	cq = ibv_create_cq_ex(c, &ca);
	if (!cq)
		fail("ibv_create_cq_ex", errno);
	old = ibv_cq_ex_to_cq(cq)->cqe;
	CHECK(old >= 64, "create_cq_ex: cqe below the request");
	ret = ibv_resize_cq(ibv_cq_ex_to_cq(cq), 512);
	if (ret)
		fail("ibv_resize_cq", ret);
	CHECK(ibv_cq_ex_to_cq(cq)->cqe >= 512, "resize_cq: cqe did not grow");
	printf("ok: ibv_create_cq_ex cqe %d, ibv_resize_cq -> %d\n", old,
	       ibv_cq_ex_to_cq(cq)->cqe);

	rc_path(c, pd, cq, atoi(argv[2]));
	srq_path(c, pd, ibv_cq_ex_to_cq(cq));
	ud_mcast(c, pd, ibv_cq_ex_to_cq(cq), atoi(argv[2]));

	old = c->num_comp_vectors;
	c->num_comp_vectors = -1;
	ret = ibv_cmd_query_context(c, NULL);
	if (ret == EOPNOTSUPP) {
		/* The method's handler: this driver has no query_ucontext
		 * (t_kcmd_qp.sh checks the ioctl reached it in strace). */
		CHECK(c->num_comp_vectors == -1, "query_context: failed but wrote");
		c->num_comp_vectors = old;
		printf("ok: ibv_cmd_query_context (ioctl): EOPNOTSUPP from the driver\n");
	} else if (ret) {
		fail("ibv_cmd_query_context", ret);
	} else {
		CHECK(c->num_comp_vectors == old,
		      "query_context: vectors differ from get_context's");
		printf("ok: ibv_cmd_query_context (ioctl): %d completion vectors, as get_context\n",
		       c->num_comp_vectors);
	}

	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
		fail("ibv_destroy_cq", errno);
	if (ibv_dealloc_pd(pd))
		fail("ibv_dealloc_pd", errno);
	ibv_close_device(c);
	ibv_free_device_list(list);
	printf("ok: all\n");
	return 0;
}
