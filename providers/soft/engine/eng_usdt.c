/* SPDX-License-Identifier: MIT */
/*
 * The engine's USDT semaphores (common/pv_usdt.h), defined once for
 * podverbsd: a tracer attached to podverbsd:NAME increments the one of
 * NAME, and the probe site then builds its arguments.
 */
#include "common/pv_usdt.h"

PV_USDT_ENG_PROBES(PV_USDT_DEFINE)

/* Whether the probes were compiled in (an empty unit is not ISO C). */
extern const int eng_usdt_on;
#ifdef PV_USDT_ON
const int eng_usdt_on = 1;
#else
const int eng_usdt_on = 0;
#endif
