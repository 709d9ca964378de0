/* SPDX-License-Identifier: MIT */
/*
 * The rsockets wire protocol between two stream rsockets, as rdma-core's
 * librdmacm speaks it (so either end may be Debian's library): no I/O
 * here, only the encodings and the arithmetic, unit-tested.
 *
 * - Connect private data (REQ and REP): struct rc_rs_conn_data, 40
 *   bytes, big-endian fields: version 1, flags (bit 0: the sender is
 *   big-endian, so SGL entries it writes are in that order; bit 1: it
 *   has an iomap area after its target SGL), initial credits (its
 *   receive queue depth), an 8-bit scaled iomap size, the target SGL
 *   (where the peer RDMA-writes buffer grants: address, rkey, number
 *   of 16-byte entries) and the first half of its receive buffer.
 * - Every message is an RDMA WRITE WITH IMMEDIATE; the 32-bit
 *   immediate's top 3 bits are the op, the low 29 its argument: DATA
 *   (bytes written into the receive buffer), SGL (the sender's receive
 *   credit limit, a 16-bit sequence; its payload, if any, is a new
 *   buffer grant written into our target SGL), IOMAP_SGL (an index),
 *   CTRL (0 disconnect, 1 keep-alive, 2 shutdown of the write side).
 * - A grant entry (struct rc_rs_sge, 16 bytes) is written in the
 *   writer's byte order unless the two ends differ (then swapped).
 * - A keep-alive is no message: a zero-length RDMA WRITE without
 *   immediate, to address 0 and rkey 0, which the peer's HCA only
 *   acknowledges (rdma-core 44 sends exactly that; no receive of the
 *   peer is used, and a peer that is gone fails it).  The CTRL
 *   keep-alive immediate is still taken when it comes.
 */
#ifndef RC_RS_PROTO_H
#define RC_RS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_RS_VERSION		1
#define RC_RS_FLAG_NET		0x01	/* sender is big-endian */
#define RC_RS_FLAG_IOMAP	0x02	/* an iomap area follows the SGL */

#define RC_RS_SGL_SIZE		2	/* entries of our target SGL */
#define RC_RS_SGL_MAX		256	/* most a peer's target SGL may say */
#define RC_RS_CTRL_SLOTS	4	/* control messages in flight */
#define RC_RS_SNDLOWAT		2048	/* least send space worth a write */
#define RC_RS_MAX_TRANSFER	65536	/* largest single data write */
#define RC_RS_OLAP_START	2048	/* first write of a long send */
/*
 * A stream rsocket's send and receive buffers unless SO_SNDBUF/SO_RCVBUF
 * say otherwise: 1 MiB, not rdma-core's 128 KiB.  The receiver grants
 * half its buffer at a time, and on the soft device each grant is a
 * round of wake-ups (both ends and the engine), so the half is what a
 * stream moves per round: 64 KiB halves held iperf3 under TCP's rate.
 * The peer takes whatever size the private data announces.
 */
#define RC_RS_STREAM_BUF	(1u << 20)
#define RC_RS_QP_MIN		16
#define RC_RS_QP_MAX		0xFFFE

enum rc_rs_op {
	RC_RS_OP_DATA = 0,
	RC_RS_OP_RSVD_DATA_MORE = 1,
	RC_RS_OP_WRITE = 2,		/* never on the wire (riowrite) */
	RC_RS_OP_RSVD_DRA_MORE = 3,
	RC_RS_OP_SGL = 4,
	RC_RS_OP_RSVD = 5,
	RC_RS_OP_IOMAP_SGL = 6,
	RC_RS_OP_CTRL = 7,
};

enum rc_rs_ctrl {
	RC_RS_CTRL_DISCONNECT = 0,
	RC_RS_CTRL_KEEPALIVE = 1,
	RC_RS_CTRL_SHUTDOWN = 2,
};

#define RC_RS_MSG_DATA_MASK	0x1FFFFFFFu

/* A control message's work request: zero bytes, with the immediate imm
 * (host order, sent big-endian) when with_imm, to addr/rkey. */
struct rc_rs_ctrl_wr {
	bool with_imm;
	uint32_t imm;
	uint64_t addr;
	uint32_t rkey;
};

/* How ctrl goes on the wire; sgl_addr/sgl_rkey: the peer's target SGL,
 * where a zero-length write with immediate is aimed. */
void rc_rs_ctrl_encode(enum rc_rs_ctrl ctrl, uint64_t sgl_addr,
		       uint32_t sgl_rkey, struct rc_rs_ctrl_wr *out);

static inline uint32_t rc_rs_msg(enum rc_rs_op op, uint32_t data)
{
	return ((uint32_t)op << 29) | (data & RC_RS_MSG_DATA_MASK);
}

static inline enum rc_rs_op rc_rs_msg_op(uint32_t imm)
{
	return (enum rc_rs_op)(imm >> 29);
}

static inline uint32_t rc_rs_msg_data(uint32_t imm)
{
	return imm & RC_RS_MSG_DATA_MASK;
}

/* A grant: in memory as rdma-core's struct rs_sge (addr, key, length). */
struct rc_rs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};
_Static_assert(sizeof(struct rc_rs_sge) == 16, "rs_sge is 16 bytes");

/* The private data as it is on the wire (big-endian fields). */
struct rc_rs_conn_wire {
	uint8_t version;
	uint8_t flags;
	uint16_t credits;
	uint8_t reserved[3];
	uint8_t iomap_scaled;
	struct rc_rs_sge target_sgl;
	struct rc_rs_sge data_buf;
};
_Static_assert(sizeof(struct rc_rs_conn_wire) == 40, "rs_conn_data is 40");

/* The same in host order, as parsed or to be built. */
struct rc_rs_conn {
	uint8_t flags;
	uint16_t credits;
	uint16_t iomap_size;		/* entries (unscaled) */
	struct rc_rs_sge target_sgl;	/* .length: entries */
	struct rc_rs_sge data_buf;	/* .length: bytes */
};

/* Whether this host is big-endian (the NET flag of what we send). */
bool rc_rs_host_is_net(void);

void rc_rs_conn_encode(const struct rc_rs_conn *c,
		       struct rc_rs_conn_wire *out);
/*
 * Parses and validates a peer's private data of len bytes: version 1,
 * credits >= 1, a target SGL of 1..RC_RS_SGL_MAX entries, a data buffer
 * of at least 1 byte and under 2^29 (a DATA length must fit the
 * immediate).  0 or -EPROTO (-EINVAL when too short).
 */
int rc_rs_conn_decode(const void *pdata, size_t len, struct rc_rs_conn *out);

/* rdma-core's 8-bit scaled iomap size: values up to 128 as they are,
 * larger ones as 0x80 | (v >> 8). */
uint8_t rc_rs_scale(uint32_t value);
uint32_t rc_rs_unscale(uint8_t scaled);

/* A grant entry as the peer wrote it, in our order (swap: ends differ). */
struct rc_rs_sge rc_rs_sge_from_peer(struct rc_rs_sge raw, bool swap);
/* A grant to write into the peer's target SGL, in its order. */
struct rc_rs_sge rc_rs_sge_to_peer(struct rc_rs_sge sge, bool swap);

/* An iomap entry (rdma-core's struct rs_iomap): the peer's mapped
 * window at stream offset .offset, written into our target area after
 * the target SGL, in its byte order. */
struct rc_rs_iomap {
	uint64_t offset;
	struct rc_rs_sge sge;
};
_Static_assert(sizeof(struct rc_rs_iomap) == 24, "rs_iomap is 24 bytes");

struct rc_rs_iomap rc_rs_iomap_swap(struct rc_rs_iomap m, bool swap);

/*
 * Where a riowrite of count bytes at offset goes: the first of the n
 * entries (copies of what the peer wrote, in its order) whose window
 * holds offset.  Sets the remote address, rkey and how many bytes fit
 * before the window ends; 0, or -EINVAL when no window holds offset.
 */
int rc_rs_iomap_find(const struct rc_rs_iomap *tab, uint32_t n, bool swap,
		     uint64_t offset, uint64_t *addr, uint32_t *rkey,
		     uint64_t *room);

/* 16-bit sequence arithmetic: a - b as a signed distance. */
static inline int rc_rs_seq_diff(uint16_t a, uint16_t b)
{
	return (int16_t)(uint16_t)(a - b);
}

/*
 * An SGL message's credit limit: valid when it lies within [sent,
 * sent + peer_credits], modulo 2^16 (the peer grants its consumed count
 * plus its queue depth: never less than we already sent, never more
 * than a queue ahead).  0 or -EPROTO.
 */
int rc_rs_check_credit(uint16_t limit, uint16_t sent, uint16_t peer_credits);

/*
 * A DATA message of len bytes fits what we granted: queued bytes not
 * yet read plus len may not exceed the granted, unconsumed span
 * (rbuf_size - avail).  0 or -EPROTO.
 */
int rc_rs_check_data(uint32_t len, uint32_t queued, uint32_t rbuf_size,
		     uint32_t avail);

/*
 * The sender's chunking: the next write of a send with left bytes,
 * olen the current overlap step (doubled up to RC_RS_MAX_TRANSFER after
 * each use), capped by the send space and the current grant.
 */
uint32_t rc_rs_xfer_size(size_t left, uint32_t *olen, uint32_t sbuf_avail,
			 uint32_t grant_left);

#endif /* RC_RS_PROTO_H */
