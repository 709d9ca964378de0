// SPDX-License-Identifier: MIT
/*
 * JSON configuration parsing.  Unknown keys are errors rather than being
 * ignored: a misspelt "slotsPerDevice" silently falling back to a default
 * is exactly the kind of surprise an operator cannot see from outside.
 */
#include "device-plugin/dp_config.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DP_CONFIG_MAX_BYTES (1 << 20)

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Joins a parent key path and a child key for messages. */
static void key_path(char *out, size_t cap, const char *parent,
		     const char *key)
{
	if (parent[0])
		snprintf(out, cap, "%s.%s", parent, key);
	else
		snprintf(out, cap, "%s", key);
}

static int check_keys(const cJSON *obj, const char *where,
		      const char *const *allowed, char *err, size_t errlen)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, obj) {
		int ok = 0;

		for (const char *const *a = allowed; *a; a++)
			if (strcmp(it->string, *a) == 0)
				ok = 1;
		if (!ok)
			return fail(err, errlen, "%s%sunknown key \"%s\"",
				    where[0] ? where : "", where[0] ? ": " : "",
				    it->string);
	}
	return 0;
}

static int get_str(const cJSON *obj, const char *key, const char *where,
		   char *dst, size_t cap, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char kp[160];

	if (!v)
		return 0;
	key_path(kp, sizeof(kp), where, key);
	if (!cJSON_IsString(v))
		return fail(err, errlen, "%s: expected a string", kp);
	if (strlen(v->valuestring) >= cap)
		return fail(err, errlen, "%s: longer than %zu bytes", kp,
			    cap - 1);
	strcpy(dst, v->valuestring);
	return 0;
}

static int get_uint(const cJSON *obj, const char *key, const char *where,
		    unsigned min, unsigned max, unsigned *dst,
		    char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char kp[160];

	if (!v)
		return 0;
	key_path(kp, sizeof(kp), where, key);
	/* Range first: converting a double outside long long's range is
	 * undefined (C11 6.3.1.4); found by fuzz_dp_config. */
	if (!cJSON_IsNumber(v) ||
	    !(v->valuedouble > -1e18 && v->valuedouble < 1e18) ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return fail(err, errlen, "%s: expected an integer", kp);
	if (v->valuedouble < min || v->valuedouble > max)
		return fail(err, errlen, "%s: %lld is out of range %u..%u",
			    kp, (long long)v->valuedouble, min, max);
	*dst = (unsigned)v->valuedouble;
	return 0;
}

static int get_bool(const cJSON *obj, const char *key, const char *where,
		    bool *dst, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char kp[160];

	if (!v)
		return 0;
	key_path(kp, sizeof(kp), where, key);
	if (!cJSON_IsBool(v))
		return fail(err, errlen, "%s: expected true or false", kp);
	*dst = cJSON_IsTrue(v);
	return 0;
}

static bool is_hex4(const char *s)
{
	if (strncmp(s, "0x", 2) == 0)
		s += 2;
	if (strlen(s) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

enum list_check { LIST_ANY, LIST_HEX4, LIST_LINK };

static int get_list(const cJSON *obj, const char *key, const char *where,
		    enum list_check check, struct dp_strlist *dst,
		    char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	const cJSON *it;
	char kp[160];

	if (!v)
		return 0;
	key_path(kp, sizeof(kp), where, key);
	if (!cJSON_IsArray(v))
		return fail(err, errlen, "%s: expected an array of strings", kp);
	if (cJSON_GetArraySize(v) > DP_MAX_SELECT)
		return fail(err, errlen, "%s: more than %d entries", kp,
			    DP_MAX_SELECT);
	cJSON_ArrayForEach(it, v) {
		int i = dst->n;
		const char *s = cJSON_IsString(it) ? it->valuestring : NULL;

		if (!s || !s[0] || strlen(s) >= DP_NAME_MAX)
			return fail(err, errlen, "%s[%d]: expected a non-empty "
				    "string shorter than %d bytes", kp, i,
				    DP_NAME_MAX);
		if (check == LIST_HEX4 && !is_hex4(s))
			return fail(err, errlen, "%s[%d]: \"%s\" is not 4 hex "
				    "digits", kp, i, s);
		if (check == LIST_LINK && strcasecmp(s, "ether") &&
		    strcasecmp(s, "ethernet") && strcasecmp(s, "infiniband") &&
		    strcasecmp(s, "ib"))
			return fail(err, errlen, "%s[%d]: \"%s\" is not \"ether\" "
				    "or \"infiniband\"", kp, i, s);
		strcpy(dst->v[i], s);
		dst->n++;
	}
	return 0;
}

/* "domain/name", DNS-ish characters; the name part also names our socket. */
static int check_resource(const char *name, const char *kp, char *err,
			  size_t errlen)
{
	const char *slash = strchr(name, '/');

	if (!slash || slash == name || !slash[1] || strchr(slash + 1, '/'))
		return fail(err, errlen, "%s: \"%s\" is not of the form "
			    "domain/name", kp, name);
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-._/", *p))
			return fail(err, errlen, "%s: \"%s\" has an invalid "
				    "character '%c'", kp, name, *p);
	if (strlen(slash + 1) >= DP_NAME_MAX)
		return fail(err, errlen, "%s: name part too long", kp);
	return 0;
}

static int parse_selectors(const cJSON *obj, const char *where,
			   struct dp_selectors *sel, char *err, size_t errlen)
{
	static const char *const keys[] = { "vendors", "deviceIDs", "drivers",
		"ifNames", "linkTypes", "rdmaDevices", NULL };
	int ret;

	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "%s: expected an object", where);
	ret = check_keys(obj, where, keys, err, errlen);
	if (!ret)
		ret = get_list(obj, "vendors", where, LIST_HEX4, &sel->vendors,
			       err, errlen);
	if (!ret)
		ret = get_list(obj, "deviceIDs", where, LIST_HEX4,
			       &sel->device_ids, err, errlen);
	if (!ret)
		ret = get_list(obj, "drivers", where, LIST_ANY, &sel->drivers,
			       err, errlen);
	if (!ret)
		ret = get_list(obj, "ifNames", where, LIST_ANY, &sel->if_names,
			       err, errlen);
	if (!ret)
		ret = get_list(obj, "linkTypes", where, LIST_LINK,
			       &sel->link_types, err, errlen);
	if (!ret)
		ret = get_list(obj, "rdmaDevices", where, LIST_ANY,
			       &sel->rdma_devices, err, errlen);
	return ret;
}

static void derive_socket_name(struct dp_pool_config *p)
{
	snprintf(p->socket_name, sizeof(p->socket_name), "podverbs-%s.sock",
		 strchr(p->resource_name, '/') + 1);
}

static int parse_kernel_pool(const cJSON *obj, const char *where,
			     struct dp_pool_config *p, char *err, size_t errlen)
{
	static const char *const keys[] = { "resourceName", "mode",
		"slotsPerDevice", "umad", "selectors", NULL };
	const cJSON *sel = cJSON_GetObjectItemCaseSensitive(obj, "selectors");
	char mode[16] = "exclusive", kp[160];
	int ret;

	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "%s: expected an object", where);
	p->kind = DP_POOL_KERNEL;
	p->slots = 1;
	ret = check_keys(obj, where, keys, err, errlen);
	if (!ret)
		ret = get_str(obj, "resourceName", where, p->resource_name,
			      sizeof(p->resource_name), err, errlen);
	if (!ret)
		ret = get_str(obj, "mode", where, mode, sizeof(mode), err,
			      errlen);
	if (!ret)
		ret = get_uint(obj, "slotsPerDevice", where, 1, DP_MAX_SLOTS,
			       &p->slots, err, errlen);
	if (!ret)
		ret = get_bool(obj, "umad", where, &p->umad, err, errlen);
	if (ret)
		return ret;
	key_path(kp, sizeof(kp), where, "resourceName");
	if (!p->resource_name[0])
		return fail(err, errlen, "%s: missing", kp);
	ret = check_resource(p->resource_name, kp, err, errlen);
	if (ret)
		return ret;
	key_path(kp, sizeof(kp), where, "mode");
	if (strcmp(mode, "exclusive") == 0)
		p->mode = DP_MODE_EXCLUSIVE;
	else if (strcmp(mode, "shared") == 0)
		p->mode = DP_MODE_SHARED;
	else
		return fail(err, errlen, "%s: \"%s\" is not \"shared\" or "
			    "\"exclusive\"", kp, mode);
	if (p->mode == DP_MODE_EXCLUSIVE)
		p->slots = 1;
	key_path(kp, sizeof(kp), where, "selectors");
	if (!sel)
		return fail(err, errlen, "%s: missing (a pool must select "
			    "devices)", kp);
	ret = parse_selectors(sel, kp, &p->sel, err, errlen);
	derive_socket_name(p);
	return ret;
}

static int parse_soft(const cJSON *obj, struct dp_pool_config *p,
		      char *err, size_t errlen)
{
	static const char *const keys[] = { "resourceName", "count", NULL };
	int ret;

	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "soft: expected an object");
	ret = check_keys(obj, "soft", keys, err, errlen);
	if (!ret)
		ret = get_str(obj, "resourceName", "soft", p->resource_name,
			      sizeof(p->resource_name), err, errlen);
	if (!ret)
		ret = get_uint(obj, "count", "soft", 0, DP_MAX_SLOTS, &p->slots,
			       err, errlen);
	if (!ret)
		ret = check_resource(p->resource_name, "soft.resourceName",
				     err, errlen);
	if (!ret)
		derive_socket_name(p);
	return ret;
}

static void set_defaults(struct dp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->plugin_dir, DP_DEFAULT_PLUGIN_DIR);
	strcpy(cfg->registry_dir, DP_DEFAULT_REGISTRY_DIR);
	strcpy(cfg->sysfs_root, "/sys");
	strcpy(cfg->dev_dir, "/dev/infiniband");
	strcpy(cfg->metrics_addr, DP_DEFAULT_METRICS);
	cfg->health_interval_ms = 1000;
	cfg->seccomp = true;
}

static int parse_paths(const cJSON *root, struct dp_config *cfg, char *err,
		       size_t errlen)
{
	static const struct {
		const char *key;
		size_t off, cap;
	} paths[] = {
#define P(k, f) { k, offsetof(struct dp_config, f), \
		  sizeof(((struct dp_config *)0)->f) }
		P("pluginDir", plugin_dir),
		P("kubeletSocket", kubelet_socket),
		P("pluginsRegistryDir", registry_dir),
		P("engineSocket", engine_socket),
		P("containerEngineDir", container_engine_dir),
		P("sysfsRoot", sysfs_root),
		P("devDir", dev_dir),
		P("cdiSpecDir", cdi_dir),
		P("metricsAddress", metrics_addr),
#undef P
	};
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(paths) / sizeof(paths[0]); i++)
		ret = get_str(root, paths[i].key, "", (char *)cfg + paths[i].off,
			      paths[i].cap, err, errlen);
	return ret;
}

static int parse_top(const cJSON *root, struct dp_config *cfg, char *err,
		     size_t errlen)
{
	static const char *const keys[] = { "pluginDir", "kubeletSocket",
		"pluginsRegistryDir", "registration", "engineSocket",
		"containerEngineDir", "sysfsRoot", "devDir", "cdiSpecDir",
		"metricsAddress", "healthIntervalMs", "seccomp", "soft",
		"kernelPools", NULL };
	char reg[16] = "auto";
	int ret;

	if (!cJSON_IsObject(root))
		return fail(err, errlen, "top level: expected an object");
	ret = check_keys(root, "", keys, err, errlen);
	if (!ret)
		ret = parse_paths(root, cfg, err, errlen);
	if (!ret)
		ret = get_str(root, "registration", "", reg, sizeof(reg), err,
			      errlen);
	if (!ret)
		ret = get_uint(root, "healthIntervalMs", "", 50, 60000,
			       &cfg->health_interval_ms, err, errlen);
	if (!ret)
		ret = get_bool(root, "seccomp", "", &cfg->seccomp, err, errlen);
	if (ret)
		return ret;
	if (strcmp(reg, "auto") == 0)
		cfg->reg_mode = DP_REG_AUTO;
	else if (strcmp(reg, "watcher") == 0)
		cfg->reg_mode = DP_REG_WATCHER;
	else if (strcmp(reg, "legacy") == 0)
		cfg->reg_mode = DP_REG_LEGACY;
	else
		return fail(err, errlen, "registration: \"%s\" is not \"auto\", "
			    "\"watcher\" or \"legacy\"", reg);
	return 0;
}

static int parse_pools(const cJSON *root, struct dp_config *cfg, char *err,
		       size_t errlen)
{
	const cJSON *soft = cJSON_GetObjectItemCaseSensitive(root, "soft");
	const cJSON *kp = cJSON_GetObjectItemCaseSensitive(root, "kernelPools");
	struct dp_pool_config *p = &cfg->pools[0];
	const cJSON *it;
	int i = 0, ret;

	p->kind = DP_POOL_SOFT;
	p->mode = DP_MODE_SHARED;
	strcpy(p->resource_name, DP_DEFAULT_SOFT_NAME);
	p->slots = DP_DEFAULT_SOFT_COUNT;
	derive_socket_name(p);
	if (soft) {
		ret = parse_soft(soft, p, err, errlen);
		if (ret)
			return ret;
	}
	if (p->slots > 0)
		cfg->npools = 1;
	if (!kp)
		return 0;
	if (!cJSON_IsArray(kp))
		return fail(err, errlen, "kernelPools: expected an array");
	cJSON_ArrayForEach(it, kp) {
		char where[32];

		snprintf(where, sizeof(where), "kernelPools[%d]", i++);
		if (cfg->npools == DP_MAX_POOLS)
			return fail(err, errlen, "%s: more than %d pools", where,
				    DP_MAX_POOLS);
		p = &cfg->pools[cfg->npools];
		ret = parse_kernel_pool(it, where, p, err, errlen);
		if (ret)
			return ret;
		for (int j = 0; j < cfg->npools; j++)
			if (strcmp(cfg->pools[j].socket_name, p->socket_name) == 0)
				return fail(err, errlen, "%s.resourceName: \"%s\" "
					    "clashes with another pool's name",
					    where, p->resource_name);
		cfg->npools++;
	}
	return 0;
}

int dp_config_split_addr(const char *addr, char *host, size_t hostlen,
			 unsigned *port)
{
	const char *colon = strrchr(addr, ':');
	char *end;
	unsigned long p;

	if (!colon || (size_t)(colon - addr) >= hostlen)
		return -EINVAL;
	memcpy(host, addr, colon - addr);
	host[colon - addr] = 0;
	p = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || p == 0 || p > 65535)
		return -EINVAL;
	/* Metrics stay on the node: only loopback addresses are accepted. */
	if (strncmp(host, "127.", 4) && strcmp(host, "localhost") &&
	    strcmp(host, "[::1]"))
		return -EINVAL;
	*port = (unsigned)p;
	return 0;
}

static int check_derived(struct dp_config *cfg, char *err, size_t errlen)
{
	char host[64];
	unsigned port;

	if (!cfg->kubelet_socket[0] &&
	    snprintf(cfg->kubelet_socket, sizeof(cfg->kubelet_socket),
		     "%s/kubelet.sock", cfg->plugin_dir) >=
	    (int)sizeof(cfg->kubelet_socket))
		return fail(err, errlen, "pluginDir: too long");
	if (!cfg->engine_socket[0])
		strcpy(cfg->engine_socket, "/run/podverbs/engine.sock");
	if (cfg->engine_socket[0] != '/')
		return fail(err, errlen, "engineSocket: \"%s\" is not an "
			    "absolute path", cfg->engine_socket);
	if (!cfg->container_engine_dir[0]) {
		char *slash;

		strcpy(cfg->container_engine_dir, cfg->engine_socket);
		slash = strrchr(cfg->container_engine_dir, '/');
		*(slash == cfg->container_engine_dir ? slash + 1 : slash) = 0;
	}
	if (cfg->metrics_addr[0] &&
	    dp_config_split_addr(cfg->metrics_addr, host, sizeof(host), &port))
		return fail(err, errlen, "metricsAddress: \"%s\" is not a "
			    "loopback host:port", cfg->metrics_addr);
	return 0;
}

int dp_config_parse(const char *json, struct dp_config *cfg, char *err,
		    size_t errlen)
{
	cJSON *root;
	int ret;

	set_defaults(cfg);
	root = cJSON_Parse(json);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();

		return fail(err, errlen, "not valid JSON near \"%.20s\"",
			    at ? at : "");
	}
	ret = parse_top(root, cfg, err, errlen);
	if (!ret)
		ret = parse_pools(root, cfg, err, errlen);
	if (!ret)
		ret = check_derived(cfg, err, errlen);
	cJSON_Delete(root);
	return ret;
}

int dp_config_load(const char *path, struct dp_config *cfg, char *err,
		   size_t errlen)
{
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(DP_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf + got, DP_CONFIG_MAX_BYTES - got)) > 0)
		got += n;
	close(fd);
	if (n < 0 || got == DP_CONFIG_MAX_BYTES) {
		snprintf(err, errlen, "%s: unreadable or larger than %d bytes",
			 path, DP_CONFIG_MAX_BYTES - 1);
		free(buf);
		return -EINVAL;
	}
	buf[got] = 0;
	ret = dp_config_parse(buf, cfg, err, errlen);
	free(buf);
	return ret;
}
