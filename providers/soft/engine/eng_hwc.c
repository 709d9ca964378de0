/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_hwc.h"

static const char *const hwc_names[ENG_HWC_COUNT] = {
#define ENG_HWC_NAME(n) [ENG_HWC_##n] = #n,
	ENG_HWCS(ENG_HWC_NAME)
#undef ENG_HWC_NAME
};

const char *eng_hwc_name(unsigned id)
{
	return id < ENG_HWC_COUNT ? hwc_names[id] : "?";
}
