/* SPDX-License-Identifier: MIT */
/*
 * pvctl stats: the engine's counters (eng_stats.h), one "name value" line
 * each, or one JSON object name -> value.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "providers/soft/pvctl/pvctl.h"

int pvctl_stats(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_stats *s;
	cJSON *doc = NULL;
	uint32_t len;
	void *buf;
	bool ok;
	int ret;

	if (argc > 1)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: stats");
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	ret = pvctl_call(c, PV_OP_ADM_STATS, NULL, 0, &buf, &len);
	if (ret < 0)
		return pvctl_fail_common(c, ret);
	s = buf;
	if (len < sizeof(*s) ||
	    (len - sizeof(*s)) / sizeof(s->stat[0]) < s->count) {
		free(buf);
		return pvctl_fail_common(c, -EPROTO);
	}
	if (c->json)
		doc = cJSON_CreateObject();
	ok = !c->json || doc;
	for (uint32_t i = 0; ok && i < s->count; i++) {
		s->stat[i].name[PV_STAT_NAME_MAX - 1] = '\0';
		if (c->json)
			ok = pvctl_json_u64(doc, s->stat[i].name,
					    s->stat[i].value);
		else
			printf("%-24s %" PRIu64 "\n", s->stat[i].name,
			       s->stat[i].value);
	}
	free(buf);
	return c->json ? pvctl_json_print(c, doc, ok) : 0;
}
