/* SPDX-License-Identifier: MIT */
/*
 * pvctl mr [dev DEV]: memory-registration report (ADM_MR_REPORT): per
 * device (= per pod) and per client, MRs and bytes registered now, peaks,
 * registrations since, growth over the engine's window, misaligned MRs;
 * then each MR, those not page-aligned flagged MISALIGNED.  Fetched page
 * by page, as `obj list`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/pvctl/pvctl.h"

static const char *row_kind(uint32_t k)
{
	switch (k) {
	case PV_MR_ROW_DEV: return "device";
	case PV_MR_ROW_CLIENT: return "client";
	case PV_MR_ROW_MR: return "mr";
	default: return "?";
	}
}

static void print_header(void)
{
	printf("%-6s %-4s %-6s %-7s %6s %12s %8s %12s %6s %12s %12s %5s %s\n",
	       "KIND", "DEV", "CLIENT", "PID", "MRS", "BYTES", "PEAK_MRS",
	       "PEAK_BYTES", "REGS", "REG_BYTES", "GROWTH", "MISAL", "DETAIL");
}

static void print_row(const struct pv_ipc_adm_mr_row *w)
{
	if (w->kind == PV_MR_ROW_MR) {
		printf("%-6s %-4u %-6u %-7u %6s %12" PRIu64 " %8s %12s %6s "
		       "%12s %12s %5s lkey 0x%08x addr 0x%" PRIx64 "%s\n",
		       "mr", w->dev_id, w->client_id, w->client_pid, "-",
		       w->bytes, "-", "-", "-", "-", "-", "-", w->lkey, w->addr,
		       (w->flags & PV_MR_FLAG_MISALIGNED) ? " MISALIGNED" : "");
		return;
	}
	if (w->kind == PV_MR_ROW_DEV)
		printf("%-6s %-4u %-6s %-7s ", "device", w->dev_id, "-", "-");
	else
		printf("%-6s %-4u %-6u %-7u ", "client", w->dev_id,
		       w->client_id, w->client_pid);
	printf("%6" PRIu64 " %12" PRIu64 " %8" PRIu64 " %12" PRIu64 " %6" PRIu64
	       " %12" PRIu64 " %+12" PRId64 " %5" PRIu64 " ", w->mrs, w->bytes,
	       w->peak_mrs, w->peak_bytes, w->regs, w->reg_bytes, w->growth,
	       w->misaligned);
	if (w->kind == PV_MR_ROW_DEV)
		printf("%.*s netns %" PRIu64 "\n", (int)sizeof(w->name),
		       w->name, w->netns_ino);
	else
		printf("-\n");
}

static bool tally_json(cJSON *j, const struct pv_ipc_adm_mr_row *w)
{
	return pvctl_json_u64(j, "mrs", w->mrs) &&
	       pvctl_json_u64(j, "bytes", w->bytes) &&
	       pvctl_json_u64(j, "peak_mrs", w->peak_mrs) &&
	       pvctl_json_u64(j, "peak_bytes", w->peak_bytes) &&
	       pvctl_json_u64(j, "regs", w->regs) &&
	       pvctl_json_u64(j, "reg_bytes", w->reg_bytes) &&
	       pvctl_json_u64(j, "misaligned", w->misaligned) &&
	       cJSON_AddNumberToObject(j, "growth", (double)w->growth);
}

/* Appends w to the array doc; false when out of memory. */
static bool row_json(cJSON *doc, const struct pv_ipc_adm_mr_row *w)
{
	cJSON *j = cJSON_CreateObject();
	bool ok;

	ok = j && cJSON_AddStringToObject(j, "kind", row_kind(w->kind)) &&
	     pvctl_json_u64(j, "dev_id", w->dev_id);
	if (ok && w->kind != PV_MR_ROW_DEV)
		ok = pvctl_json_u64(j, "client", w->client_id) &&
		     pvctl_json_u64(j, "pid", w->client_pid);
	if (ok && w->kind == PV_MR_ROW_MR)
		ok = pvctl_json_u64(j, "handle", w->handle) &&
		     pvctl_json_u64(j, "lkey", w->lkey) &&
		     pvctl_json_u64(j, "addr", w->addr) &&
		     pvctl_json_u64(j, "length", w->bytes) &&
		     cJSON_AddBoolToObject(j, "misaligned",
					   w->flags & PV_MR_FLAG_MISALIGNED);
	else if (ok)
		ok = tally_json(j, w);
	if (ok && w->kind == PV_MR_ROW_DEV)
		ok = pvctl_json_strn(j, "name", w->name, sizeof(w->name)) &&
		     pvctl_json_u64(j, "netns_ino", w->netns_ino);
	ok = ok && cJSON_AddItemToArray(doc, j);
	if (j && !ok)
		cJSON_Delete(j);
	return ok;
}

/* One page from ref->index on: 0, or -errno. */
static int fetch_page(struct pvctl *c, struct pv_ipc_dev_ref *ref,
		      struct pv_ipc_adm_mr_report **ret_page)
{
	struct pv_ipc_adm_mr_report *p;
	uint32_t len;
	void *buf;
	int ret;

	ret = pvctl_call(c, PV_OP_ADM_MR_REPORT, ref, sizeof(*ref), &buf, &len);
	if (ret < 0)
		return ret;
	p = buf;
	if (len < sizeof(*p) ||
	    (len - sizeof(*p)) / sizeof(p->row[0]) < p->count) {
		free(buf);
		return -EPROTO;
	}
	*ret_page = p;
	return 0;
}

int pvctl_mr(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_dev_ref ref = { 0 };
	cJSON *doc = NULL;
	uint32_t shown = 0;
	bool ok = true, done;
	int ret = 0;

	if (argc != 1 && (argc != 3 || strcmp(argv[1], "dev") != 0))
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: mr [dev DEV]");
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if (argc == 3 && (ret = pvctl_dev_ref(c, argv[2], &ref.dev_id)) != 0)
		return ret;
	if (c->json)
		ok = (doc = cJSON_CreateArray()) != NULL;
	else
		print_header();
	for (done = false; ok && !done;) {
		struct pv_ipc_adm_mr_report *p;

		ref.index = shown;
		if ((ret = fetch_page(c, &ref, &p)) < 0)
			break;
		for (uint32_t i = 0; ok && i < p->count; i++, shown++) {
			if (c->json)
				ok = row_json(doc, &p->row[i]);
			else
				print_row(&p->row[i]);
		}
		done = p->count == 0 || shown >= p->total;
		free(p);
	}
	if (ret < 0) {
		cJSON_Delete(doc);
		return pvctl_fail_common(c, ret);
	}
	return c->json ? pvctl_json_print(c, doc, ok) : 0;
}
