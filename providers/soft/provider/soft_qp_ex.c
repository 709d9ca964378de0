/* SPDX-License-Identifier: MIT */
/*
 * The ibv_wr_* builders of an extended QP (ibv_create_qp_ex with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS).  wr_start takes the SQ lock; each
 * operation starts a new entry in the next free slot and the setters fill
 * it; wr_complete publishes the whole batch with one store of prod (and a
 * doorbell if the engine sleeps), wr_abort drops it.  Errors made while
 * building are remembered and returned by wr_complete, which then posts
 * nothing (ibv_wr_post(3)).
 */
#include <errno.h>
#include <string.h>

#include "common/pv_usdt.h"
#include "providers/soft/provider/soft_provider.h"

#define SOFT_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE |			\
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		       IBV_QP_EX_WITH_RDMA_READ |			\
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |		\
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |		\
		       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | \
		       IBV_QP_EX_WITH_SEND_WITH_INV)

/* IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op> for the operations we have. */
int soft_qp_ex_check_ops(enum ibv_qp_type t, uint64_t send_ops_flags)
{
	if (send_ops_flags & ~(uint64_t)SOFT_SEND_OPS)
		return -EOPNOTSUPP;
	for (int op = 0; op < 64; op++)
		if ((send_ops_flags & (1ull << op)) &&
		    !soft_opcode_ok(t, (enum ibv_wr_opcode)op))
			return -EOPNOTSUPP;
	return 0;
}

static struct pv_qp *pqp(struct ibv_qp_ex *x)
{
	return (struct pv_qp *)x;
}

static struct soft_qp_dp *dp(struct ibv_qp_ex *x)
{
	return pqp(x)->priv;
}

static void fail(struct soft_qp_dp *d, int err)
{
	if (!d->wr_err)
		d->wr_err = err;
	d->wr_cur = NULL;
}

static void wr_start(struct ibv_qp_ex *x)
{
	struct soft_qp_dp *d = dp(x);

	pthread_spin_lock(&d->sq_lock);
	d->wr_prod = d->sq.head;
	d->wr_cons = __atomic_load_n(&d->sq.hdr->cons, __ATOMIC_ACQUIRE);
	d->wr_cur = NULL;
	d->wr_err = 0;
}

/* A new entry for opcode in the next slot, or NULL (error recorded). */
static struct pv_send_wqe *begin(struct ibv_qp_ex *x, enum ibv_wr_opcode op)
{
	struct soft_qp_dp *d = dp(x);
	struct pv_send_wqe *w;

	if (d->wr_err)
		return NULL;
	if (!soft_opcode_ok(x->qp_base.qp_type, op)) {
		fail(d, EINVAL);
		return NULL;
	}
	/* cons is reloaded only when the ring looks full, as in
	 * ibv_post_send: not a load of the engine's cache line per WR. */
	if (!soft_ring_space(d->sq.num_entries, d->wr_prod, d->wr_cons)) {
		struct soft_ring pending = d->sq;

		pending.head = d->wr_prod;
		if (!soft_ring_wait_space(&pending, &d->wr_cons)) {
			fail(d, ENOMEM);
			return NULL;
		}
	}
	w = soft_ring_slot(&d->sq, d->wr_prod++);
	memset(w, 0, sizeof(*w));
	w->wr_id = x->wr_id;
	w->opcode = op;
	w->send_flags = x->wr_flags & ~(uint32_t)IBV_SEND_INLINE;
	d->wr_cur = w;
	return w;
}

static void wr_send(struct ibv_qp_ex *x)
{
	begin(x, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct pv_send_wqe *w = begin(x, IBV_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data = imm;
}

/* Memory windows: the WQE fields of pv-soft-ring-abi.h, as soft_wqe.c
 * encodes them for ibv_post_send. */
static void wr_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct pv_send_wqe *w = begin(x, IBV_WR_SEND_WITH_INV);

	if (w)
		w->imm_data = rkey;
}

static void wr_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct pv_send_wqe *w = begin(x, IBV_WR_LOCAL_INV);

	if (w)
		w->imm_data = rkey;
	dp(x)->wr_cur = NULL;	/* no SGEs follow */
}

static void wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *b)
{
	struct pv_send_wqe *w;

	if (!mw || !b) {
		fail(dp(x), EINVAL);
		return;
	}
	w = begin(x, IBV_WR_BIND_MW);
	if (!w)
		return;
	w->ah_handle = mw->handle;
	w->rkey = rkey;
	w->remote_addr = b->addr;
	w->compare_add = b->length;
	w->swap = b->mw_access_flags;
	w->remote_qkey = b->mr ? b->mr->lkey : 0;
	dp(x)->wr_cur = NULL;	/* no SGEs follow */
}

static void rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode op, uint32_t rkey,
		 uint64_t addr, __be32 imm)
{
	struct pv_send_wqe *w = begin(x, op);

	if (!w)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	w->imm_data = imm;
}

static void wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma(x, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey,
			      uint64_t addr, __be32 imm)
{
	rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma(x, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey,
			      uint64_t addr, uint64_t compare, uint64_t swap)
{
	struct pv_send_wqe *w = begin(x, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (!w)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	w->compare_add = compare;
	w->swap = swap;
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey,
				uint64_t addr, uint64_t add)
{
	struct pv_send_wqe *w = begin(x, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (!w)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	w->compare_add = add;
}

static void wr_set_sge_list(struct ibv_qp_ex *x, size_t n,
			    const struct ibv_sge *sg)
{
	struct soft_qp_dp *d = dp(x);
	struct pv_send_wqe *w = d->wr_cur;
	struct pv_wqe_sge *out;

	if (!w) {
		fail(d, EINVAL);
		return;
	}
	/* The SQ entry was checked at map time to hold max_send_sge SGEs
	 * and max_inline bytes. */
	if (n > d->max_send_sge) {
		fail(d, EINVAL);
		return;
	}
	out = soft_wqe_sges(w, sizeof(*w));
	for (size_t i = 0; i < n; i++) {
		out[i].addr = sg[i].addr;
		out[i].length = sg[i].length;
		out[i].lkey = sg[i].lkey;
	}
	w->num_sge = (uint32_t)n;
}

static void wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge s = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(x, 1, &s);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
				    const struct ibv_data_buf *buf)
{
	struct soft_qp_dp *d = dp(x);
	struct pv_send_wqe *w = d->wr_cur;

	if (!w || w->opcode == IBV_WR_RDMA_READ ||
	    w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		fail(d, EINVAL);
		return;
	}
	if (soft_wqe_inline(w, d->max_inline, n, buf) < 0)
		fail(d, EINVAL);
}

static void wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t len)
{
	struct ibv_data_buf b = { .addr = addr, .length = len };

	wr_set_inline_data_list(x, 1, &b);
}

static void wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct soft_qp_dp *d = dp(x);
	struct pv_send_wqe *w = d->wr_cur;

	if (!w || !ah || x->qp_base.qp_type != IBV_QPT_UD) {
		fail(d, EINVAL);
		return;
	}
	w->ah_handle = ah->handle;
	w->remote_qpn = remote_qpn;
	w->remote_qkey = remote_qkey;
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t remote_srqn)
{
	struct soft_qp_dp *d = dp(x);
	struct pv_send_wqe *w = d->wr_cur;

	if (!w || x->qp_base.qp_type != IBV_QPT_XRC_SEND) {
		fail(d, EINVAL);
		return;
	}
	w->remote_qpn = remote_srqn & 0xffffff;
}

static int wr_complete(struct ibv_qp_ex *x)
{
	struct soft_qp_dp *d = dp(x);
	struct soft_ctx *sc = soft_ctx_of(pv_ctx(x->qp_base.context));
	int err = d->wr_err;
	enum ibv_qp_state st = x->qp_base.state;

	if (!err && (st == IBV_QPS_RESET || st == IBV_QPS_INIT ||
		     st == IBV_QPS_RTR))
		err = EINVAL;
	if (!err && atomic_load_explicit(&sc->dead, memory_order_relaxed))
		err = EIO;
	PV_USDT(podverbs, post_send, x->qp_base.qp_num,
		err ? 0 : d->wr_prod - d->sq.head, err);
	if (!err && d->wr_prod != d->sq.head) {
		d->sq.head = d->wr_prod;
		__atomic_store_n(&d->sq.hdr->prod, d->sq.head,
				 __ATOMIC_RELEASE);
		soft_doorbell(sc);
	}
	d->wr_cur = NULL;
	pthread_spin_unlock(&d->sq_lock);
	return err;
}

static void wr_abort(struct ibv_qp_ex *x)
{
	struct soft_qp_dp *d = dp(x);

	d->wr_cur = NULL;
	pthread_spin_unlock(&d->sq_lock);
}

/* Operations refused at create time; set so a stray call fails the
 * batch instead of jumping through NULL. */
static void wr_unsupported_tso(struct ibv_qp_ex *x, void *hdr, uint16_t sz,
			       uint16_t mss)
{
	fail(dp(x), EOPNOTSUPP);
}

static void wr_unsupported_aw(struct ibv_qp_ex *x, uint32_t rkey,
			      uint64_t addr, const void *data)
{
	fail(dp(x), EOPNOTSUPP);
}

void soft_qp_ex_install(struct pv_qp *qp)
{
	struct ibv_qp_ex *x = &qp->ex;

	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_local_inv = wr_local_inv;
	x->wr_send_inv = wr_send_inv;
	x->wr_bind_mw = wr_bind_mw;
	x->wr_send_tso = wr_unsupported_tso;
	x->wr_atomic_write = wr_unsupported_aw;
}
