/* SPDX-License-Identifier: MIT */
/*
 * The round-trip time an RC requester sees (pure): RFC 6298's smoothed
 * estimator (SRTT, RTTVAR; gains 1/8 and 1/4) over the time from a
 * request packet with AckReq set to the first response that covers it,
 * never a retransmitted one (Karn's rule: the caller drops the sample a
 * go-back-N or a probe overlaps).  It paces the requester's tail loss
 * probe and stretches its transport timer (eng_wire_rc_arm): a fixed
 * 2 ms probe, and a 16.8 ms timeout (timeout 12), fired under QPs
 * sharing one device socket, whose ACKs each come after the others'
 * packets and the receiver's backlog, and every early resend added load
 * to the queue it was waiting behind (a flood test's writes ended in
 * RETRY_EXC_ERR with nothing lost).  All times are in ns.
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
/* The transport timer: the QP's own (timer_ns, from its timeout
 * attribute), stretched to SRTT + 4 * RTTVAR (RFC 6298 2.3) when queues
 * make the round trip longer, but never past ENG_RTT_RTO_STRETCH times
 * timer_ns (an unplugged link still ends in RETRY_EXC_ERR soon). */
#define ENG_RTT_RTO_STRETCH	8
uint64_t eng_rtt_rto(const struct eng_rtt *r, uint64_t timer_ns);

#endif /* ENG_WIRE_RTT_H */
