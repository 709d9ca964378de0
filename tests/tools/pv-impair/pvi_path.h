/* SPDX-License-Identifier: MIT */
/*
 * One direction of the impairer: frames come in (pvi_path_input), the
 * faults of its pvi_dir_cfg are applied in a fixed order (drop, corrupt,
 * duplicate, hold back), and what may leave now is listed in out[] for the
 * caller to send.  Frames live in a fixed pool allocated once; a frame is
 * owned by exactly one place (the caller's receive batch, the hold list,
 * the delay queue or out[]).  Pure: time is passed in, no I/O.
 */
#ifndef PVI_PATH_H
#define PVI_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "tests/tools/pv-impair/pvi_spec.h"

struct pvi_stats {
	uint64_t rx, rx_bytes;	/* frames (bytes) received */
	uint64_t tx, tx_bytes;	/* frames (bytes) sent, duplicates included */
	uint64_t drop;		/* dropped by the loss rate */
	uint64_t reorder;	/* held back */
	uint64_t dup;		/* sent twice */
	uint64_t corrupt;	/* one payload bit flipped */
	uint64_t corrupt_skip;	/* picked for corruption but no UDP/TCP payload */
	uint64_t trunc;		/* larger than the buffers (MTU): dropped */
	uint64_t txerr;		/* the send failed */
	uint64_t qdrop;		/* the delay queue was full: dropped */
	uint64_t kdrop;		/* the kernel dropped them: our receive queue was
				 * full (PACKET_STATISTICS; not in rx) */
};

struct pvi_held {
	uint32_t idx;
	uint32_t left;		/* later frames still to pass it */
	uint64_t deadline;	/* ns: released then at the latest */
};

struct pvi_path {
	struct pvi_dir_cfg cfg;
	uint64_t rng;
	struct pvi_stats st;
	size_t frame_max;	/* bytes per buffer */
	uint32_t nframes;
	uint8_t *mem;		/* nframes * frame_max */
	uint32_t *len;		/* per buffer */
	uint32_t *free_idx, nfree;
	struct pvi_held hold[PVI_HOLD_MAX];
	uint32_t nhold;
	uint32_t *dq_idx;	/* delay FIFO (constant delay keeps it sorted) */
	uint64_t *dq_due;
	uint32_t dq_cap, dq_head, dq_n;
	uint32_t *out, nout;	/* to send now, in order */
};

/* Allocates the pool: batch buffers for a receive batch (and as many for
 * duplicates), PVI_HOLD_MAX for held frames, queue for the delay FIFO
 * (used only when cfg->delay_us > 0).  0 or -ENOMEM / -EINVAL. */
int pvi_path_new(struct pvi_path *p, const struct pvi_dir_cfg *cfg,
		 uint64_t seed, size_t frame_max, uint32_t batch,
		 uint32_t queue);
void pvi_path_free(struct pvi_path *p);

static inline uint8_t *pvi_path_buf(struct pvi_path *p, uint32_t idx)
{
	return p->mem + (size_t)idx * p->frame_max;
}

/* A free buffer, or -ENOBUFS. */
int pvi_path_get(struct pvi_path *p, uint32_t *ret_idx);
void pvi_path_put(struct pvi_path *p, uint32_t idx);

/* Takes ownership of buffer idx holding a len-byte frame received at
 * now_ns (len <= frame_max). */
void pvi_path_input(struct pvi_path *p, uint32_t idx, uint32_t len,
		    uint64_t now_ns);

/* Moves held frames whose deadline passed and delayed frames now due to
 * out[]. */
void pvi_path_tick(struct pvi_path *p, uint64_t now_ns);

/* When the next held or delayed frame is due (ns), or UINT64_MAX. */
uint64_t pvi_path_next_due(const struct pvi_path *p);

/* The caller sent (or failed to send) every frame of out[]: frees them. */
void pvi_path_out_done(struct pvi_path *p);

#endif /* PVI_PATH_H */
