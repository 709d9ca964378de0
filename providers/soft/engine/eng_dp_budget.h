/* SPDX-License-Identifier: MIT */
/*
 * The data path's work budgets (issue 8, finding 5), from the engine
 * limits dp_pass_*, dp_pod_pass_* and dp_qp_turn_* (eng_limits.h).  A QP's
 * turn moves at most dp_qp_turn_kb (a chunk or two) or dp_qp_turn_wqes
 * WQEs; one pod (its device) gets at most dp_pod_pass_* over all its
 * connections' QPs in a pass; a
 * pass ends after dp_pass_* and the loop returns to epoll, so requests
 * and other pods are served within about one pass (~100 us of copying
 * with the defaults).  Pure: eng_dp_sched.c keeps the accounts.
 */
#ifndef ENG_DP_BUDGET_H
#define ENG_DP_BUDGET_H

#include <stdint.h>

#include "providers/soft/engine/eng_dp.h"

/* What a new pass may do. */
struct eng_dp_budget eng_dp_pass_budget(void);

/* What one QP's turn may do, given what the pass has left and what its
 * pod has used of this pass so far; zero bytes or WQEs: nothing. */
struct eng_dp_budget eng_dp_turn_budget(const struct eng_dp_budget *pass,
					uint64_t pod_bytes,
					uint64_t pod_wqes);

#endif /* ENG_DP_BUDGET_H */
