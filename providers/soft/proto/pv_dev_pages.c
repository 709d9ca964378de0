/* SPDX-License-Identifier: MIT */
/* A paged ADM_DEV_LIST collected into one list (pv_dev_pages.h). */
#include "providers/soft/proto/pv_dev_pages.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pv_adm_pages_init(struct pv_adm_pages *pg)
{
	memset(pg, 0, sizeof(*pg));
}

void pv_adm_pages_req(const struct pv_adm_pages *pg,
		      struct pv_ipc_list_req *req)
{
	memset(req, 0, sizeof(*req));
	req->cursor = pg->cursor;
}

static int grow(struct pv_adm_pages *pg, uint32_t want)
{
	struct pv_ipc_adm_dev_list *l;
	uint32_t cap = pg->cap ? pg->cap : 64;

	while (cap < want)
		cap *= 2;
	if (pg->list && cap == pg->cap)
		return 0;
	l = realloc(pg->list, sizeof(*l) + (size_t)cap * sizeof(l->dev[0]));
	if (!l)
		return -ENOMEM;
	if (!pg->list)
		memset(l, 0, sizeof(*l));
	pg->list = l;
	pg->cap = cap;
	return 0;
}

int pv_adm_pages_take(struct pv_adm_pages *pg, const void *reply,
		      uint32_t len)
{
	struct pv_ipc_adm_dev_list hdr;
	const struct pv_ipc_adm_dev *dev;
	uint32_t have, last;
	int ret;

	if (len < sizeof(hdr))
		return -EPROTO;
	memcpy(&hdr, reply, sizeof(hdr));
	if (hdr.count > (len - sizeof(hdr)) / sizeof(hdr.dev[0]) ||
	    hdr.total < hdr.count)
		return -EPROTO;
	have = pg->list ? pg->list->count : 0;
	if (hdr.count > PV_ADM_PAGES_MAX_DEVS - have)
		return -EPROTO;
	ret = grow(pg, have + hdr.count);
	if (ret < 0)
		return ret;
	dev = (const struct pv_ipc_adm_dev *)((const uint8_t *)reply +
					       sizeof(hdr));
	last = pg->cursor;
	for (uint32_t i = 0; i < hdr.count; i++) {
		uint32_t id = dev[i].info.dev_id;

		/* Rising ids, from the cursor on: what the engine sends,
		 * and what makes every next cursor larger. */
		if (i > 0 ? id <= last : id < pg->cursor)
			return -EPROTO;
		memcpy(&pg->list->dev[have + i], &dev[i], sizeof(dev[i]));
		last = id;
	}
	pg->list->count = have + hdr.count;
	pg->list->total = pg->list->count;
	pg->pages++;
	if (hdr.total == hdr.count)
		return 0;
	/* More, yet nothing listed, or no id left: not progress. */
	if (!hdr.count || last == UINT32_MAX)
		return -EPROTO;
	pg->cursor = last + 1;
	return 1;
}

struct pv_ipc_adm_dev_list *pv_adm_pages_done(struct pv_adm_pages *pg)
{
	struct pv_ipc_adm_dev_list *l = pg->list;

	pg->list = NULL;
	pg->cap = 0;
	return l;
}

void pv_adm_pages_fini(struct pv_adm_pages *pg)
{
	free(pg->list);
	pv_adm_pages_init(pg);
}
