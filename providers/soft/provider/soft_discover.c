/* SPDX-License-Identifier: MIT */
/*
 * Device discovery: connect, HELLO, DEV_LIST page by page, close.  The
 * engine lists only the devices of the caller's network namespace (all
 * of them in its own, up to max_devices: several pages).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pv_devnode.h"
#include "providers/soft/provider/soft_provider.h"

/* One page of the list from `cursor` on (an empty request for the first:
 * an engine before paging answers that, and only that). */
static int fetch_page(struct soft_conn *c, uint32_t cursor,
		      struct pv_ipc_dev_list *list, uint32_t cap)
{
	struct pv_ipc_list_req req = { .cursor = cursor };
	uint32_t got = 0;
	int ret;

	ret = soft_call(c, PV_OP_DEV_LIST, cursor ? &req : NULL,
			cursor ? sizeof(req) : 0, list, cap, &got, NULL, NULL);
	if (ret < 0)
		return ret;
	if (got < sizeof(*list) ||
	    list->count > (got - sizeof(*list)) / sizeof(list->dev[0]))
		return -EPROTO;
	return 0;
}

static void desc_fill(struct pv_dev_desc *o, const struct pv_ipc_dev_info *d)
{
	size_t len = strnlen(d->name, sizeof(d->name));

	if (len >= sizeof(o->name))
		len = sizeof(o->name) - 1;
	memset(o, 0, sizeof(*o));
	memcpy(o->name, d->name, len);
	o->node_guid = d->node_guid;
	o->dev_id = d->dev_id;
	o->node_type = IBV_NODE_CA;
	o->transport_type = IBV_TRANSPORT_IB;
	/* The same harmless node for every soft device: see
	 * common/pv_devnode.h for why one name. */
	snprintf(o->dev_name, sizeof(o->dev_name), "%s", PV_DEVNODE_NAME);
}

/* Appends one page to descs[0..*n); returns the next cursor, 0 when the
 * list is complete, or -errno.  Ids rise within and across pages (the
 * engine's order): anything else would let a confused engine loop us. */
static int64_t take_page(const struct pv_ipc_dev_list *list, uint32_t cursor,
			 struct pv_dev_desc **descs, uint32_t *n)
{
	struct pv_dev_desc *grown;
	uint32_t last = cursor;

	if (!list->count)
		return (list->flags & PV_LIST_MORE) ? -EPROTO : 0;
	if (list->count > UINT32_MAX / 2 - *n)
		return -EPROTO;
	grown = realloc(*descs, (size_t)(*n + list->count) * sizeof(**descs));
	if (!grown)
		return -ENOMEM;
	*descs = grown;
	for (uint32_t i = 0; i < list->count; i++) {
		if (list->dev[i].dev_id < last)
			return -EPROTO;
		last = list->dev[i].dev_id;
		desc_fill(&grown[(*n)++], &list->dev[i]);
	}
	if (!(list->flags & PV_LIST_MORE))
		return 0;
	return last < UINT32_MAX ? (int64_t)last + 1 : -EPROTO;
}

int soft_discover(struct pv_dev_desc **ret_descs, char *why, size_t why_len)
{
	const char *path = pv_ipc_socket_path();
	struct pv_dev_desc *descs = NULL;
	struct pv_ipc_dev_list *list;
	struct soft_conn c;
	uint32_t n = 0;
	int64_t cursor = 0;
	int ret;

	ret = soft_conn_open(&c, path);
	if (ret < 0) {
		snprintf(why, why_len, "engine socket %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	list = malloc(PV_IPC_MAX_PAYLOAD);
	if (!list) {
		ret = -ENOMEM;
		goto out_close;
	}
	do {
		ret = fetch_page(&c, (uint32_t)cursor, list,
				 PV_IPC_MAX_PAYLOAD);
		if (ret == 0) {
			cursor = take_page(list, (uint32_t)cursor, &descs, &n);
			ret = cursor < 0 ? (int)cursor : 0;
		}
	} while (ret == 0 && cursor > 0);
	if (ret < 0) {
		snprintf(why, why_len, "engine %s: DEV_LIST: %s", path,
			 strerror(-ret));
		free(descs);
		goto out_free_list;
	}
	if (!descs && !(descs = calloc(1, sizeof(*descs)))) {
		ret = -ENOMEM;
		goto out_free_list;
	}
	ret = (int)n;
	*ret_descs = descs;
out_free_list:
	free(list);
out_close:
	soft_conn_close(&c);
	return ret;
}
