/* SPDX-License-Identifier: MIT */
/*
 * What a verbs value means to the engine, asked by name (pure: no I/O).
 * The values come from verbs.h; their numeric order means nothing (the
 * opcodes were numbered as they were added), so no file compares them
 * with < or >: it calls one of these (tests/abi/engine_values.sh checks).
 * An opcode none of them knows is false everywhere; the requester refuses
 * it before anything else looks (eng_wr_valid_for).
 */
#ifndef ENG_WR_H
#define ENG_WR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* SEND, SEND_WITH_IMM and SEND_WITH_INV: consume a receive WQE at the
 * responder. */
static inline bool eng_wr_is_send(uint32_t op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV;
}

/* Memory-window operations the requester runs itself (eng_mw.h): no
 * message leaves the QP. */
static inline bool eng_wr_is_local(uint32_t op)
{
	return op == IBV_WR_BIND_MW || op == IBV_WR_LOCAL_INV;
}

/* RDMA WRITE with or without immediate data. */
static inline bool eng_wr_is_write(uint32_t op)
{
	return op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static inline bool eng_wr_is_read(uint32_t op)
{
	return op == IBV_WR_RDMA_READ;
}

/* The two 8-byte atomics (IBA 9.4.5). */
static inline bool eng_wr_is_atomic(uint32_t op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* Carries immediate data to the responder's completion. */
static inline bool eng_wr_has_imm(uint32_t op)
{
	return op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* The requester's own buffers receive data (the read's response, the
 * atomic's original value), so its SGEs need IBV_ACCESS_LOCAL_WRITE. */
static inline bool eng_wr_needs_local_write(uint32_t op)
{
	return eng_wr_is_read(op) || eng_wr_is_atomic(op);
}

/* IBV_SEND_INLINE carries data out; reads and atomics bring it back. */
static inline bool eng_wr_may_inline(uint32_t op)
{
	return eng_wr_is_send(op) || eng_wr_is_write(op);
}

/* The opcodes each transport has (ibv_post_send(3)): SENDs on every QP
 * type the engine creates (RC, UC, UD), RDMA WRITE on RC and UC, reads
 * and atomics on RC only. */
static inline bool eng_wr_valid_for(uint32_t op, uint32_t qp_type)
{
	/* XRC_SEND carries RC's operations (IBA 19.2.5); XRC_RECV sends
	 * nothing. */
	if (qp_type == IBV_QPT_XRC_RECV)
		return false;
	if (qp_type == IBV_QPT_XRC_SEND)
		qp_type = IBV_QPT_RC;
	/* Windows and invalidation: connected QPs (type 2 windows are
	 * tied to one); send with invalidate is RC's (IBA 9.2, IETH). */
	if (op == IBV_WR_SEND_WITH_INV)
		return qp_type == IBV_QPT_RC;
	if (eng_wr_is_local(op))
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	if (eng_wr_is_send(op))
		return true;
	if (eng_wr_is_write(op))
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	if (eng_wr_is_read(op) || eng_wr_is_atomic(op))
		return qp_type == IBV_QPT_RC;
	return false;
}

/* Reliable connected transports: RC and XRC's two halves (acknowledged,
 * NAKed, retried as RC). */
static inline bool eng_qpt_reliable(uint32_t qp_type)
{
	return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_XRC_SEND ||
	       qp_type == IBV_QPT_XRC_RECV;
}

static inline bool eng_qpt_xrc(uint32_t qp_type)
{
	return qp_type == IBV_QPT_XRC_SEND || qp_type == IBV_QPT_XRC_RECV;
}

/* A value of enum ibv_qp_state a QP can be in or be asked to go to. */
static inline bool eng_qps_known(uint32_t state)
{
	switch (state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
		return true;
	}
	return false;
}

/* A QP takes incoming messages from RTR on (IBA 10.3.1): RTR, RTS, SQD
 * and SQE do; RESET, INIT and ERR drop them. */
static inline bool eng_qps_receives(uint32_t state)
{
	switch (state) {
	case IBV_QPS_RTR:
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
		return true;
	}
	return false;
}

#endif /* ENG_WR_H */
