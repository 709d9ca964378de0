/* SPDX-License-Identifier: MIT */
/*
 * The engine's data path: shared-memory rings (pv-soft-ring-abi.h), the
 * requester that walks send queues, the responder that consumes receive
 * queues and touches remote memory, completions, errors, timers and the
 * spin/idle scheduler.  Split by stage, as Linux rxe is:
 *
 *   eng_dp_map.c    CTX/QP/CQ/SRQ_MAP: memfd rings, doorbell eventfd
 *   eng_dp_ring.c   ring geometry, counters and WQE validation (pure)
 *   eng_dp_check.c  byte-exact range and access checks, atomics (pure)
 *   eng_dp_grh.c    the 40-byte GRH of UD receives (pure)
 *   eng_dp_timer.c  RNR and transport timer values (pure)
 *   eng_dp_mem.c    MR lookup, memfd mapping, copies
 *   eng_dp_sge.c    SGE list ranges to checked segments, per chunk
 *   eng_dp_req.c    requester: one SQ WQE at a time, in chunks
 *   eng_dp_resp.c   responder: receives, writes, reads, atomics; answers
 *                   each request with an eng_dp_reply (eng_dp_reply.h)
 *   eng_resp_res.c  responder's saved READ/atomic resources, PSN
 *                   classifier (pure; for the wire's duplicates)
 *   eng_comp_sm.c   completer: state machine over replies and timers
 *                   (pure; eng_comp_sm.h)
 *   eng_dp_comp.c   CQEs, arming and events, overflow
 *   eng_dp_err.c    QP error transitions and flushing
 *   eng_dp_sched.c  which QPs have work; spin, then sleep
 *
 * The seam for packets (issue 10).  One request/response contract for
 * same-node and wire:
 *   requester  eng_dp_req.c builds one struct eng_dp_msg per chunk of
 *              at most ENG_DP_CHUNK bytes (UD and atomics: the whole
 *              message).  Same-node hands it to eng_dp_resp_deliver().
 *              The wire instead cuts it into path-MTU request packets
 *              (FIRST/MIDDLE/LAST/ONLY, one PSN each; a READ request one
 *              packet that reserves a PSN per response MTU), assigns
 *              PSNs from the QP's sq_psn and keeps the unacknowledged
 *              packets in a per-QP window next to dq->done, for go-back-N
 *              from the PSN an ACK/NAK names.
 *   responder  the wire's receive path rebuilds an eng_dp_msg from the
 *              packets (off/chunk from the PSN within the message),
 *              classifies the PSN first (eng_psn_classify(): expected
 *              -> eng_dp_resp_deliver(); duplicate -> re-ACK, or re-serve
 *              a READ / replay an atomic from eng_resp_res_find(), never
 *              executing twice; out of sequence -> NAK PSN_SEQ once per
 *              gap), saves each READ/atomic served (eng_resp_res_save_*)
 *              and encodes the eng_dp_reply it got as AETH / READ
 *              response packets (r->data, one PSN per MTU) /
 *              AtomicAckETH, coalescing ACKs.
 *   completer  each reply (same-node: at once; wire: decoded from the
 *              packets, matched to the head WQE by PSN) or timer expiry
 *              goes to eng_comp_run() (eng_comp_sm.h), whose terminal
 *              state the requester applies: MORE / DONE / RESEND / WAIT
 *              (dq->timer_kind, dq->timer_at) / ERROR.  On the wire the
 *              requester feeds ENG_COMP_EV_SENT after each send (arms the
 *              transport timer) and the reply when it arrives.
 *
 * Threading: everything runs on the engine's single loop thread, so the
 * only concurrency is with the applications across the shared rings
 * (acquire/release on the counters) and application memory (atomics use
 * __atomic builtins on mapped memory).  The engine keeps its own copy of
 * the counter it owns and never trusts the other one.
 */
#ifndef ENG_DP_H
#define ENG_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_resp_res.h"
#include "providers/soft/pv-soft-ring-abi.h"

/* A receive WQE as the engine uses it: copied once out of the ring, then
 * validated; the ring slot is never read again.  Bounds of a WQE's body:
 * eng_limits caps max_sge at ENG_SGE_MAX and max_inline at
 * ENG_INLINE_MAX, so a granted queue never needs more. */
struct eng_dp_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct pv_wqe_sge sge[ENG_SGE_MAX];
};

/* A send WQE likewise, with its SGE list or its inline bytes. */
struct eng_dp_swqe {
	struct pv_send_wqe w;
	union {
		struct pv_wqe_sge sge[ENG_SGE_MAX];
		uint8_t inl[ENG_INLINE_MAX];
	};
};

/* The engine's view of one ring. */
struct eng_ring {
	struct pv_ring_hdr *hdr;	/* NULL: not mapped */
	uint8_t *ents;
	uint32_t mask;			/* num_entries - 1 */
	uint32_t esz;			/* entry_size */
	uint32_t own;			/* the counter the engine produces:
					 * cons of SQ/RQ/SRQ, prod of a CQ */
};

/* One memfd the engine created, mapped in the engine. */
struct eng_dp_map {
	void *base;
	size_t size;
	int pending_fd;			/* not yet passed to the client, or -1 */
	struct eng_conn *owner;		/* charged for it (eng_quota.h) */
};

struct eng_dp_ctx {
	struct eng_pollable db;		/* doorbell eventfd */
	struct pv_ctx_page *page;
	struct eng_list link;		/* in eng_dp_sched.ctxs */
	struct eng_conn *conn;
};

struct eng_dp_cq {
	struct eng_dp_map map;
	struct eng_ring ring;
	bool error;			/* overflowed: no more CQEs */
};

struct eng_dp_srq {
	struct eng_dp_map map;
	struct eng_ring ring;
};

enum eng_dp_timer_kind {
	ENG_DP_TIMER_NONE = 0,
	ENG_DP_TIMER_RNR,		/* peer had no receive posted */
	ENG_DP_TIMER_RETRY,		/* peer unreachable (no ACK) */
};

struct eng_dp_qp {
	struct eng_qp *qp;
	struct eng_list link;		/* in eng_dp_sched.qps */
	struct eng_list rr;		/* in its conn's dp_qps or dp_idle */
	bool idle;			/* in dp_idle */
	struct eng_dp_map map;
	struct eng_ring sq, rq;		/* rq.hdr NULL on an SRQ */
	uint64_t timer_at;		/* CLOCK_MONOTONIC ns; 0 = none */
	uint8_t timer_kind;		/* enum eng_dp_timer_kind */
	uint32_t rnr_tries, retry_tries;
	uint32_t dest_dev_id;		/* cache of the GID lookup */
	bool flushed_rq_srq_event;	/* LAST_WQE_REACHED sent */
	/* Requester: the SQ head's WQE, copied once, and how far it got
	 * (a message moves in chunks of at most ENG_DP_CHUNK bytes). */
	bool busy;			/* cur holds a WQE in progress */
	uint64_t done, total;		/* bytes moved / message length */
	struct eng_dp_swqe cur;
	/* Responder: the receive WQE a SEND in progress scatters into,
	 * taken off the RQ/SRQ at its first chunk, completed at its last. */
	bool rx_active;
	struct eng_dp_rwqe rx;
	uint32_t msn;			/* messages completed here (AETH) */
	/* Responder, for the wire (same-node never duplicates): READs and
	 * atomics served, and the next PSN expected.  Set at RTR from
	 * max_dest_rd_atomic and rq_psn (eng_dp_qp_modified()). */
	struct eng_resp_res res;
	struct eng_psn_rx rpsn;
	/* RC/UC on the wire: window, cursors (eng_wire_rc.h); NULL until
	 * the QP's first packet. */
	struct eng_wire_rc *wrc;
	/* The wire responder's hold deadline (eng_wire_rc.h), 0 = none:
	 * the scheduler wakes for it as for timer_at. */
	uint64_t resp_timer_at;
};

struct eng_dp_mr {
	void *map;			/* engine mapping of the memfd, or NULL */
	size_t map_len;
	uint8_t *base;			/* byte of iova in the engine */
};

struct eng_dp_sched {
	struct eng_list qps;		/* struct eng_dp_qp with rings */
	struct eng_list conns;		/* struct eng_conn with any, in
					 * round-robin order (dp_link) */
	uint32_t nconns;		/* of them */
	uint64_t pass_seq;
	struct eng_list ctxs;		/* struct eng_dp_ctx */
	uint64_t last_work_ns;
	bool idle_set;			/* engine_idle stored in the pages */
	uint64_t nospin_until_ns;	/* spinning suspended (contention) */
	uint64_t backoff_ns;		/* current suspension length */
};

/* ---- eng_dp_ring.c (pure) ---- */
uint32_t eng_dp_pow2(uint32_t v);
/* Geometry of the rings of a QP, CQ or SRQ from granted caps. */
void eng_dp_sq_geom(const struct pv_ipc_qp_cap *cap, uint32_t *num,
		    uint32_t *esz);
void eng_dp_rq_geom(uint32_t max_wr, uint32_t max_sge, uint32_t *num,
		    uint32_t *esz);
uint32_t eng_dp_cq_entries(uint32_t cqe);
/* Bytes a ring of num entries of esz bytes takes with its header,
 * rounded to a cache line. */
size_t eng_dp_ring_bytes(uint32_t num, uint32_t esz);
/* Initialises the header at mem and ring r over it. */
void eng_dp_ring_init(struct eng_ring *r, void *mem, uint32_t num,
		      uint32_t esz);
/* Consumer side (SQ/RQ/SRQ): entries published and not consumed, or
 * -EPROTO when the producer's counter is impossible. */
int eng_dp_ring_avail(const struct eng_ring *r);
void *eng_dp_ring_entry(const struct eng_ring *r, uint32_t counter);
/* Marks one entry consumed (stores cons with release). */
void eng_dp_ring_consume(struct eng_ring *r);
/* Producer side (CQ): free slots, or -EPROTO when cons is impossible. */
int eng_dp_ring_space(const struct eng_ring *r);
void eng_dp_ring_produce(struct eng_ring *r);
/* A send WQE is well-formed for this QP (opcode for the type, counts
 * within caps and the entry).  0 or -EINVAL. */
int eng_dp_send_wqe_check(const struct pv_send_wqe *w, uint32_t qp_type,
			  const struct pv_ipc_qp_cap *cap, uint32_t esz);
int eng_dp_recv_wqe_check(const struct pv_recv_wqe *w, uint32_t max_sge,
			  uint32_t esz);
/* Reads n bytes of client-writable memory exactly once into dst (the
 * compiler may not re-read src in place of dst afterwards). */
void eng_dp_shm_read(void *dst, const void *src, size_t n);
/* Copies the WQE at the consumer's position of r into engine memory and
 * validates the copy: 0, or -EINVAL (malformed: the QP is fatal). */
int eng_dp_recv_wqe_fetch(const struct eng_ring *r, uint32_t max_sge,
			  struct eng_dp_rwqe *out);
int eng_dp_send_wqe_fetch(const struct eng_ring *r, uint32_t qp_type,
			  const struct pv_ipc_qp_cap *cap,
			  struct eng_dp_swqe *out);

/* ---- eng_dp_check.c (pure) ---- */
/* [va, va+len) lies inside [start, start+mr_len); overflow-safe. */
bool eng_dp_range_ok(uint64_t start, uint64_t mr_len, uint64_t va,
		     uint64_t len);
/* Remote rights an opcode needs on the MR and the responder QP. */
uint32_t eng_dp_remote_access_for(uint32_t wr_opcode);
/* Applies an atomic to *target semantically (used on bounce copies);
 * returns the original value. */
uint64_t eng_dp_atomic_apply(uint32_t wr_opcode, uint64_t *target,
			     uint64_t compare_add, uint64_t swap);
/* The IBV_WC_* opcode of a send WQE's completion. */
uint32_t eng_dp_wc_opcode(uint32_t wr_opcode);

/* ---- eng_dp_grh.c (pure) ---- */
/* Writes the ENG_DP_GRH_BYTES (IBA 11.4.1.2: 40) a UD receive buffer
 * starts with: an IPv6 header, or for IPv4-mapped GIDs 20 zero bytes then
 * an IPv4 header. */
#define ENG_DP_GRH_BYTES	40
void eng_dp_grh_build(uint8_t out[ENG_DP_GRH_BYTES], const uint8_t sgid[16],
		      const uint8_t dgid[16], uint32_t payload_len,
		      uint8_t traffic_class, uint32_t flow_label,
		      uint8_t hop_limit);
/* wc.sl of a UD receive on RoCEv2: the received packet's type, as
 * Mellanox RoCE NICs report it (rdma-core mlx5 takes wc.sl from the CQE,
 * whose field holds bit 3 "has a UDP header" and bits 2:0 the L3 header:
 * 1 IPv6, 2 IPv4).  UCX 1.13 (src/uct/ib/ud/base/ud_iface.h) reads
 * (wc.sl & 7) == 2 as "IPv4 header at byte 20 of the GRH area", anything
 * else as IPv6, and drops the packet when the GID it then finds is not
 * its own: always 0 made it read an IPv4 header as IPv6. */
#define ENG_DP_WC_SL_ROCE_UDP	0x8
#define ENG_DP_WC_SL_IPV6	0x1
#define ENG_DP_WC_SL_IPV4	0x2
uint8_t eng_dp_grh_wc_sl(const uint8_t sgid[16], const uint8_t dgid[16]);

/* ---- eng_dp_timer.c (pure) ---- */
/* IBA 9.7.5.2.8 table: nanoseconds of an encoded min_rnr_timer. */
uint64_t eng_dp_rnr_ns(uint8_t code);
/* Local ACK timeout 4.096 us * 2^timeout (0: infinite, returns 0). */
uint64_t eng_dp_ack_timeout_ns(uint8_t timeout);
uint64_t eng_dp_now_ns(void);

/* ---- eng_dp_mem.c ---- */
/* A checked piece of memory mapped in the engine. */
struct eng_seg {
	uint8_t *ptr;
	uint32_t len;
};

/* MR by key on dev, owned by pd, covering [va, va+len) with access. */
struct eng_mr *eng_dp_mr_find(struct eng_dev *d, uint32_t key,
			      const struct eng_pd *pd, uint64_t va,
			      uint64_t len, uint32_t access);
void eng_dp_mr_seg(const struct eng_mr *mr, uint64_t va, uint32_t len,
		   struct eng_seg *out);
/* Copies len bytes from the src list to the dst list (both already
 * checked to hold len bytes).  0, or -EOVERFLOW on a caller bug. */
int eng_dp_copy(const struct eng_seg *dst, uint32_t ndst,
		const struct eng_seg *src, uint32_t nsrc, uint32_t len);
/* IBA 9.4.5: atomics work on 64 bits, at an address aligned to them. */
#define ENG_DP_ATOMIC_BYTES	8

/* 8-byte atomic on a segment; returns 0 and *orig or -errno. */
int eng_dp_atomic(const struct eng_seg *s, uint32_t wr_opcode,
		  uint64_t compare_add, uint64_t swap, uint64_t *orig);
/* MR_REG hook: maps the backing memfd; -EOPNOTSUPP without one. */
int eng_dp_mr_attach(struct eng_req *r, struct eng_mr *mr);
/* The same with the backing b (NULL: none) that came with r: maps
 * mr->length bytes with mr->access's rights into mr->dp (MR_REREG maps
 * a new range into a scratch copy of the MR this way). */
int eng_dp_mr_attach_backing(struct eng_req *r, struct eng_mr *mr,
			     const struct pv_ipc_mr_backing *b);
void eng_dp_mr_detach(struct eng_mr *mr);

/* ---- eng_dp_map.c ---- */
int eng_op_ctx_map(struct eng_req *r);
int eng_op_qp_map(struct eng_req *r);
int eng_op_cq_map(struct eng_req *r);
int eng_op_srq_map(struct eng_req *r);
void eng_dp_ctx_free(struct eng *e, struct eng_conn *c);
void eng_dp_qp_free(struct eng *e, struct eng_qp *qp);
/* qp passes to connection to (eng_qp_hand_over): sets qp->o.conn and
 * moves its rings' charges and its place in the schedule along. */
void eng_dp_qp_move(struct eng *e, struct eng_qp *qp, struct eng_conn *to);
void eng_dp_cq_free(struct eng_cq *cq);
void eng_dp_srq_free(struct eng_srq *srq);
/* IBV_SRQ_MAX_WR: a larger ring when max_wr outgrows it, the posted WQEs
 * kept in order (eng_dp_map.c); 0 or -errno with the SRQ unchanged. */
int eng_dp_srq_resize(struct eng_srq *srq, uint32_t max_wr);
/* CQ_RESIZE hook: a fresh ring holding the unpolled CQEs. */
int eng_dp_cq_resize(struct eng_cq *cq, uint32_t cqe);
void eng_dp_map_release(struct eng_dp_map *m);

/* ---- eng_dp_comp.c ---- */
/* Writes one CQE; solicited marks a received solicited message.  Returns
 * false when the CQ overflowed (the CQE is lost, the CQ in error). */
bool eng_dp_cqe_push(struct eng *e, struct eng_cq *cq,
		     const struct pv_cqe *cqe, bool solicited);
/* CQ_REQ_NOTIFY through the IPC: stores the arm word. */
void eng_dp_cq_arm(struct eng_cq *cq, bool solicited_only);

/* ---- eng_dp_err.c ---- */
/* Moves qp to ERR (if not already), flushing what is outstanding. */
void eng_dp_qp_error(struct eng *e, struct eng_qp *qp);
/* Flushes WQEs posted since (QP in ERR). */
bool eng_dp_flush(struct eng *e, struct eng_qp *qp);
/* QP_MODIFY hook: the QP moved from old_state to qp->state. */
void eng_dp_qp_modified(struct eng *e, struct eng_qp *qp,
			uint32_t old_state);
/* Malformed ring or WQE: QP_FATAL event and ERR. */
void eng_dp_qp_fatal(struct eng *e, struct eng_qp *qp);

/* ---- eng_dp_resp.c ---- */
/* The unit of work the requester hands the responder: one chunk of a
 * message (all of it for UD and atomics).  The RoCE wire's MTU
 * segmentation cuts messages at the same seam. */
#define ENG_DP_CHUNK		(64u * 1024)

/* What the requester hands the responder: bytes [off, off + chunk) of a
 * message of len bytes; segs hold the chunk's bytes only. */
struct eng_dp_msg {
	struct eng_qp *src;
	uint32_t opcode;		/* enum ibv_wr_opcode */
	uint32_t send_flags;
	uint32_t imm_data;
	uint32_t len;
	uint32_t off, chunk;
	bool first, last;
	const struct eng_seg *segs;
	uint32_t nsegs;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add, swap;
	const uint8_t *sgid, *dgid;	/* UD: GRH contents */
	uint8_t traffic_class, hop_limit;
	uint32_t flow_label;
	/* From the wire (src NULL): the sender's QP number (DETH), the
	 * 40-byte GRH area as received (eng_wire_ud.c) and the SL the CQE
	 * reports. */
	uint32_t src_qpn;
	const uint8_t *grh;
	uint8_t sl;
	/* XRC: the XRC SRQ the message is for (XRCETH, IBA 19.2.5.2). */
	uint32_t xrc_srqn;
};

/* Runs one request at dst and returns its response in *r (the contract
 * is eng_dp_reply.h: ACK / RNR NAK / NAK code / READ response bytes /
 * atomic original).  It never writes the requester's memory; READ bytes
 * in r->data point into dst's MR mapping and are valid until the engine
 * does anything else (the requester's completer copies them at once). */
struct eng_dp_reply;
void eng_dp_resp_deliver(struct eng *e, struct eng_qp *dst,
			 const struct eng_dp_msg *m, struct eng_dp_reply *r);

/* ---- eng_dp_sge.c ---- */
/* Segments for bytes [off, off + len) of an SGE list (the engine's copy),
 * every MR looked up again (one may be gone since the last chunk).
 * Returns how many (at most max), -1 for a protection error, -2 when the
 * list holds fewer bytes. */
int eng_dp_sge_range(struct eng_dev *d, const struct eng_pd *pd,
		     const struct pv_wqe_sge *sge, uint32_t nsge,
		     uint32_t access, uint64_t off, uint64_t len,
		     struct eng_seg *out, uint32_t max);

/* ---- eng_dp_req.c ---- */
/* What one turn may still do (eng_dp_sched.c hands it out). */
struct eng_dp_budget {
	uint64_t bytes;
	uint32_t wqes;
};

/* Runs what qp's send queue holds within *b (charged for what it did);
 * true if anything happened or work is left. */
bool eng_dp_req_run(struct eng *e, struct eng_dp_qp *dq,
		    struct eng_dp_budget *b);
/* The live QP a requester's address names, or NULL. */
struct eng_qp *eng_dp_find_dest(struct eng *e, struct eng_dp_qp *dq,
				const uint8_t dgid[16], uint32_t qpn);

/* ---- eng_dp_sched.c ---- */
struct eng_dp_sched *eng_dp_sched_get(struct eng *e);
void eng_dp_sched_fini(struct eng *e);
/* A QP's rings were mapped / are going: it joins / leaves the passes. */
void eng_dp_sched_add(struct eng_dp_sched *s, struct eng_dp_qp *dq);
void eng_dp_sched_del(struct eng_dp_sched *s, struct eng_dp_qp *dq);
/* One pass over every ring; true if work was found. */
bool eng_dp_run(struct eng *e);
/* Before epoll_wait: ns to wait (0: poll, -1: forever). */
int64_t eng_dp_wait_ns(struct eng *e);
/* After epoll_wait returned. */
void eng_dp_woke(struct eng *e);
/* A packet for a QP came off the wire: as ring work, it keeps the loop's
 * bounded spin going (the application's answer to it is then seen by a
 * ring scan, not a doorbell and a wake-up). */
void eng_dp_wire_work(struct eng *e);

#endif /* ENG_DP_H */
