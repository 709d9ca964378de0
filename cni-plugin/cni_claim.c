/* SPDX-License-Identifier: MIT */
/* Claims on (namespace, interface) (see cni_claim.h for the rules). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cni-plugin/cni_claim.h"

int cni_claim_name(const struct cni_state *st, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "netns-%" PRIu64 "-%" PRIu64 "@%s.claim",
			 st->netns_dev, st->netns_ino, st->ifname);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

static int claim_path(const char *dir, const struct cni_state *st,
		      char *buf, size_t cap)
{
	char name[NAME_MAX + 1];
	int n, ret = cni_claim_name(st, name, sizeof(name));

	if (ret < 0)
		return ret;
	n = snprintf(buf, cap, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* The owner's key, NUL-terminated, in owner. */
static int read_owner(const char *path, char *owner, size_t cap)
{
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	got = read(fd, owner, cap - 1);
	close(fd);
	if (got < 0)
		return -errno;
	owner[got] = '\0';
	return 0;
}

/* A complete file holding key, then link(2): the claim appears whole or
 * not at all, and never over another. */
static int link_claim(const char *dir, const char *path, const char *key)
{
	char tmp[PATH_MAX];
	size_t len = strlen(key);
	int fd, n, ret = 0;

	n = snprintf(tmp, sizeof(tmp), "%s/%s.claim.tmp", dir, key);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return -errno;
	if (write(fd, key, len) != (ssize_t)len || fsync(fd) < 0)
		ret = errno ? -errno : -EIO;
	close(fd);
	if (ret == 0 && link(tmp, path) < 0)
		ret = -errno;
	unlink(tmp);
	return ret;
}

int cni_claim_take(const char *dir, const struct cni_state *st,
		   const char *key, char *owner, size_t cap)
{
	char path[PATH_MAX];
	int ret = claim_path(dir, st, path, sizeof(path));

	if (ret < 0)
		return ret;
	ret = link_claim(dir, path, key);
	if (ret != -EEXIST)
		return ret;
	ret = read_owner(path, owner, cap);
	if (ret == -ENOENT)	/* dropped meanwhile: try once more */
		return link_claim(dir, path, key);
	if (ret < 0)
		return ret;
	return strcmp(owner, key) == 0 ? 1 : -EEXIST;
}

int cni_claim_is_ours(const char *dir, const struct cni_state *st,
		      const char *key)
{
	char path[PATH_MAX], owner[CNI_STATE_KEY_MAX];

	if (st->netns_ino == 0 || claim_path(dir, st, path, sizeof(path)) < 0)
		return 0;
	return read_owner(path, owner, sizeof(owner)) == 0 &&
	       strcmp(owner, key) == 0;
}

int cni_claim_replace(const char *dir, const struct cni_state *st,
		      const char *key)
{
	char path[PATH_MAX];
	int ret = claim_path(dir, st, path, sizeof(path));

	if (ret < 0)
		return ret;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return link_claim(dir, path, key);
}

void cni_claim_drop(const char *dir, const struct cni_state *st,
		    const char *key)
{
	char path[PATH_MAX];

	if (cni_claim_is_ours(dir, st, key) &&
	    claim_path(dir, st, path, sizeof(path)) == 0)
		unlink(path);
}
