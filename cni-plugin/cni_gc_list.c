/* SPDX-License-Identifier: MIT */
/* GC's list of attachments still in use (CNI 1.1.0, "GC"); pure. */
#include <string.h>

#include "cni-plugin/cni_cmd.h"

int cni_gc_list_valid(const cJSON *attachments)
{
	const cJSON *a;

	if (!cJSON_IsArray(attachments))
		return 0;
	cJSON_ArrayForEach(a, attachments) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(a,
								  "containerID");
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(a, "ifname");

		if (!cJSON_IsString(c) || !cJSON_IsString(i))
			return 0;
	}
	return 1;
}

int cni_gc_is_valid(const cJSON *attachments, const char *cid,
		    const char *ifname)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, attachments) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(a,
								  "containerID");
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(a, "ifname");

		if (cJSON_IsString(c) && cJSON_IsString(i) &&
		    !strcmp(c->valuestring, cid) &&
		    !strcmp(i->valuestring, ifname))
			return 1;
	}
	return 0;
}
