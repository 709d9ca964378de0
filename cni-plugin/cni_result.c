/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cni-plugin/cni_result.h"

char *cni_result_version(const char *requested)
{
	cJSON *root = cJSON_CreateObject(), *list;
	char *out;

	if (!root)
		return NULL;
	if (cni_version_parse(requested) == CNI_V_UNKNOWN)
		requested = CNI_LATEST_VERSION;
	cJSON_AddStringToObject(root, "cniVersion", requested);
	list = cJSON_AddArrayToObject(root, "supportedVersions");
	for (int v = 0; list && v < CNI_V_COUNT; v++)
		cJSON_AddItemToArray(list,
				     cJSON_CreateString(cni_version_str(v)));
	out = cJSON_Print(root);
	cJSON_Delete(root);
	return out;
}

char *cni_result_error(const char *version, const struct cni_err *err)
{
	cJSON *root = cJSON_CreateObject();
	char *out;

	if (!root)
		return NULL;
	if (!version || cni_version_parse(version) == CNI_V_UNKNOWN)
		version = CNI_LATEST_VERSION;
	cJSON_AddStringToObject(root, "cniVersion", version);
	cJSON_AddNumberToObject(root, "code", err->code ? err->code : 999);
	cJSON_AddStringToObject(root, "msg", err->msg[0] ? err->msg :
				"unknown error");
	if (err->details[0])
		cJSON_AddStringToObject(root, "details", err->details);
	out = cJSON_Print(root);
	cJSON_Delete(root);
	return out;
}

/* Results up to 0.4.0 tag each IP with "version"; 1.0.0 dropped it. */
static void convert_ips(cJSON *ips, enum cni_ver to)
{
	cJSON *ip;

	cJSON_ArrayForEach(ip, ips) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(ip, "address");

		if (!cJSON_IsObject(ip))
			continue;
		if (to >= CNI_V_1_0_0) {
			cJSON_DeleteItemFromObjectCaseSensitive(ip, "version");
			continue;
		}
		if (cJSON_GetObjectItemCaseSensitive(ip, "version") ||
		    !cJSON_IsString(a))
			continue;
		cJSON_AddStringToObject(ip, "version",
					strchr(a->valuestring, ':') ? "6" : "4");
	}
}

cJSON *cni_result_convert(const cJSON *prev, enum cni_ver to)
{
	cJSON *res = prev ? cJSON_Duplicate(prev, 1) : cJSON_CreateObject();
	cJSON *ips;

	if (!res)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(res, "cniVersion");
	cJSON_AddStringToObject(res, "cniVersion", cni_version_str(to));
	ips = cJSON_GetObjectItemCaseSensitive(res, "ips");
	if (cJSON_IsArray(ips))
		convert_ips(ips, to);
	return res;
}

int cni_result_find_iface(const cJSON *prev, const char *ifname,
			  const char *netns)
{
	const cJSON *ifs = cJSON_GetObjectItemCaseSensitive(prev, "interfaces");
	const cJSON *it;
	int i = 0, loose = -ENOENT;

	cJSON_ArrayForEach(it, ifs) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
		const cJSON *sb = cJSON_GetObjectItemCaseSensitive(it, "sandbox");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, ifname) &&
		    cJSON_IsString(sb) && sb->valuestring[0]) {
			if (!netns || !netns[0] ||
			    !strcmp(sb->valuestring, netns))
				return i;
			/* Same namespace reached by another path: accept
			 * it if nothing matches exactly. */
			loose = i;
		}
		i++;
	}
	return loose;
}

int cni_ip_parse(const char *cidr, struct cni_ip *ret_ip)
{
	char buf[64], *slash, *end;
	long plen;

	if (strlen(cidr) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, cidr);
	slash = strchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	memset(ret_ip, 0, sizeof(*ret_ip));
	ret_ip->family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(ret_ip->family, buf, ret_ip->addr) != 1)
		return -EINVAL;
	plen = strtol(slash + 1, &end, 10);
	if (*end || slash[1] == '\0' || plen < 0 ||
	    plen > (ret_ip->family == AF_INET ? 32 : 128))
		return -EINVAL;
	ret_ip->prefixlen = (uint8_t)plen;
	return 0;
}

int cni_result_ips(const cJSON *prev, int iface, int allow_unbound,
		   struct cni_ip *ret_ips, int max)
{
	const cJSON *ips = cJSON_GetObjectItemCaseSensitive(prev, "ips");
	const cJSON *ip;
	int n = 0;

	cJSON_ArrayForEach(ip, ips) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(ip, "address");
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(ip,
								    "interface");

		if (idx ? !cJSON_IsNumber(idx) || idx->valueint != iface :
			  !allow_unbound)
			continue;
		if (!cJSON_IsString(a))
			return -EINVAL;
		if (n < max && cni_ip_parse(a->valuestring, &ret_ips[n]) < 0)
			return -EINVAL;
		n += n < max;
	}
	return n;
}
