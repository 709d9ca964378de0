/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_rguard.h"
#include "providers/soft/engine/eng_limits.h"

void eng_rguard_refill(struct eng_rguard *g, uint64_t now_ns)
{
	eng_tbucket_refill(&g->b, now_ns, eng_lim.rguard_burst,
			   eng_lim.rguard_rate);
}

bool eng_rguard_charge(struct eng_rguard *g, uint64_t now_ns)
{
	g->caused++;
	eng_rguard_refill(g, now_ns);
	if (g->b.tokens)
		g->b.tokens--;
	if (g->b.tokens || g->limited)
		return false;
	g->limited = true;
	return true;
}

bool eng_rguard_admit(struct eng_rguard *g, uint64_t now_ns)
{
	if (!g->limited)
		return true;
	eng_rguard_refill(g, now_ns);
	if (g->b.tokens) {
		g->limited = false;
		return true;
	}
	g->refused++;
	return false;
}
