/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_stats.h"

uint64_t eng_stats[ENG_STAT_COUNT];

static const char *const stat_names[ENG_STAT_COUNT] = {
#define ENG_STAT_NAME(n) [ENG_STAT_##n] = #n,
	ENG_STATS(ENG_STAT_NAME)
#undef ENG_STAT_NAME
};

const char *eng_stat_name(enum eng_stat s)
{
	return s < ENG_STAT_COUNT ? stat_names[s] : "?";
}
