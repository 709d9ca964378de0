/* SPDX-License-Identifier: MIT */
/*
 * The requester's round-trip estimator (eng_wire_rtt.h; RFC 6298 2.2-2.3
 * for the smoothing, RFC 8985 7.2 for the probe timeout).
 */
#include "providers/soft/engine/eng_wire_rtt.h"

void eng_rtt_sample(struct eng_rtt *r, uint64_t ns)
{
	uint64_t d;

	if (ns > ENG_RTT_MAX_NS)
		ns = ENG_RTT_MAX_NS;
	if (!ns)
		ns = 1;		/* srtt 0 means "no sample" */
	if (!r->srtt) {
		r->srtt = ns;
		r->rttvar = ns / 2;
		return;
	}
	d = r->srtt > ns ? r->srtt - ns : ns - r->srtt;
	r->rttvar = r->rttvar - r->rttvar / 4 + d / 4;
	r->srtt = r->srtt - r->srtt / 8 + ns / 8;
	if (!r->srtt)
		r->srtt = 1;
}

uint64_t eng_rtt_rto(const struct eng_rtt *r, uint64_t timer_ns)
{
	uint64_t rto = r->srtt + 4 * r->rttvar;

	if (rto <= timer_ns)
		return timer_ns;
	if (rto / ENG_RTT_RTO_STRETCH > timer_ns)
		return timer_ns * ENG_RTT_RTO_STRETCH;
	return rto;
}

uint64_t eng_rtt_pto(const struct eng_rtt *r, uint64_t min_ns)
{
	uint64_t pto = 2 * r->srtt;

	return pto > min_ns ? pto : min_ns;
}
