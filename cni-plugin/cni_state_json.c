/* SPDX-License-Identifier: MIT */
/* State records as JSON text (pure; see cni_state.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "cni-plugin/cni_state.h"

int cni_state_key(const char *network, const char *cid, const char *ifname,
		  char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s@%s@%s", network, cid, ifname);

	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	return 0;
}

char *cni_state_to_json(const struct cni_state *st)
{
	cJSON *o = cJSON_CreateObject();
	char *out;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "network", st->network);
	cJSON_AddStringToObject(o, "containerID", st->containerid);
	cJSON_AddStringToObject(o, "ifname", st->ifname);
	cJSON_AddStringToObject(o, "netns", st->netns);
	cJSON_AddNumberToObject(o, "netnsDev", (double)st->netns_dev);
	cJSON_AddNumberToObject(o, "netnsIno", (double)st->netns_ino);
	cJSON_AddStringToObject(o, "phase", st->phase == CNI_PHASE_READY ?
				"ready" : "adding");
	cJSON_AddStringToObject(o, "mode", st->mode == CNI_MODE_KERNEL ?
				"kernel" : "soft");
	cJSON_AddStringToObject(o, "engineSocket", st->engine_socket);
	if (st->admin_socket[0])
		cJSON_AddStringToObject(o, "adminSocket", st->admin_socket);
	cJSON_AddStringToObject(o, "deviceName", st->device_name);
	cJSON_AddNumberToObject(o, "devId", st->dev_id);
	cJSON_AddNumberToObject(o, "pkey", st->pkey);
	cJSON_AddStringToObject(o, "kernelDevice", st->kernel_device);
	cJSON_AddNumberToObject(o, "kernelIndex", st->kernel_index);
	cJSON_AddBoolToObject(o, "moved", st->moved);
	out = cJSON_Print(o);
	cJSON_Delete(o);
	return out;
}

static int get_str(const cJSON *o, const char *key, char *dst, size_t cap)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(it) || strlen(it->valuestring) >= cap)
		return -EBADMSG;
	strcpy(dst, it->valuestring);
	return 0;
}

static int get_u32(const cJSON *o, const char *key, uint32_t max,
		   uint32_t *dst)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
	    it->valuedouble > max)
		return -EBADMSG;
	*dst = (uint32_t)it->valuedouble;
	return 0;
}

/* Optional (records of older plugins lack it): 0 when absent.  Exact in a
 * double up to 2^53, far above any st_dev or nsfs inode number. */
static int get_opt_u64(const cJSON *o, const char *key, uint64_t *dst)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	*dst = 0;
	if (!it)
		return 0;
	if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
	    it->valuedouble > 9007199254740992.0)
		return -EBADMSG;
	*dst = (uint64_t)it->valuedouble;
	return 0;
}

static int get_enums(const cJSON *o, struct cni_state *st)
{
	const cJSON *phase = cJSON_GetObjectItemCaseSensitive(o, "phase");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(o, "mode");
	const cJSON *moved = cJSON_GetObjectItemCaseSensitive(o, "moved");

	if (!cJSON_IsString(phase) || !cJSON_IsString(mode) ||
	    !cJSON_IsBool(moved))
		return -EBADMSG;
	st->phase = !strcmp(phase->valuestring, "ready") ?
		CNI_PHASE_READY : CNI_PHASE_ADDING;
	if (!strcmp(mode->valuestring, "kernel"))
		st->mode = CNI_MODE_KERNEL;
	else if (!strcmp(mode->valuestring, "soft"))
		st->mode = CNI_MODE_SOFT;
	else
		return -EBADMSG;
	st->moved = cJSON_IsTrue(moved);
	return 0;
}

static int get_opt_str(const cJSON *o, const char *key, char *dst,
		       size_t cap)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!it)
		return 0;
	if (!cJSON_IsString(it) || strlen(it->valuestring) >= cap)
		return -EBADMSG;
	strcpy(dst, it->valuestring);
	return 0;
}

int cni_state_from_json(const char *text, struct cni_state *ret_st)
{
	cJSON *o = cJSON_Parse(text);
	uint32_t pkey = 0;
	int ret = -EBADMSG;

	memset(ret_st, 0, sizeof(*ret_st));
	if (!cJSON_IsObject(o))
		goto out_delete;
	if (get_str(o, "network", ret_st->network, sizeof(ret_st->network)) ||
	    get_str(o, "containerID", ret_st->containerid,
		    sizeof(ret_st->containerid)) ||
	    get_str(o, "ifname", ret_st->ifname, sizeof(ret_st->ifname)) ||
	    get_str(o, "netns", ret_st->netns, sizeof(ret_st->netns)) ||
	    get_str(o, "engineSocket", ret_st->engine_socket,
		    sizeof(ret_st->engine_socket)) ||
	    get_str(o, "deviceName", ret_st->device_name,
		    sizeof(ret_st->device_name)) ||
	    get_str(o, "kernelDevice", ret_st->kernel_device,
		    sizeof(ret_st->kernel_device)) ||
	    get_u32(o, "devId", UINT32_MAX, &ret_st->dev_id) ||
	    get_u32(o, "pkey", 0xffff, &pkey) ||
	    get_u32(o, "kernelIndex", UINT32_MAX, &ret_st->kernel_index) ||
	    get_opt_u64(o, "netnsDev", &ret_st->netns_dev) ||
	    get_opt_u64(o, "netnsIno", &ret_st->netns_ino) ||
	    get_enums(o, ret_st))
		goto out_delete;
	/* Optional: records of older plugins have none. */
	if (get_opt_str(o, "adminSocket", ret_st->admin_socket,
			sizeof(ret_st->admin_socket)))
		goto out_delete;
	ret_st->pkey = (uint16_t)pkey;
	ret = 0;
out_delete:
	cJSON_Delete(o);
	return ret;
}
