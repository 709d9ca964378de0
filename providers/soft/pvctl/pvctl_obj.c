/* SPDX-License-Identifier: MIT */
/*
 * pvctl obj list [DEV]: the verbs objects of every device or of one,
 * fetched page by page (the engine answers from an index on).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "providers/soft/pvctl/pvctl.h"

static const char *kind_str(uint32_t k)
{
	static const char *const names[] = {
		"none", "pd", "mr", "cq", "qp", "srq", "ah", "channel", "port", "mw",
		"xrcd",
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static const char *qp_state_str(uint32_t s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static const char *obj_state(const struct pv_ipc_adm_obj *o)
{
	return o->kind == PV_OBJ_QP ? qp_state_str(o->state) : "";
}

static void obj_print_row(const struct pv_ipc_adm_obj *o)
{
	printf("%-4u %-7u %-8u %-8s 0x%08x ", o->dev_id, o->client_id,
	       o->client_pid, kind_str(o->kind), o->handle);
	switch (o->kind) {
	case PV_OBJ_QP: printf("qpn %u %s\n", o->detail, obj_state(o)); break;
	case PV_OBJ_MR: printf("lkey 0x%08x\n", o->detail); break;
	case PV_OBJ_CQ: printf("depth %u\n", o->detail); break;
	case PV_OBJ_SRQ: printf("max_wr %u\n", o->detail); break;
	default: printf("-\n"); break;
	}
}

/* Appends o to the array doc; false when out of memory. */
static bool obj_json(cJSON *doc, const struct pv_ipc_adm_obj *o)
{
	cJSON *j = cJSON_CreateObject();
	bool ok;

	ok = j && pvctl_json_u64(j, "dev_id", o->dev_id) &&
	     pvctl_json_u64(j, "client", o->client_id) &&
	     pvctl_json_u64(j, "pid", o->client_pid) &&
	     cJSON_AddStringToObject(j, "kind", kind_str(o->kind)) &&
	     pvctl_json_u64(j, "handle", o->handle) &&
	     pvctl_json_u64(j, "detail", o->detail) &&
	     cJSON_AddStringToObject(j, "state", obj_state(o)) &&
	     cJSON_AddItemToArray(doc, j);
	if (j && !ok)
		cJSON_Delete(j);
	return ok;
}

int pvctl_obj_list(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_dev_ref ref = { 0 };
	cJSON *doc = NULL;
	uint32_t shown = 0, len;
	bool ok = true, done;
	int ret;

	if (argc > 2)
		return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: obj list [DEV]");
	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if (argc == 2 && (ret = pvctl_dev_ref(c, argv[1], &ref.dev_id)) != 0)
		return ret;
	if (c->json)
		ok = (doc = cJSON_CreateArray()) != NULL;
	else
		printf("%-4s %-7s %-8s %-8s %-10s %s\n", "DEV", "CLIENT", "PID",
		       "KIND", "HANDLE", "DETAIL");
	for (done = false; ok && !done;) {
		struct pv_ipc_adm_obj_list *l;
		void *buf;

		ref.index = shown;
		ret = pvctl_call(c, PV_OP_ADM_OBJ_LIST, &ref, sizeof(ref), &buf,
				 &len);
		if (ret < 0)
			break;
		l = buf;
		if (len < sizeof(*l) ||
		    (len - sizeof(*l)) / sizeof(l->obj[0]) < l->count) {
			free(buf);
			ret = -EPROTO;
			break;
		}
		for (uint32_t i = 0; ok && i < l->count; i++, shown++) {
			if (c->json)
				ok = obj_json(doc, &l->obj[i]);
			else
				obj_print_row(&l->obj[i]);
		}
		done = l->count == 0 || shown >= l->total;
		free(buf);
	}
	if (ret < 0) {
		cJSON_Delete(doc);
		return pvctl_fail_common(c, ret);
	}
	return c->json ? pvctl_json_print(c, doc, ok) : 0;
}
