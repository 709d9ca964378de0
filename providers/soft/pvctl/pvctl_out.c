/* SPDX-License-Identifier: MIT */
/*
 * pvctl's output helpers: names for engine values, and JSON through
 * cJSON.  Numbers go in as raw integer text, not cJSON's doubles, so a
 * 64-bit counter or inode number prints exactly (a double holds 53 bits).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/pvctl/pvctl.h"

void pvctl_gid_str(const uint8_t g[16], char out[40])
{
	for (int i = 0; i < 8; i++)
		sprintf(out + i * 5, "%02x%02x%s", g[2 * i], g[2 * i + 1],
			i < 7 ? ":" : "");
}

const char *pvctl_port_state_str(uint8_t s)
{
	switch (s) {
	case PV_PORT_DOWN: return "DOWN";
	case PV_PORT_INIT: return "INIT";
	case PV_PORT_ARMED: return "ARMED";
	case PV_PORT_ACTIVE: return "ACTIVE";
	}
	return "?";
}

const char *pvctl_ns_str(const char *path)
{
	return path[0] ? path : "(engine)";
}

/* The engine's fixed-size string fields are read up to cap bytes, NUL or
 * not.  Each adder returns false when out of memory; callers AND the
 * results, so a failure drops the whole document, never one field. */
bool pvctl_json_strn(cJSON *o, const char *name, const char *s, size_t cap)
{
	char *dup = strndup(s, cap);
	bool ok = dup && cJSON_AddStringToObject(o, name, dup);

	free(dup);
	return ok;
}

bool pvctl_json_u64(cJSON *o, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, name, num) != NULL;
}

bool pvctl_json_array_strn(cJSON *a, const char *s, size_t cap)
{
	char *dup = strndup(s, cap);
	cJSON *item = dup ? cJSON_CreateString(dup) : NULL;

	free(dup);
	if (!item)
		return false;
	if (!cJSON_AddItemToArray(a, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}

/* Prints doc (indented, one line per field) and frees it; ok false (an
 * adder failed) or doc NULL is an error. */
int pvctl_json_print(struct pvctl *c, cJSON *doc, bool ok)
{
	char *text = ok && doc ? cJSON_Print(doc) : NULL;

	cJSON_Delete(doc);
	if (!text)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "out of memory for the "
				  "JSON output");
	puts(text);
	free(text);
	return 0;
}
