/* SPDX-License-Identifier: MIT */
/*
 * librdmacm internals shared by its files: the error convention and the
 * "not implemented yet" path.  Every exported call returns 0 or -1 with
 * errno set (pointer-returning ones NULL + errno), as rdma-core's do;
 * inside, functions return 0 or -errno and rc_ret() converts at the
 * boundary.
 */
#ifndef RC_CORE_H
#define RC_CORE_H

#include <errno.h>

#define RC_EXPORT __attribute__((visibility("default")))

/* -errno (or 0) to the API's 0 / -1 + errno. */
static inline int rc_ret(int ret)
{
	if (ret >= 0)
		return ret;
	errno = -ret;
	return -1;
}

/*
 * A call podverbs does not implement yet: ENOSYS, and one line on stderr
 * naming it when PODVERBS_DEBUG is set (once per call name).  Never
 * crashes, whatever the arguments.
 */
int rc_unimplemented(const char *what);

/* Whether PODVERBS_DEBUG is set (read once). */
int rc_debug(void);

#endif /* RC_CORE_H */
