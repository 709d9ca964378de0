/* SPDX-License-Identifier: MIT */
/*
 * The rsocket calls not offered yet: the riomap family (direct writes
 * into a peer's mapped memory).  Each fails with ENOSYS (-1, or an
 * invalid offset/size) and says so under PODVERBS_DEBUG.  The stream
 * calls are rc_rs_*.c's.
 */
#include <stddef.h>
#include <sys/types.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"

#define RS_INT(name, ...) \
	RC_EXPORT int name(__VA_ARGS__) { return rc_unimplemented(#name); }

RS_INT(riounmap, int s, void *buf, size_t len)

RC_EXPORT off_t riomap(int s, void *buf, size_t len, int prot, int flags,
		       off_t offset)
{
	return rc_unimplemented("riomap");
}

/* riowrite returns a size_t count; 0 bytes written with errno ENOSYS. */
RC_EXPORT size_t riowrite(int s, const void *buf, size_t count, off_t offset,
			  int flags)
{
	rc_unimplemented("riowrite");
	return 0;
}
