/* SPDX-License-Identifier: MIT */
/*
 * A byte range of a work request's SGE list as checked segments.  A
 * message moves in chunks (eng_dp.h, ENG_DP_CHUNK), and between two
 * chunks the application may deregister an MR the list names; so every
 * chunk looks each MR up again, as a NIC checks each packet against the
 * MR's current state (IBA 10.6.3.3: an access outside a valid region is
 * a protection error).  The list is the engine's copy, never the ring.
 */
#include "providers/soft/engine/eng_dp.h"

int eng_dp_sge_range(struct eng_dev *d, const struct eng_pd *pd,
		     const struct pv_wqe_sge *sge, uint32_t nsge,
		     uint32_t access, uint64_t off, uint64_t len,
		     struct eng_seg *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nsge && i < ENG_SGE_MAX && len; i++) {
		uint64_t l = sge[i].length, take;
		struct eng_mr *mr;

		if (off >= l) {
			off -= l;	/* before the range (or empty) */
			continue;
		}
		take = l - off < len ? l - off : len;
		if (n >= max)
			return -2;
		mr = eng_dp_mr_find(d, sge[i].lkey, pd, sge[i].addr + off,
				    take, access);
		if (!mr)
			return -1;
		eng_dp_mr_seg(mr, sge[i].addr + off, (uint32_t)take,
			      &out[n++]);
		off = 0;
		len -= take;
	}
	return len ? -2 : (int)n;
}
