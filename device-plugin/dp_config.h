/* SPDX-License-Identifier: MIT */
/*
 * Device plugin configuration: a JSON file (cJSON) naming the kubelet paths,
 * the engine socket, the soft pool and the kernel pools with their
 * selectors.  Parsing is pure (no I/O besides dp_config_load reading the
 * file) so it is unit-tested; every error names the offending key path,
 * e.g. "kernelPools[1].selectors.vendors[0]: expected 4 hex digits".
 */
#ifndef DP_CONFIG_H
#define DP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* Limits on what a config may ask for, declared once here. */
#define DP_MAX_POOLS		16
#define DP_MAX_SELECT		16	/* entries per selector list */
#define DP_MAX_SLOTS		1024	/* soft slots, or slots per device */
#define DP_NAME_MAX		64
#define DP_RESOURCE_MAX		128
#define DP_PATH_MAX		256

#define DP_DEFAULT_PLUGIN_DIR	"/var/lib/kubelet/device-plugins"
#define DP_DEFAULT_REGISTRY_DIR	"/var/lib/kubelet/plugins_registry"
#define DP_DEFAULT_SOFT_NAME	"podverbs.io/soft-rdma"
#define DP_DEFAULT_SOFT_COUNT	64
#define DP_DEFAULT_METRICS	"127.0.0.1:9456"

enum dp_pool_kind {
	DP_POOL_SOFT,
	DP_POOL_KERNEL,
};

enum dp_share_mode {
	DP_MODE_EXCLUSIVE,	/* one pod per device */
	DP_MODE_SHARED,		/* slots per device */
};

enum dp_reg_mode {
	DP_REG_AUTO,		/* watcher when the registry folder exists */
	DP_REG_WATCHER,
	DP_REG_LEGACY,
};

struct dp_strlist {
	int n;
	char v[DP_MAX_SELECT][DP_NAME_MAX];
};

/* A kernel device matches when every non-empty list contains its value. */
struct dp_selectors {
	struct dp_strlist vendors;	/* PCI vendor, 4 hex digits */
	struct dp_strlist device_ids;	/* PCI device, 4 hex digits */
	struct dp_strlist drivers;	/* kernel driver, e.g. mlx5_core */
	struct dp_strlist if_names;	/* net interface of the device */
	struct dp_strlist link_types;	/* "ether" or "infiniband" */
	struct dp_strlist rdma_devices;	/* e.g. mlx5_0 */
};

struct dp_pool_config {
	char resource_name[DP_RESOURCE_MAX];	/* domain/name */
	char socket_name[DP_NAME_MAX + 16];	/* derived: podverbs-<name>.sock */
	enum dp_pool_kind kind;
	enum dp_share_mode mode;
	unsigned slots;		/* soft: count; kernel shared: per device */
	bool umad;		/* kernel: also hand out umadN */
	struct dp_selectors sel;
};

struct dp_config {
	char plugin_dir[DP_PATH_MAX];		/* pluginDir */
	char kubelet_socket[DP_PATH_MAX];	/* kubeletSocket */
	char registry_dir[DP_PATH_MAX];		/* pluginsRegistryDir */
	enum dp_reg_mode reg_mode;		/* registration */
	char engine_socket[DP_PATH_MAX];	/* engineSocket */
	char container_engine_dir[DP_PATH_MAX];	/* containerEngineDir */
	char sysfs_root[DP_PATH_MAX];		/* sysfsRoot */
	char dev_dir[DP_PATH_MAX];		/* devDir: /dev/infiniband */
	char cdi_dir[DP_PATH_MAX];		/* cdiSpecDir, "" = off */
	char metrics_addr[64];			/* metricsAddress, "" = off */
	unsigned health_interval_ms;		/* healthIntervalMs */
	bool seccomp;				/* seccomp */
	int npools;
	struct dp_pool_config pools[DP_MAX_POOLS];
};

/* Fills cfg from JSON text.  On error returns -EINVAL with a one-line
 * message naming the key in err. */
int dp_config_parse(const char *json, struct dp_config *cfg,
		    char *err, size_t errlen);

/* Reads and parses a file; -errno (message in err) on failure. */
int dp_config_load(const char *path, struct dp_config *cfg,
		   char *err, size_t errlen);

/* Pure: splits "host:port" of a loopback address; -EINVAL otherwise. */
int dp_config_split_addr(const char *addr, char *host, size_t hostlen,
			 unsigned *port);

#endif /* DP_CONFIG_H */
