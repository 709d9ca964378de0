/* SPDX-License-Identifier: MIT */
/* The loop thread's SCHED_FIFO priority (eng_rt_prio.h). */
#include <errno.h>
#include <sched.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_rt_prio.h"

int eng_rt_prio_apply(void)
{
	struct sched_param sp = { .sched_priority = (int)eng_lim.rt_priority };

	if (!eng_lim.rt_priority)
		return 0;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		return -errno;
	return 0;
}
