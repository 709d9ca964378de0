/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cni-plugin/cni_conf.h"

static const char *const versions[CNI_V_COUNT] = {
	"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0",
};

enum cni_ver cni_version_parse(const char *s)
{
	for (int i = 0; s && i < CNI_V_COUNT; i++)
		if (strcmp(s, versions[i]) == 0)
			return i;
	return CNI_V_UNKNOWN;
}

const char *cni_version_str(enum cni_ver v)
{
	if (v < 0 || v >= CNI_V_COUNT)
		return CNI_LATEST_VERSION;
	return versions[v];
}

const char *cni_conf_peek_version(const char *json, size_t len, char *buf,
				  size_t cap)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "cniVersion");
	const char *ret = NULL;

	if (cJSON_IsString(v) && strlen(v->valuestring) < cap) {
		strcpy(buf, v->valuestring);
		ret = buf;
	}
	cJSON_Delete(root);
	return ret;
}

/* Network names: alphanumeric first, then [A-Za-z0-9_.-] (CNI spec). */
static int netname_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= CNI_NETNAME_MAX || !isalnum((unsigned char)s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* RDMA device names: what the kernel and rdma-core accept without fuss. */
static int devname_valid(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* PCI addresses: "0000:01:00.0" (domain optional). */
static int pci_valid(const char *s)
{
	size_t n = strlen(s);

	if (n < 7 || n >= CNI_PCI_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
			return 0;
	return 1;
}

/* A P_Key's low 15 bits are the partition; 0 is invalid (IBA 10.9.1). */
int cni_pkey_parse(const cJSON *item, uint16_t *ret_pkey)
{
	long long v;
	char *end;

	if (cJSON_IsNumber(item)) {
		/* Range first: converting a double outside long long's
		 * range is undefined (C11 6.3.1.4); found by fuzz_cni_conf. */
		if (!(item->valuedouble > -1e18 && item->valuedouble < 1e18) ||
		    item->valuedouble != (double)(long long)item->valuedouble)
			return -EINVAL;
		v = (long long)item->valuedouble;
	} else if (cJSON_IsString(item) && item->valuestring[0]) {
		errno = 0;
		v = strtoll(item->valuestring, &end, 0);
		if (errno || *end)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (v <= 0 || v > 0xffff || (v & 0x7fff) == 0)
		return -ERANGE;
	*ret_pkey = (uint16_t)v;
	return 0;
}

/* Copies an optional string key; returns -EINVAL if present but not a
 * string that fits. */
static int opt_string(const cJSON *obj, const char *key, char *dst,
		      size_t cap)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it) || strlen(it->valuestring) >= cap)
		return -EINVAL;
	strcpy(dst, it->valuestring);
	return 0;
}

static int parse_identity(struct cni_conf *conf, struct cni_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(conf->root,
							  "cniVersion");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(conf->root, "name");

	if (!cJSON_IsString(v))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"cniVersion\" is missing or not a string");
	conf->version = v->valuestring;
	conf->ver = cni_version_parse(v->valuestring);
	if (conf->ver == CNI_V_UNKNOWN) {
		cni_fail(err, CNI_ERR_INCOMPATIBLE_VERSION,
			 "cniVersion \"%.32s\" is not supported", v->valuestring);
		cni_fail_details(err, "supported: 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0");
		return -EINVAL;
	}
	/* GC and STATUS configs of some runtimes omit nothing; VERSION's
	 * input has no name, so name is checked where it is needed. */
	if (name && (!cJSON_IsString(name) || !netname_valid(name->valuestring)))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"name\" must be 1-63 of [A-Za-z0-9_.-] starting with a letter or digit");
	if (name)
		strcpy(conf->name, name->valuestring);
	return 0;
}

static int parse_mode(struct cni_conf *conf, struct cni_err *err)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(conf->root, "mode");
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(conf->root,
							   "runtimeConfig");
	char pci[CNI_PCI_MAX] = "";

	if (m && !cJSON_IsNull(m)) {
		if (cJSON_IsString(m) && !strcmp(m->valuestring, "soft"))
			conf->mode = CNI_MODE_SOFT;
		else if (cJSON_IsString(m) && !strcmp(m->valuestring, "kernel"))
			conf->mode = CNI_MODE_KERNEL;
		else
			return cni_fail(err, CNI_ERR_INVALID_CONFIG,
					"network config: \"mode\" must be \"soft\" or \"kernel\"");
	}
	if (opt_string(conf->root, "device", conf->kernel_device,
		       sizeof(conf->kernel_device)) ||
	    (conf->kernel_device[0] &&
	     !devname_valid(conf->kernel_device, CNI_KDEV_MAX)))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"device\" is not a valid RDMA device name");
	if (opt_string(conf->root, "deviceID", conf->device_id,
		       sizeof(conf->device_id)) ||
	    (cJSON_IsObject(rc) &&
	     opt_string(rc, "deviceID", pci, sizeof(pci))))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"deviceID\" must be a PCI address string");
	if (pci[0])
		strcpy(conf->device_id, pci);
	if (conf->device_id[0] && !pci_valid(conf->device_id))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: deviceID \"%s\" is not a PCI address",
				conf->device_id);
	return 0;
}

static int parse_device(struct cni_conf *conf, struct cni_err *err)
{
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(conf->root, "pkey");

	if (pk && !cJSON_IsNull(pk) && cni_pkey_parse(pk, &conf->pkey) < 0)
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"pkey\" must be 0x0001-0xffff with a non-zero partition (low 15 bits), as a number or a string like \"0x8001\"");
	if (opt_string(conf->root, "deviceName", conf->device_name,
		       sizeof(conf->device_name)) ||
	    (conf->device_name[0] &&
	     !devname_valid(conf->device_name, CNI_DEVNAME_MAX)))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"deviceName\" must be 1-63 of [A-Za-z0-9_.-]");
	if (opt_string(conf->root, "engineSocket", conf->engine_socket,
		       sizeof(conf->engine_socket)) ||
	    (conf->engine_socket[0] && conf->engine_socket[0] != '/'))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"engineSocket\" must be an absolute path");
	if (opt_string(conf->root, "adminSocket", conf->admin_socket,
		       sizeof(conf->admin_socket)) ||
	    (conf->admin_socket[0] && conf->admin_socket[0] != '/'))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"adminSocket\" must be an absolute path");
	if (opt_string(conf->root, "stateDir", conf->state_dir,
		       sizeof(conf->state_dir)) ||
	    (conf->state_dir[0] && conf->state_dir[0] != '/'))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"network config: \"stateDir\" must be an absolute path under 200 bytes");
	if (!conf->state_dir[0])
		strcpy(conf->state_dir, CNI_DEFAULT_STATE_DIR);
	return 0;
}

static void find_attachments(struct cni_conf *conf)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		conf->root, "cni.dev/valid-attachments");

	/* Early 1.1.0 drafts and some runtimes use the shorter key. */
	if (!a)
		a = cJSON_GetObjectItemCaseSensitive(conf->root,
						     "cni.dev/attachments");
	conf->attachments = a;
}

int cni_conf_parse(struct cni_conf *conf, const char *json, size_t len,
		   struct cni_err *err)
{
	const cJSON *prev;

	memset(conf, 0, sizeof(*conf));
	conf->ver = CNI_V_UNKNOWN;
	conf->root = cJSON_ParseWithLength(json, len);
	if (!conf->root)
		return cni_fail(err, CNI_ERR_DECODE,
				"network config on stdin is not valid JSON");
	if (!cJSON_IsObject(conf->root))
		return cni_fail(err, CNI_ERR_DECODE,
				"network config on stdin is not a JSON object");
	if (parse_identity(conf, err) || parse_mode(conf, err) ||
	    parse_device(conf, err))
		return -EINVAL;
	prev = cJSON_GetObjectItemCaseSensitive(conf->root, "prevResult");
	if (prev && !cJSON_IsNull(prev)) {
		if (!cJSON_IsObject(prev))
			return cni_fail(err, CNI_ERR_DECODE,
					"network config: \"prevResult\" is not an object");
		conf->prev_result = prev;
	}
	find_attachments(conf);
	return 0;
}

void cni_conf_free(struct cni_conf *conf)
{
	cJSON_Delete(conf->root);
	conf->root = NULL;
	conf->prev_result = NULL;
	conf->attachments = NULL;
}

void cni_conf_defaults(struct cni_conf *conf, const char *ifname,
		       const char *engine_env)
{
	if (!conf->device_name[0]) {
		snprintf(conf->device_name, sizeof(conf->device_name), "pv_%s",
			 ifname);
		/* Interface names allow more than device names do. */
		for (char *p = conf->device_name; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
				*p = '_';
	}
	if (!conf->engine_socket[0]) {
		const char *s = engine_env && engine_env[0] == '/' &&
			strlen(engine_env) < sizeof(conf->engine_socket) ?
			engine_env : PV_IPC_DEFAULT_SOCKET;
		strcpy(conf->engine_socket, s);
	}
}
