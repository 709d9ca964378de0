/* SPDX-License-Identifier: MIT */
/*
 * Per-device accounting of remote access errors (IBA 9.7.5.1.x, C9-88:
 * an R_Key that names no MR, or one without the right or range) and of
 * datagrams with a wrong Q_Key (IBA 10.2.5), which is how a peer
 * guessing keys shows itself.  A device has a token bucket as a source:
 * each such error its QPs cause costs a token; with the bucket empty its
 * RDMA READ/WRITE/atomics and UD datagrams are refused (counted as
 * dp_remote_refused, logged at most once a second) until tokens come
 * back, so a guesser gets rguard_burst tries and then rguard_rate a
 * second (engine limits, eng_limits.h; 64 and 16 by default), against
 * 2^32 rkeys or 2^31 Q_Keys.  As a target the device counts the errors
 * it saw.  Pure state here (reading eng_lim); eng_dp_rguard.c acts.
 */
#ifndef ENG_RGUARD_H
#define ENG_RGUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng_tbucket.h"

#define ENG_RGUARD_WARN_NS	1000000000ull	/* one warning a second */

struct eng_rguard {
	/* As the source of remote operations. */
	struct eng_tbucket b;		/* primed by the first error */
	bool limited;			/* bucket empty: refusing */
	uint64_t caused;		/* errors its QPs caused */
	uint64_t refused;		/* operations refused while limited */
	uint64_t warn_ns;		/* last warning */
	/* As the target. */
	uint64_t rkey_errors;		/* remote access errors seen */
	uint64_t qkey_errors;		/* datagrams with a wrong Q_Key */
	uint64_t qkey_warn_ns;
};

/* Adds the tokens earned since the last refill (up to the burst). */
void eng_rguard_refill(struct eng_rguard *g, uint64_t now_ns);
/* One more error at now_ns; true when it emptied the bucket. */
bool eng_rguard_charge(struct eng_rguard *g, uint64_t now_ns);
/* May the source issue a remote operation now? */
bool eng_rguard_admit(struct eng_rguard *g, uint64_t now_ns);

#endif /* ENG_RGUARD_H */
