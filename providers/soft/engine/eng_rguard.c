/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_rguard.h"
#include "providers/soft/engine/eng_limits.h"

#define NS_PER_S 1000000000ull

void eng_rguard_refill(struct eng_rguard *g, uint64_t now_ns)
{
	uint64_t burst = eng_lim.rguard_burst, rate = eng_lim.rguard_rate;
	uint64_t earned, dt;

	if (!g->primed) {
		g->primed = true;
		g->tokens = (uint32_t)burst;
		g->refill_ns = now_ns;
		return;
	}
	if (now_ns <= g->refill_ns)
		return;
	/* Whole seconds apart from the rest: no overflow at any rate. */
	dt = now_ns - g->refill_ns;
	earned = dt / NS_PER_S * rate + dt % NS_PER_S * rate / NS_PER_S;
	if (!earned)
		return;
	/* Advance by what the tokens cost, so fractions are not lost. */
	g->refill_ns += earned * NS_PER_S / rate;
	if (g->tokens >= burst || earned >= burst - g->tokens) {
		g->tokens = (uint32_t)burst;
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
