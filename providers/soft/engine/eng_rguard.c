/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_rguard.h"

#define NS_PER_S 1000000000ull

void eng_rguard_refill(struct eng_rguard *g, uint64_t now_ns)
{
	uint64_t earned;

	if (!g->primed) {
		g->primed = true;
		g->tokens = ENG_RGUARD_BURST;
		g->refill_ns = now_ns;
		return;
	}
	if (now_ns <= g->refill_ns)
		return;
	earned = (now_ns - g->refill_ns) * ENG_RGUARD_RATE / NS_PER_S;
	if (!earned)
		return;
	/* Advance by what the tokens cost, so fractions are not lost. */
	g->refill_ns += earned * NS_PER_S / ENG_RGUARD_RATE;
	if (earned >= ENG_RGUARD_BURST - g->tokens) {
		g->tokens = ENG_RGUARD_BURST;
		g->refill_ns = now_ns;
	} else {
		g->tokens += (uint32_t)earned;
	}
}

bool eng_rguard_charge(struct eng_rguard *g, uint64_t now_ns)
{
	g->caused++;
	eng_rguard_refill(g, now_ns);
	if (g->tokens)
		g->tokens--;
	if (g->tokens || g->limited)
		return false;
	g->limited = true;
	return true;
}

bool eng_rguard_admit(struct eng_rguard *g, uint64_t now_ns)
{
	if (!g->limited)
		return true;
	eng_rguard_refill(g, now_ns);
	if (g->tokens) {
		g->limited = false;
		return true;
	}
	g->refused++;
	return false;
}
