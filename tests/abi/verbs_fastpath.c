/*
 * Uses the inline fast paths and the macro-wrapped verbs of
 * <infiniband/verbs.h> the way applications do.  verbs_layout.sh only
 * compiles and links it (as C and as C++), against our header and against
 * rdma-core's: nothing here is ever run.
 */
#include <infiniband/verbs.h>

#include <stdio.h>

int pv_fastpath_qp(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_mr *mr);
int pv_fastpath_qp_ex(struct ibv_qp *qp, struct ibv_ah *ah, struct ibv_mr *mr);
int pv_fastpath_cq(struct ibv_cq *cq, struct ibv_cq_ex *cq_ex);
int pv_fastpath_ctx(struct ibv_context *ctx, struct ibv_pd *pd, void *buf,
		    unsigned int access);

int pv_fastpath_qp(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_mr *mr)
{
	struct ibv_sge sge;
	struct ibv_send_wr swr, *bad_swr = NULL;
	struct ibv_recv_wr rwr, *bad_rwr = NULL;
	int ret;

	sge.addr = (uintptr_t)mr->addr;
	sge.length = 64;
	sge.lkey = mr->lkey;

	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	swr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	swr.imm_data = 0x01020304;
	swr.wr.rdma.remote_addr = 0x1000;
	swr.wr.rdma.rkey = mr->rkey;
	ret = ibv_post_send(qp, &swr, &bad_swr);

	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret |= ibv_post_recv(qp, &rwr, &bad_rwr);
	ret |= ibv_post_srq_recv(srq, &rwr, &bad_rwr);
	return ret;
}

int pv_fastpath_qp_ex(struct ibv_qp *qp, struct ibv_ah *ah, struct ibv_mr *mr)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_sge sges[2];
	struct ibv_data_buf bufs[1];
	char inline_data[8] = "podverb";

	if (!qpx)
		return -1;
	sges[0].addr = (uintptr_t)mr->addr;
	sges[0].length = 8;
	sges[0].lkey = mr->lkey;
	sges[1] = sges[0];
	bufs[0].addr = inline_data;
	bufs[0].length = sizeof(inline_data);

	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, 0x11, 0x1234);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, 8);
	ibv_wr_send_imm(qpx, 5);
	ibv_wr_set_sge_list(qpx, 2, sges);
	ibv_wr_send_inv(qpx, 9);
	ibv_wr_set_inline_data(qpx, inline_data, sizeof(inline_data));
	ibv_wr_rdma_write(qpx, mr->rkey, 0x2000);
	ibv_wr_set_inline_data_list(qpx, 1, bufs);
	ibv_wr_rdma_write_imm(qpx, mr->rkey, 0x2000, 6);
	ibv_wr_rdma_read(qpx, mr->rkey, 0x3000);
	ibv_wr_atomic_cmp_swp(qpx, mr->rkey, 0x4000, 1, 2);
	ibv_wr_atomic_fetch_add(qpx, mr->rkey, 0x4000, 1);
	ibv_wr_atomic_write(qpx, mr->rkey, 0x4000, inline_data);
	ibv_wr_local_inv(qpx, 3);
	ibv_wr_bind_mw(qpx, NULL, 4, NULL);
	ibv_wr_send_tso(qpx, inline_data, 8, 1400);
	ibv_wr_set_xrc_srqn(qpx, 12);
	if (qpx->comp_mask)
		ibv_wr_abort(qpx);
	return ibv_wr_complete(qpx);
}

int pv_fastpath_cq(struct ibv_cq *cq, struct ibv_cq_ex *cq_ex)
{
	struct ibv_poll_cq_attr attr;
	struct ibv_wc wc[4];
	struct ibv_wc_tm_info tm;
	uint64_t sum = 0;
	int n, ret;

	n = ibv_poll_cq(cq, 4, wc);
	if (n > 0 && wc[0].status != IBV_WC_SUCCESS)
		puts(ibv_wc_status_str(wc[0].status));
	if (n > 0 && (wc[0].opcode & IBV_WC_RECV) &&
	    (wc[0].wc_flags & IBV_WC_WITH_IMM))
		sum += wc[0].imm_data;
	ret = ibv_req_notify_cq(cq, 0);

	memset(&attr, 0, sizeof(attr));
	if (ibv_start_poll(cq_ex, &attr) != 0)
		return ret;
	do {
		sum += cq_ex->wr_id + cq_ex->status;
		sum += ibv_wc_read_opcode(cq_ex) + ibv_wc_read_byte_len(cq_ex);
		sum += ibv_wc_read_vendor_err(cq_ex) + ibv_wc_read_qp_num(cq_ex);
		sum += ibv_wc_read_imm_data(cq_ex);
		sum += ibv_wc_read_invalidated_rkey(cq_ex);
		sum += ibv_wc_read_src_qp(cq_ex) + ibv_wc_read_wc_flags(cq_ex);
		sum += ibv_wc_read_slid(cq_ex) + ibv_wc_read_sl(cq_ex);
		sum += ibv_wc_read_dlid_path_bits(cq_ex);
		sum += ibv_wc_read_completion_ts(cq_ex);
		sum += ibv_wc_read_completion_wallclock_ns(cq_ex);
		sum += ibv_wc_read_cvlan(cq_ex) + ibv_wc_read_flow_tag(cq_ex);
		ibv_wc_read_tm_info(cq_ex, &tm);
		sum += tm.tag;
	} while (ibv_next_poll(cq_ex) == 0);
	ibv_end_poll(cq_ex);
	return (int)(sum & 1) | ret;
}

/* Control-path verbs that are inlines or macros in the header. */
int pv_fastpath_ctx(struct ibv_context *ctx, struct ibv_pd *pd, void *buf,
		    unsigned int access)
{
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct ibv_gid_entry gids[4];
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_qp_init_attr_ex qp_attr;
	struct ibv_srq_init_attr_ex srq_attr;
	struct ibv_qp_open_attr open_attr;
	struct ibv_mw_bind bind;
	struct ibv_mr *mr1, *mr2, *mr3;
	struct ibv_mw *mw;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	uint32_t srqn = 0;
	ssize_t ngids;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &dattr);
	ret |= ibv_query_port(ctx, 1, &pattr);
	ret |= ibv_query_gid_ex(ctx, 1, 0, &gids[0], 0);
	ngids = ibv_query_gid_table(ctx, gids, 4, 0);

	/* Constant access: the classic entry point; variable or optional
	 * access: ibv_reg_mr_iova2(). */
	mr1 = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	mr2 = ibv_reg_mr(pd, buf, 4096, access);
	if (!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_ZERO_BASED) ||
	    !ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_RELAXED_ORDERING))
		ret |= errno;
	mr3 = ibv_reg_mr_iova(pd, buf, 4096, 0,
			      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_RELAXED_ORDERING);

	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = 16;
	cq_attr.wc_flags = IBV_WC_STANDARD_FLAGS;
	cq = ibv_create_cq_ex(ctx, &cq_attr);

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RC;
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qp_attr.pd = pd;
	qp_attr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	if (cq)
		qp_attr.send_cq = qp_attr.recv_cq = ibv_cq_ex_to_cq(cq);
	qp = ibv_create_qp_ex(ctx, &qp_attr);

	memset(&srq_attr, 0, sizeof(srq_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	srq_attr.pd = pd;
	srq_attr.attr.max_wr = 8;
	srq = ibv_create_srq_ex(ctx, &srq_attr);
	if (srq)
		ret |= ibv_get_srq_num(srq, &srqn);

	memset(&open_attr, 0, sizeof(open_attr));
	open_attr.comp_mask = IBV_QP_OPEN_ATTR_NUM;
	if (!ibv_open_qp(ctx, &open_attr))
		ret |= errno;

	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	if (mw && qp && mr1) {
		memset(&bind, 0, sizeof(bind));
		bind.bind_info.mr = mr1;
		bind.bind_info.addr = (uintptr_t)buf;
		bind.bind_info.length = 64;
		bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
		ret |= ibv_bind_mw(qp, mw, &bind);
		mw->rkey = ibv_inc_rkey(mw->rkey);
		ret |= ibv_dealloc_mw(mw);
	}
	if (qp && !ibv_create_flow(qp, NULL))
		ret |= errno;
	if (!ibv_create_wq(ctx, NULL))
		ret |= errno;
	if (verbs_get_ctx_op(ctx, query_port))
		ret |= 2;
	return ret | (int)ngids | (mr1 && mr2 && mr3) | (int)srqn;
}
