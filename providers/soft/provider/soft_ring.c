/* SPDX-License-Identifier: MIT */
/*
 * Ring geometry: checking a header the engine wrote before trusting it,
 * and the index math both ends share (free-running 32-bit counters,
 * index = counter & mask).  Pure: no I/O.
 */
#include <errno.h>

#include "providers/soft/provider/soft_dp.h"

static bool is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

uint32_t soft_pow2(uint32_t n)
{
	uint32_t p = 1;

	while (p < n && p < (1u << 31))
		p <<= 1;
	return p;
}

int soft_ring_check(const struct pv_ring_hdr *hdr, size_t map_size,
		    size_t off, uint32_t min_entry, uint32_t min_entries)
{
	uint64_t end;

	if (off % PV_CACHELINE || off > map_size ||
	    map_size - off < sizeof(*hdr))
		return -EPROTO;
	if (hdr->magic != PV_RING_MAGIC || hdr->version != PV_RING_VERSION)
		return -EPROTO;
	if (!is_pow2(hdr->entry_size) || !is_pow2(hdr->num_entries))
		return -EPROTO;
	if (hdr->entry_size < min_entry || hdr->num_entries < min_entries)
		return -EPROTO;
	if (hdr->entries_off < sizeof(*hdr) || hdr->entries_off % 8)
		return -EPROTO;
	end = (uint64_t)off + hdr->entries_off +
	      (uint64_t)hdr->entry_size * hdr->num_entries;
	return end <= map_size ? 0 : -EPROTO;
}

void soft_ring_attach(struct soft_ring *r, struct pv_ring_hdr *hdr,
		      bool producer)
{
	r->hdr = hdr;
	r->entries = (char *)hdr + hdr->entries_off;
	r->num_entries = hdr->num_entries;
	r->mask = hdr->num_entries - 1;
	r->entry_size = hdr->entry_size;
	/* A ring re-mapped after a resize may not start at zero. */
	r->head = producer ? __atomic_load_n(&hdr->prod, __ATOMIC_ACQUIRE)
			  : __atomic_load_n(&hdr->cons, __ATOMIC_ACQUIRE);
}
