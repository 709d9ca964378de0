/* SPDX-License-Identifier: MIT */
/*
 * The RC requester's round-trip estimate, for the early probe
 * (eng_wire_rc_arm): how long an acknowledgment of a packet takes to
 * come back, estimated as TCP estimates its retransmission timeout
 * (RFC 6298 section 2: SRTT and RTTVAR with gains 1/8 and 1/4, the
 * timeout SRTT + 4 RTTVAR), floored.  What a sample measures: from a new
 * packet leaving to the ACK that first covers it (Karn's rule, RFC 6298
 * section 3: a packet sent again is never timed, its ACK may be for
 * either copy).  The responder ACKs once per message or per
 * wire_rc_ack_pkts packets, and both engines' loop turns and the
 * scheduler's delays on a busy machine are inside every sample, so the
 * estimate follows what the peer's ACKs really take, where a fixed 2 ms
 * fired for nothing on a loaded machine (bench/README.md).  Pure.
 */
#ifndef ENG_WIRE_RTT_H
#define ENG_WIRE_RTT_H

#include <stdint.h>

struct eng_rtt {
	uint64_t srtt_ns;		/* 0: no sample yet */
	uint64_t rttvar_ns;
	uint64_t samples;
};

/* One measured round trip (ns; 0 is taken as 1). */
void eng_rtt_sample(struct eng_rtt *r, uint64_t rtt_ns);

/* The probe's delay: SRTT + 4 RTTVAR, at least floor_ns; first_ns while
 * there is no sample yet.  Never 0 when floor_ns or first_ns is not. */
uint64_t eng_rtt_probe_ns(const struct eng_rtt *r, uint64_t floor_ns,
			  uint64_t first_ns);

#endif /* ENG_WIRE_RTT_H */
