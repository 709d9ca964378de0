/* SPDX-License-Identifier: MIT */
/* The RC requester's round-trip estimate (eng_wire_rtt.h).  Pure. */
#include "providers/soft/engine/eng_wire_rtt.h"

void eng_rtt_sample(struct eng_rtt *r, uint64_t rtt_ns)
{
	uint64_t d;

	if (!rtt_ns)
		rtt_ns = 1;
	r->samples++;
	if (!r->srtt_ns) {
		/* RFC 6298 (2.2): the first measurement R. */
		r->srtt_ns = rtt_ns;
		r->rttvar_ns = rtt_ns / 2;
		return;
	}
	/* (2.3): RTTVAR from the old SRTT, then SRTT. */
	d = r->srtt_ns > rtt_ns ? r->srtt_ns - rtt_ns : rtt_ns - r->srtt_ns;
	r->rttvar_ns = r->rttvar_ns - r->rttvar_ns / 4 + d / 4;
	r->srtt_ns = r->srtt_ns - r->srtt_ns / 8 + rtt_ns / 8;
	if (!r->srtt_ns)
		r->srtt_ns = 1;
}

uint64_t eng_rtt_probe_ns(const struct eng_rtt *r, uint64_t floor_ns,
			  uint64_t first_ns)
{
	uint64_t t;

	if (!r->srtt_ns)
		return first_ns > floor_ns ? first_ns : floor_ns;
	t = r->srtt_ns + 4 * r->rttvar_ns;
	return t > floor_ns ? t : floor_ns;
}
