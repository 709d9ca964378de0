/* SPDX-License-Identifier: MIT */
/* Posted work before dependent control requests (eng_dp_settle.c). */
#ifndef ENG_DP_SETTLE_H
#define ENG_DP_SETTLE_H

#include "providers/soft/engine/eng_obj.h"

/* Before serving r (a well-framed request): runs the work its client
 * posted that r depends on, bounded (about one pass); nothing for other
 * requests. */
void eng_dp_settle(struct eng_req *r);

#endif /* ENG_DP_SETTLE_H */
