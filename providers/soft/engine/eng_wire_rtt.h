/* SPDX-License-Identifier: MIT */
/*
 * The round-trip time an RC requester sees (pure): RFC 6298's smoothed
 * estimator (SRTT, RTTVAR; gains 1/8 and 1/4) over the time from a
 * request packet with AckReq set to the first response that covers it,
 * never a retransmitted one (Karn's rule: the caller drops the sample a
 * go-back-N or a probe overlaps).  It paces the requester's tail loss
 * probe (eng_wire_rc_arm): a fixed 2 ms probe fired under four QPs
 * sharing one device socket, whose ACKs each come after the other
 * three's packets, and every early probe added load to the queue it was
 * waiting behind.  All times are in ns.
 */
#ifndef ENG_WIRE_RTT_H
#define ENG_WIRE_RTT_H

#include <stdint.h>

struct eng_rtt {
	uint64_t srtt;		/* 0: no sample yet */
	uint64_t rttvar;
};

/* Samples are clamped to this (a descheduled engine's minutes-long turn
 * must not push the probe beyond any transport timeout for good). */
#define ENG_RTT_MAX_NS		(10ull * 1000000000ull)

/* Folds one measured round trip into r. */
void eng_rtt_sample(struct eng_rtt *r, uint64_t ns);
/* When the tail loss probe goes: 2 * SRTT (RFC 8985 7.2), at least
 * min_ns; min_ns until a sample exists. */
uint64_t eng_rtt_pto(const struct eng_rtt *r, uint64_t min_ns);

#endif /* ENG_WIRE_RTT_H */
