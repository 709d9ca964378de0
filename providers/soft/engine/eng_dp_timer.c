/* SPDX-License-Identifier: MIT */
/* Transport timer values (pure apart from reading the clock). */
#include <time.h>

#include "providers/soft/engine/eng_dp.h"

/*
 * Minimum RNR NAK timer field encodings, IBA 9.7.5.2.8 (table 45), in
 * microseconds: code 0 means 655.36 ms, 1..31 grow from 0.01 ms to
 * 491.52 ms.  The smallest step is 10 us, so whole microseconds are
 * exact.
 */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint64_t eng_dp_rnr_ns(uint8_t code)
{
	return (uint64_t)rnr_us[code & 31] * 1000;
}

uint64_t eng_dp_ack_timeout_ns(uint8_t timeout)
{
	/* IBA 11.2.4.2 (ibv_modify_qp(3)): 4.096 us * 2^timeout, 0 means
	 * wait forever.  Values above 31 are invalid and were refused by
	 * QP_MODIFY; clamp all the same. */
	if (timeout == 0)
		return 0;
	if (timeout > 31)
		timeout = 31;
	return 4096ull << timeout;
}

uint64_t eng_dp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
