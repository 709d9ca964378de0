/* SPDX-License-Identifier: MIT */
/*
 * A token bucket: `burst` tokens at first, then `rate` more a second up
 * to `burst` again.  Pure (the caller passes CLOCK_MONOTONIC ns and its
 * limits), so one implementation serves every per-device budget: remote
 * access errors (eng_rguard.h), wire multicast joins (eng_net_mcast.c).
 */
#ifndef ENG_TBUCKET_H
#define ENG_TBUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct eng_tbucket {
	bool primed;			/* tokens valid (first use seen) */
	uint32_t tokens;
	uint64_t refill_ns;		/* last refill */
};

/* Adds the tokens earned since refill_ns, up to burst (rate >= 1). */
void eng_tbucket_refill(struct eng_tbucket *b, uint64_t now_ns,
			uint32_t burst, uint32_t rate);
/* Takes one token if there is one after the refill. */
bool eng_tbucket_take(struct eng_tbucket *b, uint64_t now_ns,
		      uint32_t burst, uint32_t rate);

#endif /* ENG_TBUCKET_H */
