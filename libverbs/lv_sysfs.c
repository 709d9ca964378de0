/* SPDX-License-Identifier: MIT */
/*
 * sysfs helpers.  Tools read optional device attributes through
 * ibv_read_sysfs_file; the soft devices have no sysfs nodes, so those
 * reads fail (-1) exactly as they do for a missing file.  Kernel devices'
 * reads (ibv_read_ibdev_sysfs_file) are in lv_kern_dev.c, fork support
 * in lv_fork.c.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "libverbs/lv_core.h"


LV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if (!dir || !file || !buf || !size)
		return -1;
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	/* Strip the trailing newline and terminate, as sysfs readers do. */
	if ((size_t)len < size)
		buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	return (int)len;
}

LV_EXPORT const char *ibv_get_sysfs_path(void)
{
	const char *p = getenv("SYSFS_PATH");

	return (p && *p) ? p : "/sys";
}
