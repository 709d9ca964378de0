/* SPDX-License-Identifier: MIT */
/* The peer's iomap windows, copied as their messages complete
 * (rc_rs_peermap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "librdmacm/rc_rs_peermap.h"

int rc_rs_peermaps_init(struct rc_rs_peermaps *p,
			const struct rc_rs_iomap *area, uint32_t n)
{
	p->area = area;
	p->n = 0;
	p->copy = NULL;
	if (!n || !area)
		return 0;
	p->copy = calloc(n, sizeof(*p->copy));
	if (!p->copy)
		return -ENOMEM;
	p->n = n;
	return 0;
}

void rc_rs_peermaps_free(struct rc_rs_peermaps *p)
{
	free(p->copy);
	p->copy = NULL;
	p->n = 0;
}

/* Whether windows a and b (both non-empty, neither wrapping) share an
 * offset. */
static bool overlap(const struct rc_rs_iomap *a, const struct rc_rs_iomap *b)
{
	return a->offset <= b->offset + (b->sge.length - 1) &&
	       b->offset <= a->offset + (a->sge.length - 1);
}

int rc_rs_peermaps_arrived(struct rc_rs_peermaps *p, uint32_t index,
			   uint32_t len, bool swap, const char **why)
{
	struct rc_rs_iomap e;

	if (len != sizeof(e)) {
		*why = "an iomap entry of a wrong size";
		return -EPROTO;
	}
	if (index >= p->n) {
		*why = "an iomap entry past those offered";
		return -EPROTO;
	}
	/* One read of the entry, complete now; only the copy is used. */
	memcpy(&e, &p->area[index], sizeof(e));
	e = rc_rs_iomap_swap(e, swap);
	if (e.sge.length &&
	    (e.sge.length - 1 > UINT64_MAX - e.offset ||
	     e.sge.length - 1 > UINT64_MAX - e.sge.addr)) {
		*why = "an iomap window that wraps";
		return -EPROTO;
	}
	/* The newest window at an offset is the one (riounmap is not sent:
	 * older entries may be stale). */
	if (e.sge.length)
		for (uint32_t i = 0; i < p->n; i++)
			if (i != index && p->copy[i].sge.length &&
			    overlap(&p->copy[i], &e))
				memset(&p->copy[i], 0, sizeof(p->copy[i]));
	p->copy[index] = e;
	return 0;
}

int rc_rs_peermaps_find(const struct rc_rs_peermaps *p, uint64_t offset,
			uint64_t *addr, uint32_t *rkey, uint64_t *room)
{
	if (!p->n)
		return -EINVAL;
	return rc_rs_iomap_find(p->copy, p->n, false, offset, addr, rkey,
				room);
}
