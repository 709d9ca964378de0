/* SPDX-License-Identifier: MIT */
/*
 * The response contract between the responder and the requester's
 * completer: what comes back for one request (one eng_dp_msg chunk).
 * Kinds and codes are named after IBA Vol. 1's responses so the wire
 * encodes each one-to-one:
 *
 *   ENG_DP_REPLY_ACK         AETH syndrome 000 (ACK), msn        9.7.5.1.3
 *   ENG_DP_REPLY_RNR_NAK     AETH 001 + the 5-bit timer, code    9.7.5.2.8
 *   ENG_DP_REPLY_NAK         AETH 011 + the NAK code, code       9.7.5.2.1-4
 *   ENG_DP_REPLY_READ_RESP   RDMA READ response FIRST/MIDDLE/LAST/ONLY:
 *                            data, AETH (ACK, msn) on FIRST/LAST/ONLY 9.7.5.1.2
 *   ENG_DP_REPLY_ATOMIC_ACK  AETH (ACK, msn) + AtomicAckETH orig  9.7.5.1.4
 *   ENG_DP_REPLY_NONE        nothing comes back: UC/UD, or an RC request
 *                            silently dropped (the requester's transport
 *                            timer will fire)
 *
 * The responder never writes the requester's memory: a READ response
 * carries the responder's checked bytes (data points into the responder's
 * MR mapping, or into a received packet), valid only until the engine's
 * next step; the completer copies them into the WQE's local segments, so
 * a same-node READ still costs one memcpy per byte.  An atomic's original
 * value travels in atomic_orig and is written by the completer.
 */
#ifndef ENG_DP_REPLY_H
#define ENG_DP_REPLY_H

#include <stdint.h>

enum eng_dp_reply_kind {
	ENG_DP_REPLY_NONE = 0,
	ENG_DP_REPLY_ACK,
	ENG_DP_REPLY_RNR_NAK,
	ENG_DP_REPLY_NAK,
	ENG_DP_REPLY_READ_RESP,
	ENG_DP_REPLY_ATOMIC_ACK,
};

/* NAK codes, the low 5 bits of an AETH with syndrome 011 (IBA 9.7.5.2,
 * table 44). */
enum eng_dp_nak_code {
	ENG_DP_NAK_PSN_SEQ = 0,		/* PSN sequence error: go back N */
	ENG_DP_NAK_INV_REQ = 1,		/* invalid request */
	ENG_DP_NAK_REM_ACCESS = 2,	/* remote access error */
	ENG_DP_NAK_REM_OP = 3,		/* remote operational error */
	ENG_DP_NAK_INV_RD_REQ = 4,	/* invalid RD request */
};

/* AETH's MSN is 24 bits (IBA 9.7.5.1.3). */
#define ENG_DP_MSN_MASK		0xffffffu

struct eng_dp_reply {
	uint8_t kind;			/* enum eng_dp_reply_kind */
	/* NAK: enum eng_dp_nak_code; RNR_NAK: the responder's
	 * min_rnr_timer encoding (IBA 9.7.5.2.8, eng_dp_rnr_ns()). */
	uint8_t code;
	/* The responder's message sequence number after this request
	 * (count of messages it completed, mod 2^24). */
	uint32_t msn;
	/* READ_RESP: the chunk's bytes, len == the request's chunk. */
	const uint8_t *data;
	uint32_t len;
	/* ATOMIC_ACK: the value at the target before the atomic. */
	uint64_t atomic_orig;
};

#endif /* ENG_DP_REPLY_H */
