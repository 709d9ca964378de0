/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_dp_budget.h"

#include "providers/soft/engine/eng_limits.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* What is left of cap after used (never below zero). */
static uint64_t left(uint64_t cap, uint64_t used)
{
	return cap - min_u64(used, cap);
}

struct eng_dp_budget eng_dp_pass_budget(void)
{
	return (struct eng_dp_budget){
		.bytes = eng_lim.dp_pass_kb * 1024,
		.wqes = (uint32_t)eng_lim.dp_pass_wqes,
	};
}

struct eng_dp_budget eng_dp_turn_budget(const struct eng_dp_budget *pass,
					uint64_t pod_bytes, uint64_t pod_wqes)
{
	struct eng_dp_budget b;

	b.bytes = min_u64(eng_lim.dp_qp_turn_kb * 1024, pass->bytes);
	b.bytes = min_u64(b.bytes, left(eng_lim.dp_pod_pass_kb * 1024,
					pod_bytes));
	b.wqes = (uint32_t)min_u64(min_u64(eng_lim.dp_qp_turn_wqes,
					   pass->wqes),
				   left(eng_lim.dp_pod_pass_wqes, pod_wqes));
	return b;
}
