/* SPDX-License-Identifier: MIT */
/*
 * rsockets (rdma/rsocket.h): exported so that programs linked against
 * rdma-core's librdmacm load, but not implemented until issue 13.  Each
 * fails with ENOSYS (-1, or an invalid offset/size for the riomap family)
 * and says so under PODVERBS_DEBUG; none touches its arguments.
 */
#include <stddef.h>
#include <sys/types.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"

#define RS_INT(name, ...) \
	RC_EXPORT int name(__VA_ARGS__) { return rc_unimplemented(#name); }
#define RS_SSIZE(name, ...) \
	RC_EXPORT ssize_t name(__VA_ARGS__) { return rc_unimplemented(#name); }

RS_INT(rsocket, int domain, int type, int protocol)
RS_INT(rbind, int s, const struct sockaddr *addr, socklen_t len)
RS_INT(rlisten, int s, int backlog)
RS_INT(raccept, int s, struct sockaddr *addr, socklen_t *len)
RS_INT(rconnect, int s, const struct sockaddr *addr, socklen_t len)
RS_INT(rshutdown, int s, int how)
RS_INT(rclose, int s)
RS_SSIZE(rrecv, int s, void *buf, size_t len, int flags)
RS_SSIZE(rrecvfrom, int s, void *buf, size_t len, int flags,
	 struct sockaddr *src, socklen_t *srclen)
RS_SSIZE(rrecvmsg, int s, struct msghdr *msg, int flags)
RS_SSIZE(rsend, int s, const void *buf, size_t len, int flags)
RS_SSIZE(rsendto, int s, const void *buf, size_t len, int flags,
	 const struct sockaddr *dst, socklen_t dstlen)
RS_SSIZE(rsendmsg, int s, const struct msghdr *msg, int flags)
RS_SSIZE(rread, int s, void *buf, size_t count)
RS_SSIZE(rreadv, int s, const struct iovec *iov, int iovcnt)
RS_SSIZE(rwrite, int s, const void *buf, size_t count)
RS_SSIZE(rwritev, int s, const struct iovec *iov, int iovcnt)
RS_INT(rpoll, struct pollfd *fds, nfds_t nfds, int timeout)
RS_INT(rselect, int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
RS_INT(rgetpeername, int s, struct sockaddr *addr, socklen_t *len)
RS_INT(rgetsockname, int s, struct sockaddr *addr, socklen_t *len)
RS_INT(rsetsockopt, int s, int level, int name, const void *val,
       socklen_t len)
RS_INT(rgetsockopt, int s, int level, int name, void *val, socklen_t *len)
RS_INT(riounmap, int s, void *buf, size_t len)

RC_EXPORT int rfcntl(int s, int cmd, ...)
{
	return rc_unimplemented("rfcntl");
}

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
