/* SPDX-License-Identifier: MIT */
/* State files and their locks (see cni_state.h for the rules). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni-plugin/cni_state.h"

#define STATE_FILE_MAX	(64 * 1024)

static int path_of(char *buf, size_t cap, const char *dir, const char *key,
		   const char *suffix)
{
	int n = snprintf(buf, cap, "%s/%s%s", dir, key, suffix);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int cni_state_mkdir(const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	for (char *p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int cni_state_lock(const char *dir, const char *key)
{
	char path[PATH_MAX];
	struct stat a, b;
	int fd, ret;

	ret = path_of(path, sizeof(path), dir, key, ".lock");
	if (ret < 0)
		return ret;
	ret = cni_state_mkdir(dir);
	if (ret < 0)
		return ret;
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX) < 0)
			goto err_close_fd;
		/* The holder before us may have removed the attachment. */
		if (fstat(fd, &a) < 0)
			goto err_close_fd;
		if (stat(path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
err_close_fd:
	ret = -errno;
	close(fd);
	return ret;
}

int cni_state_read(const char *dir, const char *key, struct cni_state *ret_st)
{
	char path[PATH_MAX], *text;
	ssize_t got;
	int fd, ret;

	ret = path_of(path, sizeof(path), dir, key, ".json");
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	text = malloc(STATE_FILE_MAX + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	got = read(fd, text, STATE_FILE_MAX);
	ret = got < 0 ? -errno : 0;
	close(fd);
	if (ret == 0) {
		text[got] = '\0';
		ret = cni_state_from_json(text, ret_st);
	}
	free(text);
	return ret;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int cni_state_write(const char *dir, const char *key,
		    const struct cni_state *st)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	char *text = cni_state_to_json(st);
	int fd, ret;

	if (!text)
		return -ENOMEM;
	ret = path_of(path, sizeof(path), dir, key, ".json");
	if (ret == 0)
		ret = path_of(tmp, sizeof(tmp), dir, key, ".json.tmp");
	if (ret < 0)
		goto out_free;
	/* The attachment lock is held, so the temp name is ours alone. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = write_all(fd, text, strlen(text));
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
out_free:
	free(text);
	return ret;
}

int cni_state_remove(const char *dir, const char *key, int lock_fd)
{
	char path[PATH_MAX];
	int ret;

	ret = path_of(path, sizeof(path), dir, key, ".json");
	if (ret == 0 && unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	if (ret == 0)
		ret = path_of(path, sizeof(path), dir, key, ".lock");
	/* Unlink the lock while holding it; waiters then retry. */
	if (ret == 0 && unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	close(lock_fd);
	return ret;
}

/* "<network>@...json" names, never the temp files. */
static int key_of(const char *fname, const char *network, char *key,
		  size_t cap)
{
	size_t nl = strlen(network), fl = strlen(fname);

	if (fl <= nl + 6 || strncmp(fname, network, nl) || fname[nl] != '@' ||
	    strcmp(fname + fl - 5, ".json") || fl - 5 >= cap)
		return 0;
	memcpy(key, fname, fl - 5);
	key[fl - 5] = '\0';
	return 1;
}

int cni_state_each(const char *dir, const char *network,
		   int (*fn)(const char *key, void *arg), void *arg)
{
	char key[CNI_STATE_KEY_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (ret >= 0 && (de = readdir(d)) != NULL)
		if (key_of(de->d_name, network, key, sizeof(key)))
			ret = fn(key, arg);
	closedir(d);
	return ret < 0 ? ret : 0;
}
