/* SPDX-License-Identifier: MIT */
/*
 * Device discovery: connect, HELLO, DEV_LIST, close.  The engine lists only
 * the devices of the caller's network namespace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pv_devnode.h"
#include "providers/soft/provider/soft_provider.h"

static int fetch_list(struct soft_conn *c, struct pv_ipc_dev_list *list,
		      uint32_t cap)
{
	uint32_t got = 0;
	int ret;

	ret = soft_call(c, PV_OP_DEV_LIST, NULL, 0, list, cap, &got, NULL,
			NULL);
	if (ret < 0)
		return ret;
	if (got < sizeof(*list) ||
	    list->count > (got - sizeof(*list)) / sizeof(list->dev[0]))
		return -EPROTO;
	return 0;
}

int soft_discover(struct pv_dev_desc **ret_descs, char *why, size_t why_len)
{
	const char *path = pv_ipc_socket_path();
	struct pv_ipc_dev_list *list;
	struct pv_dev_desc *descs;
	struct soft_conn c;
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
	ret = fetch_list(&c, list, PV_IPC_MAX_PAYLOAD);
	if (ret < 0) {
		snprintf(why, why_len, "engine %s: DEV_LIST: %s", path,
			 strerror(-ret));
		goto out_free_list;
	}
	descs = calloc(list->count ? list->count : 1, sizeof(*descs));
	if (!descs) {
		ret = -ENOMEM;
		goto out_free_list;
	}
	for (uint32_t i = 0; i < list->count; i++) {
		const struct pv_ipc_dev_info *d = &list->dev[i];

		size_t len = strnlen(d->name, sizeof(d->name));

		if (len >= sizeof(descs[i].name))
			len = sizeof(descs[i].name) - 1;
		memcpy(descs[i].name, d->name, len);
		descs[i].node_guid = d->node_guid;
		descs[i].dev_id = d->dev_id;
		descs[i].node_type = IBV_NODE_CA;
		descs[i].transport_type = IBV_TRANSPORT_IB;
		/* The same harmless node for every soft device: see
		 * common/pv_devnode.h for why one name. */
		snprintf(descs[i].dev_name, sizeof(descs[i].dev_name), "%s",
			 PV_DEVNODE_NAME);
	}
	ret = (int)list->count;
	*ret_descs = descs;
out_free_list:
	free(list);
out_close:
	soft_conn_close(&c);
	return ret;
}
