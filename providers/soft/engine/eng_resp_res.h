/* SPDX-License-Identifier: MIT */
/*
 * The responder's saved resources (pure): for each RDMA READ and atomic
 * it served, what a duplicate of that request needs to be answered
 * again without executing anything twice (IBA 9.7.5.1.1: a duplicate
 * READ is re-read from memory, a duplicate atomic returns the saved
 * original and never runs again), plus the PSN classifier the responder
 * runs first on every request: expected / duplicate / out of sequence
 * (NAK'd once per gap, 9.7.5.1.1 and 9.7.5.2.1).
 *
 * The table holds max_dest_rd_atomic entries (the number of READs and
 * atomics a requester may have outstanding, IBA 9.7.2.1), so any
 * duplicate a requester may still send is found; the oldest entry is
 * replaced first.  Same-node delivery never duplicates; the wire's
 * receive path calls these.
 */
#ifndef ENG_RESP_RES_H
#define ENG_RESP_RES_H

#include <stdbool.h>
#include <stdint.h>

/* Entries a QP's table can hold; max_dest_rd_atomic above it is
 * clamped (eng_limits caps what a QP is granted). */
#define ENG_RESP_RES_MAX	16

enum eng_resp_res_kind {
	ENG_RESP_RES_FREE = 0,
	ENG_RESP_RES_READ,
	ENG_RESP_RES_ATOMIC,
};

struct eng_resp_res_ent {
	uint8_t kind;			/* enum eng_resp_res_kind */
	/* PSNs the request and its responses use: a READ of n MTU
	 * packets answers with PSNs first..first+n-1; an atomic one. */
	uint32_t first_psn, npsn;
	/* READ: what was asked (rkey checked again when re-served) */
	uint32_t rkey;
	uint64_t va;
	uint32_t len;
	/* ATOMIC: the value before it ran */
	uint64_t orig;
};

struct eng_resp_res {
	uint32_t cap;			/* 1..ENG_RESP_RES_MAX */
	uint32_t next;			/* slot replaced next (the oldest) */
	struct eng_resp_res_ent ent[ENG_RESP_RES_MAX];
};

void eng_resp_res_init(struct eng_resp_res *t, uint32_t max_dest_rd_atomic);
/* Saves a READ served at PSN psn, answered in npsn packets (>= 1). */
void eng_resp_res_save_read(struct eng_resp_res *t, uint32_t psn,
			    uint32_t npsn, uint32_t rkey, uint64_t va,
			    uint32_t len);
void eng_resp_res_save_atomic(struct eng_resp_res *t, uint32_t psn,
			      uint64_t orig);
/* The saved request whose PSN range holds psn, or NULL. */
const struct eng_resp_res_ent *eng_resp_res_find(const struct eng_resp_res *t,
						 uint32_t psn);
/* A duplicate READ at psn (inside ent's range) is re-served from the
 * packet it names on: *va and *len of what is left, mtu bytes per PSN.
 * -EINVAL when psn is outside the range or mtu is 0. */
int eng_resp_res_read_from(const struct eng_resp_res_ent *ent, uint32_t psn,
			   uint32_t mtu, uint64_t *va, uint32_t *len);
/* Empties the table (QP reset, or to ERR). */
void eng_resp_res_clear(struct eng_resp_res *t);

/* ---- the PSN classifier ---- */
enum eng_psn_class {
	ENG_PSN_EXPECTED = 0,		/* execute; epsn moves on */
	ENG_PSN_DUPLICATE,		/* older: re-ACK or re-serve */
	ENG_PSN_OUT_OF_SEQ,		/* newer than expected: a gap */
};

struct eng_psn_rx {
	uint32_t epsn;			/* next PSN expected (24 bits) */
	bool nak_sent;			/* this gap was NAK'd already */
	uint32_t oos_max;		/* highest PSN seen in this gap */
};

void eng_psn_rx_init(struct eng_psn_rx *rx, uint32_t rq_psn);
/* Classifies a request's PSN.  *nak is set for the first out of
 * sequence PSN of a gap only (NAK PSN sequence error once per gap).  An
 * expected one does not move epsn: the caller does with
 * eng_psn_rx_advance() once the request was accepted. */
enum eng_psn_class eng_psn_classify(struct eng_psn_rx *rx, uint32_t psn,
				    bool *nak);
/* The same for a request that asks for an acknowledgement (AckReq):
 * an out of sequence one is NAK'd again, once the gap's NAK went out,
 * when it is the highest PSN this gap has seen, again -- the requester
 * probed its tail, or went back and lost epsn again, so the first NAK
 * (or what it resent) was lost.  Without it the requester learns of the
 * gap only from its transport timer. */
enum eng_psn_class eng_psn_classify_req(struct eng_psn_rx *rx, uint32_t psn,
					bool ackreq, bool *nak);
/* The request at epsn was accepted, using npsn PSNs (a READ: as many as
 * its response packets, IBA 9.7.4.1.4). */
void eng_psn_rx_advance(struct eng_psn_rx *rx, uint32_t npsn);

#endif /* ENG_RESP_RES_H */
