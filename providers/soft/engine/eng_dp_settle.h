/* SPDX-License-Identifier: MIT */
/* Posted work before dependent control requests (eng_dp_settle.c). */
#ifndef ENG_DP_SETTLE_H
#define ENG_DP_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng.h"

/* Whether request op depends on the work its client posted before it. */
bool eng_dp_settle_op(uint16_t op);
/* Runs the work c's QPs have posted, bounded (about one pass). */
void eng_dp_settle(struct eng *e, struct eng_conn *c);

#endif /* ENG_DP_SETTLE_H */
