/* SPDX-License-Identifier: MIT */
/*
 * The soft device's harmless character device (see pv_devnode.h).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/pv_devnode.h"

int pv_devnode_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != PV_DEVNODE_MAJOR ||
	    minor(st.st_rdev) != PV_DEVNODE_MINOR)
		return -EEXIST;
	return 0;
}

int pv_devnode_ensure(const char *dir)
{
	char path[4096];
	mode_t old;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, PV_DEVNODE_NAME) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = pv_devnode_check(path);
	if (ret != -ENOENT)
		return ret;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	/* The umask must not take the other users' rw bits: pods run as
	 * any user and UCX checks access(R_OK | W_OK). */
	old = umask(0);
	ret = mknod(path, S_IFCHR | PV_DEVNODE_MODE,
		    makedev(PV_DEVNODE_MAJOR, PV_DEVNODE_MINOR));
	umask(old);
	if (ret < 0 && errno != EEXIST)
		return -errno;
	return pv_devnode_check(path);	/* a racing creator made the same */
}
