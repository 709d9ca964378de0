/* SPDX-License-Identifier: MIT */
/*
 * pvctl stat show [dev DEV] [qp N|all]: the NIC-style counters of ports
 * and QPs (the engine's eng_hwc.h), one line each as iproute2's
 * `rdma statistic show` prints them:
 *   link pv0/1 sent_pkts 12 rcvd_pkts 3 ...
 *   link pv0/1 lqpn 4660 client 7 sent_pkts 12 ...
 * --json: an array of objects {ifname, port, dev_id[, lqpn, client],
 * counter: value...}.  The reply is checked before use (it names its
 * counters; a count that overruns it is refused).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/pvctl/pvctl.h"

struct hwc_view {
	const struct pv_ipc_adm_dev_list *devs;
	const struct pv_ipc_adm_hwc_list *l;
	const char *names;		/* ncounters * PV_HWC_NAME_MAX */
	const uint8_t *rows;
	size_t row_size;
};

static const char *dev_name(const struct pv_ipc_adm_dev_list *l, uint32_t id,
			    char buf[16])
{
	for (uint32_t i = 0; i < l->count; i++)
		if (l->dev[i].info.dev_id == id)
			return l->dev[i].info.name;
	snprintf(buf, 16, "dev%u", id);
	return buf;
}

static int view_check(struct hwc_view *v, void *buf, uint32_t len)
{
	const struct pv_ipc_adm_hwc_list *l = buf;
	size_t names;

	if (len < sizeof(*l) || l->ncounters > 4096)
		return -EPROTO;
	names = (size_t)l->ncounters * PV_HWC_NAME_MAX;
	v->row_size = sizeof(struct pv_ipc_adm_hwc_row) + 8 * l->ncounters;
	if (len - sizeof(*l) < names ||
	    (len - sizeof(*l) - names) / v->row_size < l->count)
		return -EPROTO;
	v->l = l;
	v->names = (const char *)(l + 1);
	v->rows = (const uint8_t *)v->names + names;
	for (uint32_t i = 0; i < l->ncounters; i++)
		if (!memchr(v->names + i * PV_HWC_NAME_MAX, '\0',
			    PV_HWC_NAME_MAX))
			return -EPROTO;
	return 0;
}

static void row_print(const struct hwc_view *v,
		      const struct pv_ipc_adm_hwc_row *r)
{
	char b[16];

	printf("link %s/1", dev_name(v->devs, r->dev_id, b));
	if (!(r->flags & PV_HWC_ROW_PORT))
		printf(" lqpn %u client %u", r->qp_num, r->client_id);
	for (uint32_t i = 0; i < v->l->ncounters; i++)
		printf(" %s %" PRIu64, v->names + i * PV_HWC_NAME_MAX,
		       r->value[i]);
	putchar('\n');
}

static bool row_json(cJSON *doc, const struct hwc_view *v,
		     const struct pv_ipc_adm_hwc_row *r)
{
	cJSON *j = cJSON_CreateObject();
	char b[16];
	bool ok;

	ok = j && cJSON_AddStringToObject(j, "ifname",
					  dev_name(v->devs, r->dev_id, b)) &&
	     pvctl_json_u64(j, "port", 1) &&
	     pvctl_json_u64(j, "dev_id", r->dev_id);
	if (ok && !(r->flags & PV_HWC_ROW_PORT))
		ok = pvctl_json_u64(j, "lqpn", r->qp_num) &&
		     pvctl_json_u64(j, "client", r->client_id);
	for (uint32_t i = 0; ok && i < v->l->ncounters; i++)
		ok = pvctl_json_u64(j, v->names + i * PV_HWC_NAME_MAX,
				    r->value[i]);
	ok = ok && cJSON_AddItemToArray(doc, j);
	if (j && !ok)
		cJSON_Delete(j);
	return ok;
}

/* [dev DEV] [qp N|all] into req; 0 or an exit code. */
static int hwc_args(struct pvctl *c, int argc, char **argv,
		    const struct pv_ipc_adm_dev_list *devs,
		    struct pv_ipc_adm_hwc_req *req)
{
	for (int i = 1; i < argc; i += 2) {
		char *end;

		if (i + 1 >= argc)
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: stat "
					  "show [dev DEV] [qp N|all]");
		if (strcmp(argv[i], "dev") == 0) {
			int64_t id = pvctl_dev_resolve(devs, argv[i + 1], NULL);

			if (id <= 0)
				return pvctl_fail(c, PVCTL_EXIT_FAIL,
						  "no device %s (or not "
						  "unique: give the id)",
						  argv[i + 1]);
			req->dev_id = (uint32_t)id;
		} else if (strcmp(argv[i], "qp") == 0) {
			if (strcmp(argv[i + 1], "all") == 0) {
				req->flags |= PV_ADM_HWC_QPS;
				continue;
			}
			errno = 0;
			unsigned long n = strtoul(argv[i + 1], &end, 0);

			if (errno || *end || !n || n > 0xffffff)
				return pvctl_fail(c, PVCTL_EXIT_USAGE,
						  "bad QP number %s",
						  argv[i + 1]);
			req->qp_num = (uint32_t)n;
		} else {
			return pvctl_fail(c, PVCTL_EXIT_USAGE, "usage: stat "
					  "show [dev DEV] [qp N|all]");
		}
	}
	return 0;
}

/* Fetches every page; prints or adds to doc.  0 or -errno. */
static int hwc_pages(struct pvctl *c, struct pv_ipc_adm_hwc_req *req,
		     struct hwc_view *v, cJSON *doc, bool *ok)
{
	uint32_t shown = 0, len;
	int ret = 0;

	for (bool done = false; *ok && !done;) {
		void *buf;

		req->index = shown;
		ret = pvctl_call(c, PV_OP_ADM_HWC, req, sizeof(*req), &buf,
				 &len);
		if (ret < 0)
			return ret;
		if ((ret = view_check(v, buf, len)) < 0) {
			free(buf);
			return ret;
		}
		for (uint32_t i = 0; *ok && i < v->l->count; i++, shown++) {
			const void *r = v->rows + (size_t)i * v->row_size;

			if (doc)
				*ok = row_json(doc, v, r);
			else
				row_print(v, r);
		}
		done = v->l->count == 0 || shown >= v->l->total;
		free(buf);
	}
	return 0;
}

int pvctl_stat_show(struct pvctl *c, int argc, char **argv)
{
	struct pv_ipc_adm_hwc_req req = { 0 };
	struct pv_ipc_adm_dev_list *devs;
	struct hwc_view v = { 0 };
	cJSON *doc = NULL;
	bool ok = true;
	int ret;

	if ((ret = pvctl_connect(c)) != 0)
		return ret;
	if ((ret = pvctl_dev_list_get(c, &devs)) < 0)
		return pvctl_fail_common(c, ret);
	v.devs = devs;
	if ((ret = hwc_args(c, argc, argv, devs, &req)) != 0) {
		free(devs);
		return ret;
	}
	if (c->json)
		ok = (doc = cJSON_CreateArray()) != NULL;
	ret = hwc_pages(c, &req, &v, doc, &ok);
	free(devs);
	if (ret < 0) {
		cJSON_Delete(doc);
		return pvctl_fail_common(c, ret);
	}
	return c->json ? pvctl_json_print(c, doc, ok) : 0;
}
