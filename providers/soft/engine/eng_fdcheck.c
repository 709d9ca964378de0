/* SPDX-License-Identifier: MIT */
/* Client fd type checks (eng_fdcheck.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "providers/soft/engine/eng_fdcheck.h"

/* memfd_create(2) makes a regular file on tmpfs (hugetlbfs with
 * MFD_HUGETLB) that answers F_GET_SEALS; a pipe, socket, device or a
 * file of another filesystem (whose mapping could block on I/O or on a
 * FUSE server) is refused. */
static int check_memfd(int fd)
{
	struct statfs sfs;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EBADF;
	if (fstatfs(fd, &sfs) < 0 ||
	    (sfs.f_type != TMPFS_MAGIC && sfs.f_type != HUGETLBFS_MAGIC))
		return -EBADF;
	if (fcntl(fd, F_GET_SEALS) < 0)
		return -EBADF;
	return 0;
}

/* An nsfs file of a network namespace (ioctl_ns(2)). */
static int check_netns(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != NSFS_MAGIC)
		return -EBADF;
	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET)
		return -EBADF;
	return 0;
}

/* ibv_open_xrcd(3)'s file names a domain by its inode: a regular file
 * or a directory (no FIFO, socket or device, whose fstat is all the
 * engine does with it anyway). */
static int check_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return -EBADF;
	return 0;
}

int eng_fd_check(int fd, enum pv_ipc_fd_kind kind)
{
	switch (kind) {
	case PV_IPC_FD_MEMFD:
		return check_memfd(fd);
	case PV_IPC_FD_NETNS:
		return check_netns(fd);
	case PV_IPC_FD_FILE:
		return check_file(fd);
	case PV_IPC_FD_NONE:
		break;
	}
	return -EBADF;
}
