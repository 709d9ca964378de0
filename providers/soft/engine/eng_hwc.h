/* SPDX-License-Identifier: MIT */
/*
 * NIC-style counters, one set per device (port 1) and one per QP, named
 * as Linux rxe's hw counters (rxe_hw_counters.c) and, where rxe has none,
 * mlx5's (Documentation of mlx5 "hw_counters"), so operators read them as
 * they read `rdma statistic show`.
 *
 * Plain u64 fields bumped on the engine's one loop thread: no atomics, no
 * locks.  A QP's counts also go to its device; the device's outlive the
 * QP.  Bytes are payload bytes (no headers), the same on the wire and
 * between pods of one node; same-node packets are counted as the wire
 * would carry them (one per path-MTU piece, one per UD datagram), without
 * ACKs.
 */
#ifndef ENG_HWC_H
#define ENG_HWC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENG_HWCS(X)				\
	X(sent_pkts)				\
	X(rcvd_pkts)				\
	X(sent_bytes)				\
	X(rcvd_bytes)				\
	X(rdma_sends)				\
	X(rdma_recvs)				\
	X(rdma_writes)				\
	X(rdma_reads)				\
	X(rdma_atomics)				\
	X(rx_write_requests)			\
	X(rx_read_requests)			\
	X(rx_atomic_requests)			\
	X(duplicate_request)			\
	X(out_of_seq_request)			\
	X(out_of_sequence)			\
	X(rcvd_rnr_err)				\
	X(send_rnr_err)				\
	X(rcvd_seq_err)				\
	X(packet_seq_err)			\
	X(send_seq_err)				\
	X(implied_nak_seq_err)			\
	X(completer_retry_err)			\
	X(resent_pkts)				\
	X(local_ack_timeout_err)		\
	X(retry_exceeded_err)			\
	X(retry_rnr_exceeded_err)		\
	X(send_err)				\
	X(link_downed)				\
	X(icrc_err)				\
	X(pkey_drops)				\
	X(qkey_drops)				\
	X(gid_drops)				\
	X(cq_overflow)				\
	X(async_events)

enum eng_hwc_id {
#define ENG_HWC_ENUM(n) ENG_HWC_##n,
	ENG_HWCS(ENG_HWC_ENUM)
#undef ENG_HWC_ENUM
	ENG_HWC_COUNT
};

struct eng_hwc {
	uint64_t v[ENG_HWC_COUNT];
};

const char *eng_hwc_name(unsigned id);

static inline void eng_hwc_bump(struct eng_hwc *a, struct eng_hwc *b,
				unsigned id, uint64_t v)
{
	if (a)
		a->v[id] += v;
	if (b)
		b->v[id] += v;
}

#define ENG_HWC_OF(p)	((p) ? &(p)->hw : NULL)
/* Device d (may be NULL) and QP q (may be NULL, not a literal NULL). */
#define eng_hwc_add(d, q, n, v) \
	eng_hwc_bump(ENG_HWC_OF(d), ENG_HWC_OF(q), ENG_HWC_##n, (v))
#define eng_hwc_dev_add(d, n, v) \
	eng_hwc_bump(ENG_HWC_OF(d), NULL, ENG_HWC_##n, (v))
/* A QP and the device of its connection (NULL once deleted). */
#define eng_hwc_qp_add(q, n, v) \
	eng_hwc_add((q)->o.conn ? (q)->o.conn->dev : NULL, (q), n, (v))
#define eng_hwc_qp_inc(q, n)	eng_hwc_qp_add(q, n, 1)

/* Packets a message piece of len bytes takes at path MTU mtu (bytes; 0
 * for UD: one datagram).  Pure. */
static inline uint64_t eng_hwc_pkts(uint64_t len, uint32_t mtu)
{
	if (!mtu || !len)
		return 1;
	return (len + mtu - 1) / mtu;
}

/* eng_hwc_count.c: counting points shared by the same-node and wire
 * paths (each one line at its caller). */
struct eng_dev;
struct eng_qp;
struct eng_dp_msg;
/* The requester finished a WQE of opcode with WC status st. */
void eng_hwc_wqe_done(struct eng_qp *qp, uint32_t opcode, int st);
/* The responder dst ran a piece of a message; served: it succeeded. */
void eng_hwc_delivered(struct eng_qp *dst, const struct eng_dp_msg *m,
		       bool served);
/* eng_wire_tx() returned ret for a packet of paylen payload bytes. */
void eng_hwc_wire_tx(struct eng_dev *d, struct eng_qp *qp, int ret,
		     uint32_t paylen);

#endif /* ENG_HWC_H */
