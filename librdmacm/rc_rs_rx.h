/* SPDX-License-Identifier: MIT */
/*
 * What a peer's messages do to a stream rsocket, with no I/O: the
 * receive bookkeeping (unread message lengths, bytes granted and not
 * read, messages read) and the send credits its SGL messages move.
 * Every immediate goes through rc_rs_rx_msg, which checks it against
 * that state first (rc_rs_proto.h's checks); the fuzz target
 * tests/fuzz/fuzz_rsocket.c drives it with arbitrary sequences.
 */
#ifndef RC_RS_RX_H
#define RC_RS_RX_H

#include <stdbool.h>
#include <stdint.h>

struct rc_rs_rx {
	uint32_t rbuf_size;		/* receive buffer bytes */
	uint32_t rbuf_avail;		/* read, not granted again yet */
	uint32_t queued;		/* bytes of unread messages */
	uint32_t *rmsg;			/* ring: unread bytes per message */
	uint32_t ring;			/* its slots: queue depth + 1 */
	uint32_t head, tail;
	uint16_t rseq_no;		/* messages read */
	uint16_t sseq_no, sseq_comp;	/* messages sent, the peer's limit */
	uint16_t peer_credits;		/* the peer's queue depth */
	bool peer_shut;			/* its CTRL shutdown came */
	uint32_t after_shut;		/* DATA messages past it, dropped */
};

enum rc_rs_rx_act {
	RC_RS_RX_NONE,
	RC_RS_RX_SHUTDOWN,		/* the peer will send no more */
	RC_RS_RX_DISCONNECT,		/* the peer closed both ways */
};

/* Sets up rx's receive side for a connection: ring of `ring` slots (a
 * queue depth + 1) the caller allocated, half the buffer granted in the
 * private data.  The send side's fields are left as they are. */
void rc_rs_rx_init(struct rc_rs_rx *rx, uint32_t *ring_mem, uint32_t ring,
		   uint32_t rbuf_size);

/* One immediate from the peer: an action, or -EPROTO with *why set.
 * DATA after the peer's shutdown (rdma-core's rsend still sends after
 * SHUT_WR) is checked against the grant as any, then dropped and
 * counted: its bytes and its credit count as read at once, so the
 * stream ends where the peer shut it down, whatever the timing. */
int rc_rs_rx_msg(struct rc_rs_rx *rx, uint32_t imm, const char **why);

static inline bool rc_rs_rx_empty(const struct rc_rs_rx *rx)
{
	return rx->head == rx->tail;
}

/* Unread bytes of the oldest message (0 when none). */
static inline uint32_t rc_rs_rx_head_len(const struct rc_rs_rx *rx)
{
	return rc_rs_rx_empty(rx) ? 0 : rx->rmsg[rx->head];
}

/* k bytes (at most the oldest message's) were read out. */
void rc_rs_rx_consume(struct rc_rs_rx *rx, uint32_t k);

#endif /* RC_RS_RX_H */
