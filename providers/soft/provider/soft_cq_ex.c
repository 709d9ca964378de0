/* SPDX-License-Identifier: MIT */
/*
 * The extended CQ (ibv_create_cq_ex(3)): start_poll / next_poll /
 * end_poll walk the CQ ring and the read_* accessors answer from a copy
 * of the current CQE.  Each CQE's slot is released to the engine as soon
 * as it is copied, so a long walk never holds the engine back.
 *
 * Locking: start_poll takes the CQ's lock and end_poll drops it; a
 * start_poll that finds nothing (ENOENT) drops it itself, since the
 * caller must not call end_poll then.  IBV_CREATE_CQ_ATTR_SINGLE_THREADED
 * skips the lock.
 *
 * Engine death: an application may poll only this way, so an empty
 * start_poll does what an empty ibv_poll_cq does (soft_poll.c): every
 * 2^SOFT_CQ_EX_LIVENESS_SHIFT of them check the engine is still there,
 * and once it is not, the outstanding WRs complete as flushed
 * (soft_death.c) and this start_poll looks again.  Only empty polls pay,
 * one relaxed atomic add; the lock is dropped first (the flush takes the
 * CQ's lock after the queues').
 */
#include <errno.h>

#include "providers/soft/provider/soft_provider.h"

/* Empty start_polls between two checks of the engine connection (2^n),
 * as for ibv_poll_cq. */
#define SOFT_CQ_EX_LIVENESS_SHIFT 12

#define SOFT_WC_EX_SUPPORTED (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			      IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			      IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			      IBV_WC_EX_WITH_DLID_PATH_BITS)

int soft_cq_ex_check_flags(uint64_t wc_flags)
{
	return (wc_flags & ~(uint64_t)SOFT_WC_EX_SUPPORTED) ? -EOPNOTSUPP : 0;
}

static struct soft_cq_dp *dp_of(struct ibv_cq_ex *x)
{
	return ((struct pv_cq *)x)->priv;
}

/* Copies the next CQE into d->cur and releases its slot; false if none. */
static bool take_one(struct ibv_cq_ex *x, struct soft_cq_dp *d)
{
	uint32_t prod = __atomic_load_n(&d->ring.hdr->prod, __ATOMIC_ACQUIRE);

	if (prod == d->ring.head)
		return false;
	d->cur = *(const struct pv_cqe *)soft_ring_slot(&d->ring,
							d->ring.head);
	d->ring.head++;
	__atomic_store_n(&d->ring.hdr->cons, d->ring.head, __ATOMIC_RELEASE);
	x->wr_id = d->cur.wr_id;
	x->status = (enum ibv_wc_status)d->cur.status;
	return true;
}

/* Locks d and takes a CQE (returning with the lock held), or unlocks. */
static bool lock_and_take(struct ibv_cq_ex *x, struct soft_cq_dp *d)
{
	if (!d->single_threaded)
		pthread_spin_lock(&d->lock);
	if (take_one(x, d))
		return true;
	if (!d->single_threaded)
		pthread_spin_unlock(&d->lock);
	return false;
}

/* Nothing to poll: true if the engine is dead and its flush (done now
 * or before) may have put CQEs in the ring. */
static bool empty_poll_dead(struct ibv_cq_ex *x)
{
	struct soft_ctx *sc = soft_ctx_of(pv_ctx(x->context));

	if (soft_ctx_maybe_check_alive(sc, SOFT_CQ_EX_LIVENESS_SHIFT))
		return false;
	soft_death_flush(sc);
	return true;
}

static int cq_start_poll(struct ibv_cq_ex *x, struct ibv_poll_cq_attr *attr)
{
	struct soft_cq_dp *d = dp_of(x);

	if (attr && attr->comp_mask)
		return EINVAL;
	if (lock_and_take(x, d))
		return 0;
	if (empty_poll_dead(x) && lock_and_take(x, d))
		return 0;
	return ENOENT;
}

static int cq_next_poll(struct ibv_cq_ex *x)
{
	return take_one(x, dp_of(x)) ? 0 : ENOENT;
}

static void cq_end_poll(struct ibv_cq_ex *x)
{
	struct soft_cq_dp *d = dp_of(x);

	if (!d->single_threaded)
		pthread_spin_unlock(&d->lock);
}

static enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *x)
{
	return (enum ibv_wc_opcode)dp_of(x)->cur.opcode;
}

static uint32_t read_vendor_err(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.vendor_err;
}

static uint32_t read_byte_len(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.byte_len;
}

static __be32 read_imm_data(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.imm_data;
}

static uint32_t read_qp_num(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.qp_num;
}

static uint32_t read_src_qp(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.src_qp;
}

static unsigned int read_wc_flags(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.wc_flags;
}

static uint32_t read_slid(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.slid;
}

static uint8_t read_sl(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.sl;
}

static uint8_t read_dlid_path_bits(struct ibv_cq_ex *x)
{
	return dp_of(x)->cur.dlid_path_bits;
}

void soft_cq_ex_install(struct pv_cq *cq)
{
	struct ibv_cq_ex *x = &cq->ex;

	x->start_poll = cq_start_poll;
	x->next_poll = cq_next_poll;
	x->end_poll = cq_end_poll;
	x->read_opcode = read_opcode;
	x->read_vendor_err = read_vendor_err;
	x->read_byte_len = read_byte_len;
	x->read_imm_data = read_imm_data;
	x->read_qp_num = read_qp_num;
	x->read_src_qp = read_src_qp;
	x->read_wc_flags = read_wc_flags;
	x->read_slid = read_slid;
	x->read_sl = read_sl;
	x->read_dlid_path_bits = read_dlid_path_bits;
}
