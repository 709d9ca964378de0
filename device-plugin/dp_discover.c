// SPDX-License-Identifier: MIT
/*
 * sysfs discovery of kernel RDMA devices (PCI functions, and virtual
 * devices such as rxe over a netdev), plus a libudev monitor.  libudev
 * enumeration is tied to the real /sys, so the scan itself reads sysfs
 * directly below the configured root; udev only says when to rescan.
 */
#include "device-plugin/dp_discover.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small sysfs attribute, trimmed; -errno when absent. */
static int read_attr(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = 0;
	return 0;
}

/* Copies src, cut to fit (sysfs names are short; a longer one is bogus). */
static void set_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* Basename of a symlink's target ("../../drivers/mlx5_core" -> mlx5_core). */
static int link_base(const char *path, char *buf, size_t cap)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n < 0)
		return -errno;
	target[n] = 0;
	slash = strrchr(target, '/');
	set_str(buf, cap, slash ? slash + 1 : target);
	return 0;
}

/* "0x15b3" -> "15b3". */
static void hex_id(const char *path, char *out, size_t cap)
{
	char buf[16];

	out[0] = 0;
	if (read_attr(path, buf, sizeof(buf)))
		return;
	set_str(out, cap, strncmp(buf, "0x", 2) ? buf : buf + 2);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static void read_pci(const char *root, struct dp_kdev *d)
{
	char path[PATH_MAX], buf[32];
	DIR *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device", root,
		 d->name);
	link_base(path, d->pci_addr, sizeof(d->pci_addr));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/vendor",
		 root, d->name);
	hex_id(path, d->vendor, sizeof(d->vendor));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/device",
		 root, d->name);
	hex_id(path, d->device_id, sizeof(d->device_id));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/driver",
		 root, d->name);
	link_base(path, d->driver, sizeof(d->driver));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/numa_node",
		 root, d->name);
	if (read_attr(path, buf, sizeof(buf)) == 0)
		d->numa = atoi(buf);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", root,
		 d->name);
	dir = opendir(path);
	if (!dir)
		return;
	/* Several interfaces (ports): take the smallest name, stable order. */
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(d->netdev))
			continue;
		if (!d->netdev[0] || strcmp(de->d_name, d->netdev) < 0)
			strcpy(d->netdev, de->d_name);
	}
	closedir(dir);
}

/*
 * A virtual device (rxe, siw: /sys/devices/virtual/infiniband/<ibdev>, no
 * "device" link) runs over a netdev: rxe names it in "parent", any RoCE
 * device in its GID table's ndevs/0.  Its NUMA node is that interface's
 * device's (a PCI NIC's numa_node), or the bus device above it (virtio_net
 * sits on a virtio device under the PCI function that has the numa_node).
 */
static void read_virtual(const char *root, struct dp_kdev *d)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/parent", root,
		 d->name);
	if (read_attr(path, buf, sizeof(buf)) || !buf[0] ||
	    strlen(buf) >= sizeof(d->netdev)) {
		snprintf(path, sizeof(path),
			 "%s/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 root, d->name);
		if (read_attr(path, buf, sizeof(buf)) || !buf[0] ||
		    strlen(buf) >= sizeof(d->netdev))
			return;
	}
	/* An interface name has no '/' (it ends up in paths below). */
	if (strchr(buf, '/'))
		return;
	strcpy(d->netdev, buf);
	snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node", root,
		 d->netdev);
	if (read_attr(path, buf, sizeof(buf)) == 0) {
		d->numa = atoi(buf);
		return;
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/device/../numa_node",
		 root, d->netdev);
	if (read_attr(path, buf, sizeof(buf)) == 0)
		d->numa = atoi(buf);
}

static void read_ports(const char *root, struct dp_kdev *d)
{
	char path[PATH_MAX], buf[32];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/link_layer",
		 root, d->name);
	read_attr(path, d->link_layer, sizeof(d->link_layer));
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root,
		 d->name);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "%s/class/infiniband/%s/ports/%s/state", root, d->name,
			 de->d_name);
		/* "4: ACTIVE" — the number is enum ib_port_state. */
		if (read_attr(path, buf, sizeof(buf)) == 0 && atoi(buf) == 4)
			d->port_active = 1;
	}
	closedir(dir);
}

/* Finds <prefix>N under class/<cls> whose ibdev is d->name. */
static int find_char_dev(const char *root, const char *cls,
			 const char *prefix, const char *ibdev)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	int found = -1;
	size_t plen = strlen(prefix);
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/%s", root, cls);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		int n;

		if (strncmp(de->d_name, prefix, plen) ||
		    !isdigit((unsigned char)de->d_name[plen]))
			continue;
		n = atoi(de->d_name + plen);
		snprintf(path, sizeof(path), "%s/class/%s/%s/ibdev", root, cls,
			 de->d_name);
		if (read_attr(path, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, ibdev) == 0 && (found < 0 || n < found))
			found = n;
	}
	closedir(dir);
	return found;
}

static int cmp_kdev(const void *a, const void *b)
{
	return strcmp(((const struct dp_kdev *)a)->name,
		      ((const struct dp_kdev *)b)->name);
}

int dp_discover_scan(const char *sysfs_root, struct dp_kdev *out, int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband", sysfs_root);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir)) && n < max) {
		struct dp_kdev *d = &out[n];

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(d->name))
			continue;
		memset(d, 0, sizeof(*d));
		strcpy(d->name, de->d_name);
		d->numa = -1;
		read_pci(sysfs_root, d);
		if (!d->netdev[0])
			read_virtual(sysfs_root, d);
		read_ports(sysfs_root, d);
		d->uverbs = find_char_dev(sysfs_root, "infiniband_verbs",
					  "uverbs", d->name);
		d->umad = find_char_dev(sysfs_root, "infiniband_mad", "umad",
					d->name);
		n++;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), cmp_kdev);
	return n;
}

struct dp_udev {
	struct udev *udev;
	struct udev_monitor *mon;
};

struct dp_udev *dp_udev_open(int *ret_fd)
{
	struct dp_udev *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->udev = udev_new();
	if (!u->udev)
		goto err_free;
	/* Without a udev daemon (a plugin pod seldom sees one) only the
	 * kernel's own uevents arrive. */
	u->mon = udev_monitor_new_from_netlink(u->udev,
		access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel");
	if (!u->mon)
		goto err_unref_udev;
	udev_monitor_filter_add_match_subsystem_devtype(u->mon, "infiniband",
							NULL);
	udev_monitor_filter_add_match_subsystem_devtype(u->mon,
							"infiniband_verbs", NULL);
	udev_monitor_filter_add_match_subsystem_devtype(u->mon, "net", NULL);
	if (udev_monitor_enable_receiving(u->mon) < 0)
		goto err_unref_mon;
	*ret_fd = udev_monitor_get_fd(u->mon);
	return u;

err_unref_mon:
	udev_monitor_unref(u->mon);
err_unref_udev:
	udev_unref(u->udev);
err_free:
	free(u);
	return NULL;
}

int dp_udev_drain(struct dp_udev *u)
{
	struct udev_device *dev;
	int any = 0;

	if (!u)
		return 0;
	while ((dev = udev_monitor_receive_device(u->mon))) {
		any++;
		udev_device_unref(dev);
	}
	return any;
}

void dp_udev_close(struct dp_udev *u)
{
	if (!u)
		return;
	udev_monitor_unref(u->mon);
	udev_unref(u->udev);
	free(u);
}
