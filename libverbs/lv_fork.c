/* SPDX-License-Identifier: MIT */
/*
 * Fork support (ibv_fork_init(3)).  The soft provider moves registered
 * anonymous memory onto memfds shared with the engine and marks it
 * MADV_DONTFORK always: a child sharing those MAP_SHARED pages would
 * write into the parent's buffers, breaking fork's copy semantics.  So a
 * child never inherits registered memory, exactly what rdma-core's fork
 * support promises; ibv_fork_init only makes that visible (and makes
 * ibv_dontfork_range/ibv_dofork_range act, as in rdma-core).
 * RDMAV_FORK_SAFE / IBV_FORK_SAFE in the environment enable it as well.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libverbs/lv_core.h"

LV_EXPORT int ibv_dontfork_range(void *base, size_t size);
LV_EXPORT int ibv_dofork_range(void *base, size_t size);

static atomic_bool fork_enabled;

static bool fork_on(void)
{
	return atomic_load(&fork_enabled) || getenv("RDMAV_FORK_SAFE") ||
	       getenv("IBV_FORK_SAFE");
}

LV_EXPORT int ibv_fork_init(void)
{
	atomic_store(&fork_enabled, true);
	return 0;
}

LV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return fork_on() ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

/* Page-rounded madvise of [base, base + size); a positive errno. */
static int advise(void *base, size_t size, int advice)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)base & ~(pg - 1);
	uintptr_t end = ((uintptr_t)base + size + pg - 1) & ~(pg - 1);

	if (!size || !fork_on())
		return 0;
	return madvise((void *)start, end - start, advice) ? errno : 0;
}

LV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	return advise(base, size, MADV_DONTFORK);
}

LV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	return advise(base, size, MADV_DOFORK);
}
