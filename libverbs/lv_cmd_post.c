/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side data path of the provider ABI: ibv_cmd_post_send,
 * ibv_cmd_post_recv, ibv_cmd_post_srq_recv and ibv_cmd_poll_cq, used by
 * providers whose device has no user-space queues (and by librxe-style
 * doorbells).  A post is one write command: the core request (handle,
 * counts, WR size), the work requests in the kernel's struct
 * ib_uverbs_{send,recv}_wr, then every scatter/gather entry in order;
 * the kernel answers the 1-based index of the WR it refused.  A poll
 * asks for up to ne struct ib_uverbs_wc.
 *
 * The command's size is counted in 16-bit words, so a chain that does not
 * fit is refused (EINVAL, nothing sent), a poll asks for what fits, and
 * the kernel's counts are bounded by what was sent or asked for.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"

#define U64(p) ((uint64_t)(uintptr_t)(p))

/* The largest legacy command: in_words/out_words are 16 bits. */
#define LV_CMD_MAX_BYTES ((size_t)UINT16_MAX * 4)

/* Writes a legacy command built in buf (header filled here). */
static int run(struct ibv_context *c, void *buf, size_t size,
	       uint32_t command, size_t resp_size)
{
	ssize_t n;
	int ret = lv_cmd_encode(buf, size, command, resp_size);

	if (ret < 0)
		return -ret;
	n = write(c->cmd_fd, buf, size);
	if (n == (ssize_t)size)
		return 0;
	return n < 0 ? errno : EIO;
}

/* Counts a chain's WRs and SGEs, refusing one that cannot be encoded:
 * 0, or a positive errno with *bad the WR at fault. */
#define COUNT_CHAIN(wr, nwr, nsge, wqe, bad)				\
	({								\
		size_t room_ = LV_CMD_MAX_BYTES - sizeof(struct ib_uverbs_cmd_hdr) - \
			       sizeof(struct ib_uverbs_post_send);	\
		size_t used_ = 0;					\
		int ret_ = 0;						\
		(nwr) = (nsge) = 0;					\
		for (__typeof__(wr) i_ = (wr); i_; i_ = i_->next) {	\
			size_t sz_ = (wqe) + (size_t)i_->num_sge *	\
				     sizeof(struct ib_uverbs_sge);	\
			if (i_->num_sge < 0 || sz_ > room_ - used_) {	\
				*(bad) = i_;				\
				ret_ = EINVAL;				\
				break;					\
			}						\
			used_ += sz_;					\
			(nwr)++;					\
			(nsge) += (uint32_t)i_->num_sge;		\
		}							\
		ret_;							\
	})

static void put_sges(struct ib_uverbs_sge *s, const struct ibv_sge *sg,
		     int n)
{
	for (int k = 0; k < n; k++) {
		s[k].addr = sg[k].addr;
		s[k].length = sg[k].length;
		s[k].lkey = sg[k].lkey;
	}
}

/* The WR's remote part, by QP type and opcode. */
static int put_send_wr(struct ib_uverbs_send_wr *n, const struct ibv_qp *qp,
		       const struct ibv_send_wr *w)
{
	n->wr_id = w->wr_id;
	n->num_sge = (uint32_t)w->num_sge;
	n->opcode = (uint32_t)w->opcode;
	n->send_flags = w->send_flags;
	n->ex.imm_data = w->imm_data;	/* shares a union with inv. rkey */
	if (qp->qp_type == IBV_QPT_UD) {
		if (!w->wr.ud.ah)
			return EINVAL;
		n->wr.ud.ah = w->wr.ud.ah->handle;
		n->wr.ud.remote_qpn = w->wr.ud.remote_qpn;
		n->wr.ud.remote_qkey = w->wr.ud.remote_qkey;
		return 0;
	}
	switch (w->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		n->wr.rdma.remote_addr = w->wr.rdma.remote_addr;
		n->wr.rdma.rkey = w->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		n->wr.atomic.remote_addr = w->wr.atomic.remote_addr;
		n->wr.atomic.compare_add = w->wr.atomic.compare_add;
		n->wr.atomic.swap = w->wr.atomic.swap;
		n->wr.atomic.rkey = w->wr.atomic.rkey;
		break;
	default:
		break;
	}
	return 0;
}

/* The WR the kernel named (1-based), within the chain sent; the first
 * when it named none but failed, or a number past the chain. */
#define BAD_WR(wr, idx, nwr)						\
	({								\
		__typeof__(wr) b_ = (wr);				\
		if ((idx) && (idx) <= (nwr))				\
			for (uint32_t k_ = 1; k_ < (idx); k_++)		\
				b_ = b_->next;				\
		b_;							\
	})

LV_EXPORT int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr);
LV_EXPORT int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	struct ib_uverbs_post_send_resp r = { 0 };
	struct ib_uverbs_post_send *core;
	struct ib_uverbs_send_wr *n;
	struct ib_uverbs_sge *s;
	uint32_t nwr, nsge;
	size_t size;
	char *buf;
	int ret;

	ret = COUNT_CHAIN(wr, nwr, nsge, sizeof(*n), bad_wr);
	if (ret)
		return ret;
	size = sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*core) +
	       nwr * sizeof(*n) + nsge * sizeof(*s);
	buf = calloc(1, size);
	if (!buf) {
		*bad_wr = wr;
		return ENOMEM;
	}
	core = (struct ib_uverbs_post_send *)(buf + sizeof(struct ib_uverbs_cmd_hdr));
	core->response = U64(&r);
	core->qp_handle = qp->handle;
	core->wr_count = nwr;
	core->sge_count = nsge;
	core->wqe_size = sizeof(*n);
	n = (struct ib_uverbs_send_wr *)(core + 1);
	s = (struct ib_uverbs_sge *)(n + nwr);
	for (struct ibv_send_wr *w = wr; w; w = w->next, n++) {
		ret = put_send_wr(n, qp, w);
		if (ret) {
			*bad_wr = w;
			goto out;
		}
		put_sges(s, w->sg_list, w->num_sge);
		s += w->num_sge;
	}
	ret = run(qp->context, buf, size, IB_USER_VERBS_CMD_POST_SEND,
		  sizeof(r));
	if (r.bad_wr || ret)
		*bad_wr = BAD_WR(wr, r.bad_wr, nwr);
out:
	free(buf);
	return ret;
}

/* post_recv and post_srq_recv: one layout, the QP's or SRQ's handle. */
static int post_recv(struct ibv_context *c, uint32_t command,
		     uint32_t handle, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct ib_uverbs_post_recv_resp r = { 0 };
	struct ib_uverbs_post_recv *core;
	struct ib_uverbs_recv_wr *n;
	struct ib_uverbs_sge *s;
	uint32_t nwr, nsge;
	size_t size;
	char *buf;
	int ret;

	_Static_assert(sizeof(struct ib_uverbs_post_recv) ==
		       sizeof(struct ib_uverbs_post_srq_recv), "recv layout");
	_Static_assert(offsetof(struct ib_uverbs_post_recv, qp_handle) ==
		       offsetof(struct ib_uverbs_post_srq_recv, srq_handle),
		       "recv handle");
	ret = COUNT_CHAIN(wr, nwr, nsge, sizeof(*n), bad_wr);
	if (ret)
		return ret;
	size = sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*core) +
	       nwr * sizeof(*n) + nsge * sizeof(*s);
	buf = calloc(1, size);
	if (!buf) {
		*bad_wr = wr;
		return ENOMEM;
	}
	core = (struct ib_uverbs_post_recv *)(buf + sizeof(struct ib_uverbs_cmd_hdr));
	core->response = U64(&r);
	core->qp_handle = handle;
	core->wr_count = nwr;
	core->sge_count = nsge;
	core->wqe_size = sizeof(*n);
	n = (struct ib_uverbs_recv_wr *)(core + 1);
	s = (struct ib_uverbs_sge *)(n + nwr);
	for (struct ibv_recv_wr *w = wr; w; w = w->next, n++) {
		n->wr_id = w->wr_id;
		n->num_sge = (uint32_t)w->num_sge;
		put_sges(s, w->sg_list, w->num_sge);
		s += w->num_sge;
	}
	ret = run(c, buf, size, command, sizeof(r));
	if (r.bad_wr || ret)
		*bad_wr = BAD_WR(wr, r.bad_wr, nwr);
	free(buf);
	return ret;
}

LV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr);
LV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	return post_recv(qp->context, IB_USER_VERBS_CMD_POST_RECV, qp->handle,
			 wr, bad_wr);
}

LV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq,
				    struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad_wr);
LV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq,
				    struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad_wr)
{
	return post_recv(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV,
			 srq->handle, wr, bad_wr);
}

/* Most completions one poll command can carry. */
#define LV_POLL_MAX ((LV_CMD_MAX_BYTES - sizeof(struct ib_uverbs_poll_cq_resp)) / \
		     sizeof(struct ib_uverbs_wc))

/* The number of completions, or -1 (errno set), as rdma-core's. */
LV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
LV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	struct ib_uverbs_poll_cq_resp *r;
	struct ib_uverbs_poll_cq core = { .cq_handle = cq->handle };
	size_t rsize;
	uint32_t n;
	int ret;

	if (ne < 0) {
		errno = EINVAL;
		return -1;
	}
	if (ne == 0)
		return 0;
	if ((size_t)ne > LV_POLL_MAX)
		ne = (int)LV_POLL_MAX;
	rsize = sizeof(*r) + (size_t)ne * sizeof(r->wc[0]);
	r = calloc(1, rsize);
	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	core.response = U64(r);
	core.ne = (uint32_t)ne;
	ret = lv_cmd_write(cq->context, IB_USER_VERBS_CMD_POLL_CQ, NULL, 0,
			   &core, sizeof(core), r, rsize);
	if (ret) {
		free(r);
		errno = ret;
		return -1;
	}
	n = r->count < (uint32_t)ne ? r->count : (uint32_t)ne;
	for (uint32_t i = 0; i < n; i++) {
		const struct ib_uverbs_wc *k = &r->wc[i];

		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = k->wr_id;
		wc[i].status = (enum ibv_wc_status)k->status;
		wc[i].opcode = (enum ibv_wc_opcode)k->opcode;
		wc[i].vendor_err = k->vendor_err;
		wc[i].byte_len = k->byte_len;
		wc[i].imm_data = k->ex.imm_data;
		wc[i].qp_num = k->qp_num;
		wc[i].src_qp = k->src_qp;
		wc[i].wc_flags = k->wc_flags;
		wc[i].pkey_index = k->pkey_index;
		wc[i].slid = k->slid;
		wc[i].sl = k->sl;
		wc[i].dlid_path_bits = k->dlid_path_bits;
	}
	free(r);
	return (int)n;
}
