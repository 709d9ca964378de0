/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_tbucket.h"

#define NS_PER_S 1000000000ull

void eng_tbucket_refill(struct eng_tbucket *b, uint64_t now_ns,
			uint32_t burst, uint32_t rate)
{
	uint64_t earned, dt;

	if (!b->primed) {
		b->primed = true;
		b->tokens = burst;
		b->refill_ns = now_ns;
		return;
	}
	if (now_ns <= b->refill_ns)
		return;
	/* Whole seconds apart from the rest: no overflow at any rate. */
	dt = now_ns - b->refill_ns;
	earned = dt / NS_PER_S * rate + dt % NS_PER_S * rate / NS_PER_S;
	if (!earned)
		return;
	/* Advance by what the tokens cost, so fractions are not lost. */
	b->refill_ns += earned * NS_PER_S / rate;
	if (b->tokens >= burst || earned >= burst - b->tokens) {
		b->tokens = burst;
		b->refill_ns = now_ns;
	} else {
		b->tokens += (uint32_t)earned;
	}
}

bool eng_tbucket_take(struct eng_tbucket *b, uint64_t now_ns,
		      uint32_t burst, uint32_t rate)
{
	eng_tbucket_refill(b, now_ns, burst, rate);
	if (!b->tokens)
		return false;
	b->tokens--;
	return true;
}
