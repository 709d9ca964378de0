/* SPDX-License-Identifier: MIT */
/*
 * Private to the soft provider: the data path over the shared-memory
 * rings of providers/soft/pv-soft-ring-abi.h.
 *
 * Objects: every mapped QP, CQ and SRQ keeps a struct soft_ring per ring
 * (a view of the engine's header plus our cached geometry) in its ->priv.
 * Locking: one spinlock per SQ, RQ, SRQ and CQ, held while an entry is
 * produced or consumed (the rings are single-producer single-consumer, so
 * several application threads on one queue must take turns, as with
 * rdma-core's providers).  The engine is the other end and never locks.
 *
 * The pure parts (ring geometry and index math, WQE encoding and its
 * validation, CQE conversion, /proc/self/maps parsing and the sharing
 * decision) do no I/O and are unit-tested in tests/unit/soft_provider/.
 */
#ifndef SOFT_DP_H
#define SOFT_DP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "providers/soft/pv-soft-ring-abi.h"

/* One ring as this process sees it.  hdr points into a MAP_SHARED map. */
struct soft_ring {
	struct pv_ring_hdr *hdr;
	char *entries;
	uint32_t num_entries;		/* power of two */
	uint32_t mask;
	uint32_t entry_size;		/* power of two */
	uint32_t head;			/* our counter: prod (SQ/RQ) or cons (CQ) */
};

/* A mapping of one memfd (a QP's two rings, a CQ's or an SRQ's ring). */
struct soft_map {
	void *base;
	size_t size;
};

struct soft_qp_dp {
	bool hooked;			/* from the parent domain's alloc hook */
	struct soft_map map;
	struct soft_ring sq;
	struct soft_ring rq;		/* hdr NULL when the QP uses an SRQ */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	/* ibv_wr_* builder state, valid between wr_start and wr_complete. */
	uint32_t wr_prod;		/* next slot to fill */
	uint32_t wr_cons;		/* the engine's cons, last loaded */
	struct pv_send_wqe *wr_cur;	/* the WQE being built, or NULL */
	int wr_err;			/* first error of this batch */
};

struct soft_srq_dp {
	struct soft_map map;
	struct soft_ring ring;
	pthread_spinlock_t lock;
	uint32_t max_sge;
	bool hooked;			/* from its parent domain's hook */
};

struct soft_cq_dp {
	struct soft_map map;
	struct soft_ring ring;
	pthread_spinlock_t lock;
	bool single_threaded;		/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED */
	bool hooked;			/* from its parent domain's hook */
	uint32_t empty_polls;		/* in a row, under lock */
	struct pv_cqe cur;		/* extended polling: the current CQE */
};

/* --- soft_ring.c: geometry and index math (pure) --- */

/* Checks a ring header found at off in a map of map_size bytes: magic,
 * version, powers of two, entries inside the map, entry_size at least
 * min_entry and num_entries at least min_entries.  Returns 0 or -EPROTO. */
int soft_ring_check(const struct pv_ring_hdr *hdr, size_t map_size,
		    size_t off, uint32_t min_entry, uint32_t min_entries);
/* Fills r from a checked header; head starts at the shared prod (for a
 * producer) or cons (for a consumer). */
void soft_ring_attach(struct soft_ring *r, struct pv_ring_hdr *hdr,
		      bool producer);
/* Entries a producer may still add, given the consumer's counter. */
static inline uint32_t soft_ring_space(uint32_t num_entries, uint32_t prod,
				       uint32_t cons)
{
	uint32_t used = prod - cons;

	return used >= num_entries ? 0 : num_entries - used;
}
static inline void *soft_ring_slot(const struct soft_ring *r, uint32_t ctr)
{
	return r->entries + (size_t)(ctr & r->mask) * r->entry_size;
}
/* Smallest power of two >= n (n >= 1, n <= 2^31). */
uint32_t soft_pow2(uint32_t n);

/* --- soft_wqe.c: encoding and conversion (pure) --- */

/* Limits a WQE is checked against (from the granted caps and ring). */
struct soft_sq_limits {
	enum ibv_qp_type qp_type;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t entry_size;
};

/* Whether the QP type may carry opcode (IBA 10.8.3's service matrix). */
bool soft_opcode_ok(enum ibv_qp_type t, enum ibv_wr_opcode op);
/* Encodes wr into the entry at out (entry_size bytes): validates the
 * opcode for the QP type, num_sge, inline length (copying the inline
 * bytes now, as the verbs contract requires) and the UD address.
 * Returns 0 or -EINVAL. */
int soft_encode_send(const struct soft_sq_limits *lim,
		     const struct ibv_send_wr *wr, struct pv_send_wqe *out);
/* Encodes a receive WR; -EINVAL when num_sge > max_sge. */
int soft_encode_recv(uint32_t max_sge, const struct ibv_recv_wr *wr,
		     struct pv_recv_wqe *out);
/* Gathers the list of buffers into the inline area of w (after the WQE);
 * -EINVAL when the total exceeds max_inline. */
int soft_wqe_inline(struct pv_send_wqe *w, uint32_t max_inline,
		    size_t num_buf, const struct ibv_data_buf *buf);
static inline struct pv_wqe_sge *soft_wqe_sges(void *wqe, size_t hdr_len)
{
	return (struct pv_wqe_sge *)((char *)wqe + hdr_len);
}
void soft_cqe_to_wc(const struct pv_cqe *c, struct ibv_wc *wc);

/* --- soft_maps.c: /proc/self/maps and the sharing decision (pure) --- */

struct soft_vma {
	uintptr_t start, end;
	uint64_t offset;
	uint64_t inode;
	char perms[5];
	char path[64];			/* truncated; enough to classify */
	/* From /proc/self/smaps' VmFlags (the caller fills it for file
	 * mappings only): none of hugetlb, VM_IO, PFN or mixed maps,
	 * userfaultfd, grows-down.  A file mapping without it is refused. */
	bool flags_ok;
};

/* Parses one line of /proc/self/maps; 0 or -EINVAL. */
int soft_vma_parse(const char *line, struct soft_vma *v);

/* True when a "VmFlags:" line of /proc/self/smaps names none of the
 * mapping kinds whose pages we must not replace (soft_vma.flags_ok). */
bool soft_vmflags_ok(const char *line);

enum soft_span_kind {
	SOFT_SPAN_FALLBACK = 0,		/* no fd: cannot be registered */
	SOFT_SPAN_CONVERT,		/* private rw (anonymous or file): to a memfd */
	SOFT_SPAN_SHARED,		/* already on one of our memfds */
};

/* What to do with [start, end) (page aligned), given the VMAs sorted by
 * address.  For SOFT_SPAN_SHARED, *ret_inode and *ret_off give the memfd's
 * inode and the file offset of start.  Our memfds are those whose path
 * starts with "/memfd:" SOFT_MR_MEMFD_NAME. */
#define SOFT_MR_MEMFD_NAME "podverbs-mr"
enum soft_span_kind soft_span_classify(const struct soft_vma *v, size_t n,
				       uintptr_t start, uintptr_t end,
				       uint64_t *ret_inode, uint64_t *ret_off);

/* For a span soft_span_classify() refuses: true when it is made of pages
 * of one of our memfds mapped at file offsets equal to their addresses
 * (*ret_inode) and of private read-write memory (SOFT_SPAN_CONVERT's
 * kinds), at least one page of each: the caller moves the latter onto
 * that memfd, at their addresses too. */
bool soft_span_mixed(const struct soft_vma *v, size_t n, uintptr_t start,
		     uintptr_t end, uint64_t *ret_inode);

#endif /* SOFT_DP_H */
