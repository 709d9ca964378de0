/* SPDX-License-Identifier: MIT */
/* The ENOSYS path of calls not implemented yet, and the debug switch. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "librdmacm/rc_core.h"

int rc_debug(void)
{
	static atomic_int cached = -1;
	int v = atomic_load(&cached);

	if (v < 0) {
		v = getenv("PODVERBS_DEBUG") != NULL;
		atomic_store(&cached, v);
	}
	return v;
}

int rc_unimplemented(const char *what)
{
	if (rc_debug())
		fprintf(stderr, "librdmacm (podverbs): %s is not implemented "
			"yet (ENOSYS)\n", what);
	errno = ENOSYS;
	return -1;
}
