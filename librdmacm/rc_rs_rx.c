/* SPDX-License-Identifier: MIT */
/* The receive side's bookkeeping of a stream rsocket (rc_rs_rx.h). */
#include <errno.h>
#include <string.h>

#include "librdmacm/rc_rs_proto.h"
#include "librdmacm/rc_rs_rx.h"

void rc_rs_rx_init(struct rc_rs_rx *rx, uint32_t *ring_mem, uint32_t ring,
		   uint32_t rbuf_size)
{
	/* The send side (sseq_*, peer_credits) is the peer's private
	 * data's, set apart. */
	rx->queued = 0;
	rx->head = rx->tail = 0;
	rx->rseq_no = 0;
	rx->peer_shut = false;
	rx->after_shut = 0;
	rx->rmsg = ring_mem;
	rx->ring = ring;
	rx->rbuf_size = rbuf_size;
	rx->rbuf_avail = rbuf_size / 2;
}

static int on_data(struct rc_rs_rx *rx, uint32_t len, const char **why)
{
	uint32_t next = (rx->tail + 1) % rx->ring;

	if (rc_rs_check_data(len, rx->queued, rx->rbuf_size,
			     rx->rbuf_avail) < 0) {
		*why = "more data than granted";
		return -EPROTO;
	}
	if (!len || rx->peer_shut) {
		/* A message, but nothing to read (rc_rs_rx.h). */
		rx->after_shut += rx->peer_shut;
		rx->rbuf_avail += len;
		rx->rseq_no++;
		return RC_RS_RX_NONE;
	}
	if (next == rx->head) {
		*why = "more messages than credits";
		return -EPROTO;
	}
	rx->rmsg[rx->tail] = len;
	rx->tail = next;
	rx->queued += len;
	return RC_RS_RX_NONE;
}

static int on_sgl(struct rc_rs_rx *rx, uint16_t lim, const char **why)
{
	if (rc_rs_check_credit(lim, rx->sseq_no, rx->peer_credits) < 0) {
		*why = "a credit limit out of range";
		return -EPROTO;
	}
	/* Limits only grow (in order, each its consumed count plus a
	 * queue); a lower one just narrows our window. */
	rx->sseq_comp = lim;
	return RC_RS_RX_NONE;
}

int rc_rs_rx_msg(struct rc_rs_rx *rx, uint32_t imm, const char **why)
{
	uint32_t arg = rc_rs_msg_data(imm);

	switch (rc_rs_msg_op(imm)) {
	case RC_RS_OP_DATA:
		return on_data(rx, arg, why);
	case RC_RS_OP_SGL:
		return on_sgl(rx, (uint16_t)arg, why);
	case RC_RS_OP_IOMAP_SGL:
		return RC_RS_RX_NONE;	/* the entry is in memory already */
	case RC_RS_OP_CTRL:
		if (arg == RC_RS_CTRL_DISCONNECT)
			return RC_RS_RX_DISCONNECT;
		if (arg == RC_RS_CTRL_SHUTDOWN) {
			rx->peer_shut = true;
			return RC_RS_RX_SHUTDOWN;
		}
		if (arg == RC_RS_CTRL_KEEPALIVE)
			return RC_RS_RX_NONE;
		*why = "an unknown control message";
		return -EPROTO;
	default:
		*why = "an unknown op";
		return -EPROTO;
	}
}

void rc_rs_rx_consume(struct rc_rs_rx *rx, uint32_t k)
{
	if (rc_rs_rx_empty(rx))
		return;
	if (k > rx->rmsg[rx->head])
		k = rx->rmsg[rx->head];
	rx->rmsg[rx->head] -= k;
	rx->queued -= k;
	rx->rbuf_avail += k;
	if (!rx->rmsg[rx->head]) {
		rx->head = (rx->head + 1) % rx->ring;
		rx->rseq_no++;
	}
}
