/* SPDX-License-Identifier: MIT */
/*
 * Kernel RDMA devices through rdma-core's provider plugins: the registry
 * the plugins' constructors fill (verbs_register_driver_34), the sysfs
 * scan of /sys/class/infiniband_verbs/uverbs*, loading the plugins named
 * by RDMAV_DRIVERS and the config files, and matching each device to a
 * provider whose alloc_device makes its verbs_device.  Behaviour follows
 * rdma-core 44's init.c and dynamic_driver.c.
 *
 * Devices are cached across ibv_get_device_list calls (the same uverbs
 * node created at the same time keeps its ibv_device pointer, as with
 * rdma-core); each list entry and each open context holds a reference.
 * A host without uverbs costs one failed opendir per list.
 */
#include <dirent.h>
#include <endian.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_kern_nl.h"

#define PFX "libibverbs: "
#define LV_PROVIDER_SUFFIX "-rdmav34.so"
#ifndef LV_PROVIDER_DIR
#if defined(__x86_64__)
#define LV_PROVIDER_DIR "/usr/lib/x86_64-linux-gnu/libibverbs"
#elif defined(__aarch64__)
#define LV_PROVIDER_DIR "/usr/lib/aarch64-linux-gnu/libibverbs"
#else
#define LV_PROVIDER_DIR ""
#endif
#endif
#define LV_CONFIG_DIR "/etc/libibverbs.d"
#define LV_MAX_DRIVERS 64
#define LV_MAX_KDEVS 256

/* Registered providers, in registration order.  Its own lock: a plugin
 * registers from its constructor, inside our dlopen under scan_lock. */
static pthread_mutex_t drivers_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct verbs_device_ops *drivers[LV_MAX_DRIVERS];
static unsigned int n_drivers;

/* The scan: the cache of devices made, and whether plugins were loaded. */
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_device *cache[LV_MAX_KDEVS];
static unsigned int n_cache;
static bool drivers_loaded;

bool lv_kern_warn_on(void)
{
	return getenv("IBV_SHOW_WARNINGS") || getenv("PODVERBS_DEBUG");
}

LV_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops);
LV_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	if (!ops)
		return;
	pthread_mutex_lock(&drivers_lock);
	for (unsigned int i = 0; i < n_drivers; i++)
		if (drivers[i] == ops)
			goto out;
	if (n_drivers < LV_MAX_DRIVERS)
		drivers[n_drivers++] = ops;
	else
		fprintf(stderr, PFX "Warning: too many providers, %s ignored\n",
			ops->name ? ops->name : "?");
out:
	pthread_mutex_unlock(&drivers_lock);
}

static const struct verbs_device_ops *driver_at(unsigned int i)
{
	const struct verbs_device_ops *ops = NULL;

	pthread_mutex_lock(&drivers_lock);
	if (i < n_drivers)
		ops = drivers[i];
	pthread_mutex_unlock(&drivers_lock);
	return ops;
}

/* Marks our kernel devices: providers leave _ops zeroed (rdma-core
 * asserts it), the soft devices are calloc'ed, so only ours carry it. */
static void lv_kern_marker(struct ibv_context *c)
{
	(void)c;
}

bool lv_kern_is_dev(const struct ibv_device *dev)
{
	return dev && dev->_ops._dummy2 == lv_kern_marker;
}

void lv_kern_dev_hold(struct ibv_device *dev)
{
	atomic_fetch_add(&lv_vdev(dev)->refcount, 1);
}

void lv_kern_dev_put(struct ibv_device *dev)
{
	struct verbs_device *vdev = lv_vdev(dev);
	struct verbs_sysfs_dev *sd;

	if (atomic_fetch_sub(&vdev->refcount, 1) != 1)
		return;
	sd = vdev->sysfs;
	if (vdev->ops->uninit_device)
		vdev->ops->uninit_device(vdev);
	free(sd);
}

/* Reads a sysfs attribute under dirfd: length, or -1. */
static int read_at(int dirfd, const char *file, char *buf, size_t size)
{
	ssize_t len;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	return (int)len;
}

LV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					struct verbs_sysfs_dev *sysfs_dev,
					const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));
LV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					struct verbs_sysfs_dev *sysfs_dev,
					const char *fnfmt, ...)
{
	char file[256];
	va_list ap;
	int n;

	if (!sysfs_dev) {
		errno = ENOENT;
		return -1;
	}
	va_start(ap, fnfmt);
	n = vsnprintf(file, sizeof(file), fnfmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(file)) {
		errno = ENOMEM;
		return -1;
	}
	return ibv_read_sysfs_file(sysfs_dev->ibdev_path, file, buf, size);
}

static const char *cdev_dir(void)
{
	/* Test hook: fixture trees stand in for /dev/infiniband. */
	const char *d = getenv("PODVERBS_KERN_CDEV_DIR");

	return d && *d ? d : "/dev/infiniband";
}

static void read_driver_id(struct verbs_sysfs_dev *sd)
{
	char link[IBV_SYSFS_PATH_MAX + 16], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "%s/device/driver", sd->ibdev_path);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	sd->driver_id = lv_kern_driver_id(base ? base + 1 : target);
}

/* Fills sd from class/infiniband_verbs/<name>: -1 when it is not a
 * usable uverbs device (no ibdev, no char device node). */
static int read_uverbs(int classfd, const char *name,
		       struct verbs_sysfs_dev *sd)
{
	char val[64], node[PATH_MAX];
	unsigned int maj, min;
	struct stat st;
	int fd, ret = -1;

	if (strlen(name) >= sizeof(sd->sysfs_name))
		return -1;
	fd = openat(classfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sd->ibdev_idx = -1;
	memcpy(sd->sysfs_name, name, strlen(name) + 1);
	if (read_at(fd, "ibdev", sd->ibdev_name, sizeof(sd->ibdev_name)) < 0)
		goto out;
	if (snprintf(sd->ibdev_path, sizeof(sd->ibdev_path),
		     "%s/class/infiniband/%s", ibv_get_sysfs_path(),
		     sd->ibdev_name) >= (int)sizeof(sd->ibdev_path) ||
	    stat(sd->ibdev_path, &st))
		goto out;
	sd->time_created = st.st_mtim;
	if (read_at(fd, "dev", val, sizeof(val)) < 0 ||
	    sscanf(val, "%u:%u", &maj, &min) != 2)
		goto out;
	sd->sysfs_cdev = makedev(maj, min);
	if (read_at(fd, "abi_version", val, sizeof(val)) > 0)
		sd->abi_ver = (uint32_t)strtoul(val, NULL, 10);
	sd->node_type = IBV_NODE_UNKNOWN;
	if (ibv_read_sysfs_file(sd->ibdev_path, "node_type", val,
				sizeof(val)) > 0)
		sd->node_type = lv_kern_node_type(strtoul(val, NULL, 10));
	snprintf(node, sizeof(node), "%s/%s", cdev_dir(), name);
	if (stat(node, &st))
		goto out;
	read_driver_id(sd);
	ret = 0;
out:
	close(fd);
	return ret;
}

static bool same_dev(const struct verbs_sysfs_dev *a,
		     const struct verbs_sysfs_dev *b)
{
	return strcmp(a->sysfs_name, b->sysfs_name) == 0 &&
	       a->time_created.tv_sec == b->time_created.tv_sec &&
	       a->time_created.tv_nsec == b->time_created.tv_nsec;
}

static bool match_device(const struct verbs_device_ops *ops,
			 struct verbs_sysfs_dev *sd)
{
	if (ops->match_table) {
		if (!(sd->flags & LV_SYSFS_READ_MODALIAS)) {
			sd->flags |= LV_SYSFS_READ_MODALIAS;
			if (ibv_read_sysfs_file(sd->ibdev_path,
						"device/modalias", sd->modalias,
						sizeof(sd->modalias)) <= 0)
				sd->modalias[0] = '\0';
		}
		sd->match = lv_kern_match_table(ops->match_table,
						sd->driver_id, sd->ibdev_name,
						sd->modalias);
	}
	/* A provider's own match function decides, after the table. */
	if (ops->match_device ? !ops->match_device(sd) : !sd->match)
		return false;
	if (sd->abi_ver < ops->match_min_abi_version ||
	    sd->abi_ver > ops->match_max_abi_version) {
		fprintf(stderr, PFX "Warning: Driver %s does not support the "
			"kernel ABI of %u (supports %u to %u) for device %s\n",
			ops->name, sd->abi_ver, ops->match_min_abi_version,
			ops->match_max_abi_version, sd->ibdev_path);
		return false;
	}
	return true;
}

static struct verbs_device *try_driver(const struct verbs_device_ops *ops,
				       struct verbs_sysfs_dev *sd)
{
	struct verbs_device *vdev;
	struct ibv_device *dev;

	if (!match_device(ops, sd))
		return NULL;
	vdev = ops->alloc_device(sd);
	if (!vdev) {
		fprintf(stderr, PFX "Fatal: couldn't allocate device for %s\n",
			sd->ibdev_path);
		return NULL;
	}
	vdev->ops = ops;
	atomic_init(&vdev->refcount, 1);
	vdev->sysfs = sd;
	dev = &vdev->device;
	dev->node_type = sd->node_type;
	dev->transport_type = lv_kern_transport(sd->node_type);
	snprintf(dev->dev_name, sizeof(dev->dev_name), "%s", sd->sysfs_name);
	snprintf(dev->dev_path, sizeof(dev->dev_path),
		 "%s/class/infiniband_verbs/%s", ibv_get_sysfs_path(),
		 sd->sysfs_name);
	snprintf(dev->name, sizeof(dev->name), "%s", sd->ibdev_name);
	snprintf(dev->ibdev_path, sizeof(dev->ibdev_path), "%s",
		 sd->ibdev_path);
	dev->_ops._dummy2 = lv_kern_marker;
	return vdev;
}

/* A driver id match takes priority over the other kinds (rdma-core). */
static struct verbs_device *try_drivers(struct verbs_sysfs_dev *sd)
{
	const struct verbs_device_ops *ops;
	struct verbs_device *vdev;

	if (sd->driver_id != RDMA_DRIVER_UNKNOWN)
		for (unsigned int i = 0; (ops = driver_at(i)); i++)
			if (lv_kern_match_driver_id(ops->match_table,
						    sd->driver_id) &&
			    (vdev = try_driver(ops, sd)))
				return vdev;
	for (unsigned int i = 0; (ops = driver_at(i)); i++)
		if ((vdev = try_driver(ops, sd)))
			return vdev;
	return NULL;
}

static void load_driver(const char *name)
{
	char so[PATH_MAX];

	if (!name[0])
		return;
	if (name[0] == '/') {
		snprintf(so, sizeof(so), "%s" LV_PROVIDER_SUFFIX, name);
		if (dlopen(so, RTLD_NOW))
			return;
		goto err;
	}
	if (sizeof(LV_PROVIDER_DIR) > 1) {
		snprintf(so, sizeof(so), LV_PROVIDER_DIR "/lib%s"
			 LV_PROVIDER_SUFFIX, name);
		if (dlopen(so, RTLD_NOW))
			return;
	}
	snprintf(so, sizeof(so), "lib%s" LV_PROVIDER_SUFFIX, name);
	if (dlopen(so, RTLD_NOW))
		return;
err:
	fprintf(stderr, PFX "Warning: couldn't load driver '%s': %s\n", so,
		dlerror());
}

static void load_config_file(const char *path)
{
	char *line = NULL, name[NAME_MAX + 1];
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		fprintf(stderr, PFX "Warning: couldn't read config file %s.\n",
			path);
		return;
	}
	while (getline(&line, &cap, f) != -1) {
		int r = lv_kern_conf_line(line, name, sizeof(name));

		if (r == 1)
			load_driver(name);
		else if (r < 0)
			fprintf(stderr, PFX "Warning: ignoring bad config "
				"directive '%s' in file '%s'.\n",
				strtok(line, "\n\t "), path);
	}
	free(line);
	fclose(f);
}

static const char *config_dir(void)
{
	const char *d = getenv("IBV_CONFIG_DIR");

	/* The caller's environment is trusted only when not setuid. */
	return d && *d && getuid() == geteuid() ? d : LV_CONFIG_DIR;
}

static void load_env_drivers(void)
{
	const char *env = getenv("RDMAV_DRIVERS");
	char *list, *save = NULL;

	if (getuid() != geteuid())
		return;
	if (!env)
		env = getenv("IBV_DRIVERS");
	if (!env || !(list = strdup(env)))
		return;
	for (char *n = strtok_r(list, ":;", &save); n;
	     n = strtok_r(NULL, ":;", &save))
		load_driver(n);
	free(list);
}

static void load_drivers(void)
{
	const char *dir = config_dir();
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	load_env_drivers();
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, PFX "Warning: couldn't open config directory "
			"'%s'.\n", dir);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			load_config_file(path);
	}
	closedir(d);
}

/* The kernel ABI of the uverbs class itself (rdma-core accepts 6 only). */
static bool class_abi_ok(void)
{
	char val[16];
	long v;

	if (ibv_read_sysfs_file(ibv_get_sysfs_path(),
				"class/infiniband_verbs/abi_version", val,
				sizeof(val)) < 0)
		return false;
	v = strtol(val, NULL, 10);
	if (v != IB_USER_VERBS_ABI_VERSION) {
		fprintf(stderr, PFX "Fatal: kernel ABI version %ld doesn't "
			"match library version %d.\n", v,
			IB_USER_VERBS_ABI_VERSION);
		return false;
	}
	return true;
}

/* Reads every usable uverbs device; count, or -errno. */
static int scan_sysfs(DIR *d, struct verbs_sysfs_dev **found, int max)
{
	struct dirent *de;
	int n = 0;

	while (n < max && (de = readdir(d))) {
		struct verbs_sysfs_dev *sd;

		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, "uverbs", 6) != 0)
			continue;
		sd = calloc(1, sizeof(*sd));
		if (!sd) {
			while (n)
				free(found[--n]);
			return -ENOMEM;
		}
		if (read_uverbs(dirfd(d), de->d_name, sd) < 0) {
			free(sd);
			continue;
		}
		found[n++] = sd;
	}
	return n;
}

/*
 * What RDMA netlink says of the devices found in sysfs, as rdma-core does
 * first: each one's kernel index (ibv_get_device_index) and driver id,
 * which the kernel gives for every driver, where sysfs names only those
 * with a bound parent device (a renamed rxe device is found by it alone).
 * Only over the real sysfs: a SYSFS_PATH tree is a fixture, and the
 * kernel's devices are not its devices.  Without netlink sysfs stands.
 */
static void apply_netlink(struct verbs_sysfs_dev **found, int count)
{
	struct lv_kern_nl_dev *nl;
	int n;

	if (count <= 0 || strcmp(ibv_get_sysfs_path(), "/sys") != 0)
		return;
	nl = calloc(LV_MAX_KDEVS, sizeof(*nl));
	if (!nl)
		return;
	n = lv_kern_nl_devices(nl, LV_MAX_KDEVS);
	if (n < 0 && lv_kern_warn_on())
		fprintf(stderr, PFX "Warning: RDMA netlink: %s; using sysfs "
			"only\n", strerror(-n));
	for (int i = 0; i < count; i++) {
		struct verbs_sysfs_dev *sd = found[i];
		const struct lv_kern_nl_dev *d =
			lv_kern_nl_find(nl, n, sd->sysfs_name, sd->ibdev_name);

		if (!d)
			continue;
		sd->ibdev_idx = d->index <= INT32_MAX ? (int)d->index : -1;
		if (d->driver_id != RDMA_DRIVER_UNKNOWN)
			sd->driver_id = d->driver_id;
	}
	free(nl);
}

/* Makes (or finds cached) the device of sd, which it consumes. */
static struct verbs_device *device_of(struct verbs_sysfs_dev *sd)
{
	struct verbs_device *vdev;

	for (unsigned int i = 0; i < n_cache; i++)
		if (cache[i] && same_dev(cache[i]->sysfs, sd)) {
			vdev = cache[i];
			cache[i] = NULL;
			free(sd);
			return vdev;
		}
	vdev = try_drivers(sd);
	if (!vdev && !drivers_loaded) {
		drivers_loaded = true;
		load_drivers();
		vdev = try_drivers(sd);
	}
	if (!vdev) {
		if (lv_kern_warn_on())
			fprintf(stderr, PFX "Warning: no userspace "
				"device-specific driver found for %s (%s)\n",
				sd->ibdev_name, sd->sysfs_name);
		free(sd);
	}
	return vdev;
}

static int append(struct ibv_device ***list, int *n,
		  struct verbs_device **devs, unsigned int count)
{
	struct ibv_device **grown;

	if (!count)
		return 0;
	grown = realloc(*list, sizeof(**list) * ((size_t)*n + count + 1));
	if (!grown)
		return -ENOMEM;
	*list = grown;
	for (unsigned int i = 0; i < count; i++) {
		lv_kern_dev_hold(&devs[i]->device);
		grown[(*n)++] = &devs[i]->device;
	}
	grown[*n] = NULL;
	return 0;
}

int lv_kern_add_devices(struct ibv_device ***list, int *n)
{
	struct verbs_sysfs_dev *found[LV_MAX_KDEVS];
	struct verbs_device *made[LV_MAX_KDEVS];
	char class_path[IBV_SYSFS_PATH_MAX];
	unsigned int n_made = 0;
	int count, ret;
	DIR *d;

	snprintf(class_path, sizeof(class_path), "%s/class/infiniband_verbs",
		 ibv_get_sysfs_path());
	d = opendir(class_path);
	if (!d)
		return 0;		/* no kernel RDMA here: the common case */
	pthread_mutex_lock(&scan_lock);
	count = scan_sysfs(d, found, LV_MAX_KDEVS);
	closedir(d);
	apply_netlink(found, count);
	if (count > 0 && !class_abi_ok()) {
		for (int i = 0; i < count; i++)
			free(found[i]);
		count = 0;
	}
	for (int i = 0; i < count; i++) {
		struct verbs_device *v = device_of(found[i]);

		if (v)
			made[n_made++] = v;
	}
	/* Devices gone from sysfs leave the cache; the rest are the new one. */
	for (unsigned int i = 0; i < n_cache; i++)
		if (cache[i])
			lv_kern_dev_put(&cache[i]->device);
	memcpy(cache, made, sizeof(made[0]) * n_made);
	n_cache = n_made;
	ret = count < 0 ? count : append(list, n, made, n_made);
	pthread_mutex_unlock(&scan_lock);
	return ret;
}

/* sysfs node_guid is four groups of 16 bits, "fe80:0000:..." style. */
__be64 lv_kern_dev_guid(struct ibv_device *dev)
{
	struct verbs_sysfs_dev *sd = lv_vdev(dev)->sysfs;
	unsigned int p[4];
	char val[32];

	if (!(sd->flags & LV_SYSFS_READ_NODE_GUID)) {
		if (ibv_read_sysfs_file(sd->ibdev_path, "node_guid", val,
					sizeof(val)) <= 0 ||
		    sscanf(val, "%x:%x:%x:%x", &p[0], &p[1], &p[2], &p[3]) != 4)
			return 0;
		sd->node_guid = (uint64_t)p[0] << 48 | (uint64_t)p[1] << 32 |
				(uint64_t)p[2] << 16 | p[3];
		sd->flags |= LV_SYSFS_READ_NODE_GUID;
	}
	return htobe64(sd->node_guid);
}
