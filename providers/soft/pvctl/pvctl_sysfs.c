/* SPDX-License-Identifier: MIT */
/*
 * pvctl sysfs: a per-pod stand-in for /sys/class/infiniband with the pod's
 * own soft devices only, made from the engine's device list, for a private
 * mount namespace or a container mount to put at /sys/class/infiniband.
 * The files and formats are those of the kernel's ib_core (drivers/
 * infiniband/core/sysfs.c) that tools read: UCX 1.13 takes the RoCE version
 * from ports/1/gid_attrs/types/N (no file: it assumes RoCE v1) and the
 * interface from gid_attrs/ndevs/N; tools check device/net/<ifname>.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/soft/pvctl/pvctl.h"

/* Writes the printf result to <dir>/<name> (created or truncated). */
static int put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[PV_PATH_MAX + 128], buf[128];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0444);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		return -EIO;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* mkdir -p of <base>/<rel>, the result in out. */
static int mkdirs(char *out, size_t cap, const char *base, const char *rel)
{
	size_t b = strlen(base);

	if (snprintf(out, cap, "%s/%s", base, rel) >= (int)cap)
		return -ENAMETOOLONG;
	for (char *p = out + b + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(out, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

static const char *state_str(uint8_t s)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED",
					      "ACTIVE" };

	return s < 5 ? names[s] : "NOP";
}

/* The kernel's GID format: eight groups of four hex digits. */
static void gid_str(const uint8_t g[16], char out[40])
{
	for (int i = 0; i < 8; i++)
		snprintf(out + 5 * i, 6, "%02x%02x%s", g[2 * i], g[2 * i + 1],
			 i < 7 ? ":" : "");
}

/* Removes <dev>/<rel>/N for every N >= from: a tree written again after
 * the GID table shrank must not keep entries the device no longer has. */
static int prune(const char *dev, const char *rel, uint32_t from)
{
	char dir[PV_PATH_MAX + 256];
	struct dirent *e;
	DIR *dp;

	if (snprintf(dir, sizeof(dir), "%s/%s", dev, rel) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((e = readdir(dp))) {
		char *end;
		unsigned long n = strtoul(e->d_name, &end, 10);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end ||
		    n < from)
			continue;
		if (unlinkat(dirfd(dp), e->d_name, 0) < 0 && errno != ENOENT) {
			int ret = -errno;

			closedir(dp);
			return ret;
		}
	}
	closedir(dp);
	return 0;
}

int pvctl_sysfs_write(const char *root, const struct pv_ipc_adm_dev *d)
{
	char name[PV_NAME_MAX + 1], ifn[PV_IFNAME_MAX + 1], rel[160];
	char dev[PV_PATH_MAX + 256], sub[PV_PATH_MAX + 256], g[40];
	const uint8_t *u = (const uint8_t *)&d->info.node_guid;
	uint32_t n;
	int ret;

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(d->info.name),
		 d->info.name);
	snprintf(ifn, sizeof(ifn), "%.*s", (int)sizeof(d->info.ifname),
		 d->info.ifname);
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strchr(ifn, '/') || !strcmp(ifn, ".") ||
	    !strcmp(ifn, ".."))
		return -EINVAL;		/* names become path parts */
	if ((ret = mkdirs(dev, sizeof(dev), root, name)) < 0 ||
	    (ret = put(dev, "node_guid", "%02x%02x:%02x%02x:%02x%02x:%02x%02x\n",
		       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7])) < 0 ||
	    (ret = put(dev, "node_type", "1: CA\n")) < 0 ||
	    (ret = put(dev, "node_desc", "podverbs soft RoCE %s\n", ifn)) < 0)
		return ret;
	if (ifn[0]) {
		snprintf(rel, sizeof(rel), "device/net/%s", ifn);
		if ((ret = mkdirs(sub, sizeof(sub), dev, rel)) < 0)
			return ret;
	}
	if ((ret = mkdirs(sub, sizeof(sub), dev, "ports/1")) < 0 ||
	    (ret = put(sub, "state", "%u: %s\n", d->info.port_state,
		       state_str(d->info.port_state))) < 0 ||
	    (ret = put(sub, "link_layer", "Ethernet\n")) < 0 ||
	    (ret = mkdirs(sub, sizeof(sub), dev, "ports/1/gids")) < 0 ||
	    (ret = mkdirs(sub, sizeof(sub), dev,
			  "ports/1/gid_attrs/types")) < 0 ||
	    (ret = mkdirs(sub, sizeof(sub), dev,
			  "ports/1/gid_attrs/ndevs")) < 0)
		return ret;
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++) {
		const struct pv_ipc_gid_entry *e = &d->gid[i];

		gid_str(e->gid, g);
		snprintf(rel, sizeof(rel), "ports/1/gids/%u", i);
		if ((ret = put(dev, rel, "%s\n", g)) < 0)
			return ret;
		snprintf(rel, sizeof(rel), "ports/1/gid_attrs/types/%u", i);
		if ((ret = put(dev, rel, "%s\n",
			       e->gid_type == PV_GID_TYPE_ROCE_V2 ? "RoCE v2" :
			       "IB/RoCE v1")) < 0)
			return ret;
		snprintf(rel, sizeof(rel), "ports/1/gid_attrs/ndevs/%u", i);
		if ((ret = put(dev, rel, "%s\n", ifn)) < 0)
			return ret;
	}
	n = d->gid_count < PV_GID_TABLE_MAX ? d->gid_count : PV_GID_TABLE_MAX;
	if ((ret = prune(dev, "ports/1/gids", n)) < 0 ||
	    (ret = prune(dev, "ports/1/gid_attrs/types", n)) < 0 ||
	    (ret = prune(dev, "ports/1/gid_attrs/ndevs", n)) < 0)
		return ret;
	return 0;
}

int pvctl_sysfs(struct pvctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ns = NULL, *out = NULL;
	struct pv_ipc_adm_dev_list *l;
	struct stat st;
	int opt, ret, n = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'n')
			ns = optarg;
		else if (opt == 'o')
			out = optarg;
		else
			return pvctl_fail(c, PVCTL_EXIT_USAGE,
					  "usage: sysfs --netns PATH --out DIR");
	}
	if (!ns || !out || optind != argc)
		return pvctl_fail(c, PVCTL_EXIT_USAGE,
				  "usage: sysfs --netns PATH --out DIR");
	if (stat(ns, &st) < 0)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "%s: %s", ns,
				  strerror(errno));
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "%s: %s", out,
				  strerror(errno));
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if ((ret = pvctl_dev_list_get(c, &l)) < 0)
		return pvctl_fail_common(c, ret);
	for (uint32_t i = 0; i < l->count; i++) {
		const struct pv_ipc_adm_dev *d = &l->dev[i];

		/* Only the namespace's own devices: the tree is that pod's. */
		if (d->netns_ino != st.st_ino || d->netns_dev != st.st_dev)
			continue;
		ret = pvctl_sysfs_write(out, d);
		if (ret < 0) {
			free(l);
			return pvctl_fail(c, PVCTL_EXIT_FAIL, "%s/%.*s: %s",
					  out, (int)sizeof(d->info.name),
					  d->info.name, strerror(-ret));
		}
		n++;
	}
	free(l);
	if (!c->json)
		printf("%d device%s in %s\n", n, n == 1 ? "" : "s", out);
	return 0;
}
