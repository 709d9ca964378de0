/* SPDX-License-Identifier: MIT */
/*
 * Collecting a paged ADM_DEV_LIST (pv-soft-abi.h: pv_ipc_list_req) into
 * one list, for the tools that want every device (pvctl, the CNI
 * plugin).  The caller makes the calls: the first with no payload (what
 * an engine before paging understands), each next one with
 * pv_adm_pages_req() while pv_adm_pages_take() says more.  The replies
 * are the engine's, so checked: ids must rise, a page that says more
 * must list something, and the whole is bounded.  Pure, no I/O.
 */
#ifndef PV_DEV_PAGES_H
#define PV_DEV_PAGES_H

#include <stdint.h>

#include "providers/soft/pv-soft-abi.h"

/* More devices than any engine may have (ENG_DEVICES_HARD_MAX is 4096):
 * a reply stream past it is not an engine's. */
#define PV_ADM_PAGES_MAX_DEVS	65536u

struct pv_adm_pages {
	struct pv_ipc_adm_dev_list *list;	/* count = total = collected */
	uint32_t cap;				/* entries allocated */
	uint32_t cursor;			/* the next request's */
	uint32_t pages;
};

void pv_adm_pages_init(struct pv_adm_pages *pg);
/* The request for the next page (cursor set, the rest zero). */
void pv_adm_pages_req(const struct pv_adm_pages *pg,
		      struct pv_ipc_list_req *req);
/* Appends one reply of len bytes: 1 = ask for the next page, 0 = the
 * list is complete, -EPROTO (malformed, ids not rising, no progress, too
 * many), -ENOMEM. */
int pv_adm_pages_take(struct pv_adm_pages *pg, const void *reply,
		      uint32_t len);
/* The collected list (malloc'd; the caller frees it), leaving pg empty;
 * never NULL after a take returned 0. */
struct pv_ipc_adm_dev_list *pv_adm_pages_done(struct pv_adm_pages *pg);
void pv_adm_pages_fini(struct pv_adm_pages *pg);

#endif /* PV_DEV_PAGES_H */
