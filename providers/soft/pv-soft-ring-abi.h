/* SPDX-License-Identifier: MIT */
/*
 * Data-path ABI of the soft device: the shared-memory rings between the
 * provider (in the application) and the podverbsd engine.
 *
 * Every ring lives in a memfd the engine creates and passes to the client
 * (SCM_RIGHTS on the reply of a *_MAP op, see pv-soft-abi.h).  A ring is
 * single-producer single-consumer:
 *   SQ, RQ, SRQ: the application produces work requests, the engine consumes;
 *   CQ:          the engine produces completions, the application consumes.
 * prod and cons are free-running 32-bit counters (index = counter & mask);
 * the producer writes the entry, then stores prod with release order; the
 * consumer loads prod with acquire order, reads, then stores cons with
 * release order.  The engine never trusts a counter: prod - cons larger
 * than the ring, or an entry with out-of-range fields, moves the QP to the
 * error state (and counts it) instead of being followed.
 *
 * Slot reuse: the engine stores cons past a work request (SQ, RQ, SRQ)
 * before it writes that request's completion, so an application that
 * reposts as soon as it polls a completion (perftest does, at exactly the
 * queue depth) always finds the slot free.  (The provider tolerates a
 * late store with a short grace wait before reporting ENOMEM.)
 *
 * Doorbells: each context has one eventfd and one shared page
 * (struct pv_ctx_page).  The engine sets engine_idle before it blocks; a
 * producer that finds engine_idle set after publishing prod writes the
 * eventfd.  While the engine is awake it rescans rings, so busy traffic
 * costs no system call per post.
 *
 * Completion events: ibv_req_notify_cq arms the CQ by storing
 * PV_CQ_ARM_NEXT or PV_CQ_ARM_SOLICITED in the CQ header's arm word (no
 * message to the engine); the engine, after writing a completion that
 * matches, exchanges it for PV_CQ_ARM_NONE and pushes a pv_ipc_cq_event on
 * the CQ's completion channel.
 */
#ifndef PV_SOFT_RING_ABI_H
#define PV_SOFT_RING_ABI_H

#include <stdint.h>

#define PV_RING_MAGIC		0x50565247u	/* "PVRG" */
#define PV_RING_VERSION		1
#define PV_CACHELINE		64

/* Ops (numbers continue pv_ipc_op; all take struct pv_ipc_handle except
 * CTX_MAP which takes no payload).  Replies: struct pv_ipc_map_resp plus
 * one fd (CTX_MAP: two fds, the context page memfd then the doorbell
 * eventfd). */
enum pv_ring_op {
	PV_OP_CTX_MAP		= 40,
	PV_OP_QP_MAP		= 41,	/* SQ ring then RQ ring in one memfd */
	PV_OP_CQ_MAP		= 42,
	PV_OP_SRQ_MAP		= 43,
};

/* Ring header, at the ring's offset in its memfd; entries follow at
 * entries_off (relative to the header).  Producer, consumer and arm words
 * sit on their own cache lines. */
struct pv_ring_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t entry_size;	/* bytes, power of two */
	uint32_t num_entries;	/* power of two */
	uint32_t entries_off;	/* from this header */
	uint32_t reserved0[11];
	_Alignas(PV_CACHELINE) uint32_t prod;
	uint32_t reserved1[15];
	_Alignas(PV_CACHELINE) uint32_t cons;
	uint32_t reserved2[15];
	_Alignas(PV_CACHELINE) uint32_t arm;	/* CQ only: enum pv_cq_arm */
	uint32_t overflow;	/* CQ only: set by the engine on overrun */
	uint32_t reserved3[14];
};
_Static_assert(sizeof(struct pv_ring_hdr) == 4 * PV_CACHELINE,
	       "pv_ring_hdr size");

enum pv_cq_arm {
	PV_CQ_ARM_NONE		= 0,
	PV_CQ_ARM_NEXT		= 1,
	PV_CQ_ARM_SOLICITED	= 2,
};

/* Reply of the *_MAP ops: where the rings are in the passed memfd. */
struct pv_ipc_map_resp {
	uint64_t map_size;	/* bytes to mmap (MAP_SHARED, offset 0) */
	uint32_t ring_off[2];	/* QP: [0] SQ, [1] RQ (0 when on an SRQ);
				 * CQ/SRQ: [0]; CTX: unused */
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct pv_ipc_map_resp) == 32, "pv_ipc_map_resp size");

/* The per-context shared page. */
struct pv_ctx_page {
	uint32_t magic;
	uint32_t version;
	uint32_t reserved0[14];
	_Alignas(PV_CACHELINE) uint32_t engine_idle;	/* engine writes */
	uint32_t reserved1[15];
};
_Static_assert(sizeof(struct pv_ctx_page) == 2 * PV_CACHELINE,
	       "pv_ctx_page size");

/* A scatter/gather element, as in struct ibv_sge. */
struct pv_wqe_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};
_Static_assert(sizeof(struct pv_wqe_sge) == 16, "pv_wqe_sge size");

/* Send queue entry.  Followed by num_sge pv_wqe_sge, or, with
 * IBV_SEND_INLINE, by inline_len bytes of data (the provider copies it at
 * post time, as the verbs contract requires).
 *
 * Memory-window operations carry no SGEs (num_sge 0):
 *   IBV_WR_BIND_MW: ah_handle = the window's handle, rkey = its new rkey,
 *     remote_addr = the bound range's start, compare_add = its length (0
 *     unbinds a type 1 window), swap = the access flags granted,
 *     remote_qkey = the lkey of the MR the window lies in.
 *   IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV: imm_data = the rkey to
 *     invalidate, in host order (ibv_send_wr.invalidate_rkey). */
struct pv_send_wqe {
	uint64_t wr_id;
	uint32_t opcode;	/* enum ibv_wr_opcode */
	uint32_t send_flags;	/* enum ibv_send_flags */
	uint32_t imm_data;	/* big-endian, as in ibv_send_wr */
	uint32_t num_sge;
	uint64_t remote_addr;	/* RDMA and atomic operations */
	uint32_t rkey;
	uint32_t inline_len;
	uint64_t compare_add;	/* atomics */
	uint64_t swap;
	uint32_t ah_handle;	/* UD */
	uint32_t remote_qpn;	/* UD; XRC_SEND: the remote XRC SRQ number */
	uint32_t remote_qkey;	/* UD */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_send_wqe) == 72, "pv_send_wqe size");

/* Receive queue (and SRQ) entry, followed by num_sge pv_wqe_sge. */
struct pv_recv_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_recv_wqe) == 16, "pv_recv_wqe size");

/* Completion queue entry: the fields of struct ibv_wc. */
struct pv_cqe {
	uint64_t wr_id;
	uint32_t status;	/* enum ibv_wc_status */
	uint32_t opcode;	/* enum ibv_wc_opcode */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;	/* big-endian; or the invalidated rkey */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;	/* enum ibv_wc_flags */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t  sl;
	uint8_t  dlid_path_bits;
	uint8_t  reserved0[2];
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct pv_cqe) == 64, "pv_cqe size");

/* How a registered region reaches the engine: MR_REG carries one fd, a
 * memfd backing the region's pages, mapped by the engine; the region
 * starts at byte fd_offset of it.  An MR_REG without one (has_fd 0) fails
 * with EOPNOTSUPP: the engine never reaches a client's memory by pid.
 * The engine seals the memfd with F_SEAL_SHRINK before mapping it (a
 * client shrinking it would fault the engine), so create it with
 * MFD_ALLOW_SEALING; a file the engine cannot seal fails with EOPNOTSUPP.
 * Every page of the range must have been written (SEEK_HOLE finds no
 * hole in it; fallocated pages still count as holes), so that they are
 * charged to the client's memory cgroup; otherwise EFAULT. */
struct pv_ipc_mr_backing {
	uint64_t fd_offset;
	uint32_t has_fd;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_mr_backing) == 16,
	       "pv_ipc_mr_backing size");

#endif /* PV_SOFT_RING_ABI_H */
