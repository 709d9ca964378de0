/* SPDX-License-Identifier: MIT */
/*
 * The peer's iomap windows as riowrite sees them (rsocket(7)): a private
 * copy of each entry of our iomap area, taken when the IOMAP_SGL message
 * that wrote it completed.  No I/O: the area is memory the peer
 * RDMA-writes, passed in.
 *
 * What an RDMA WRITE puts in memory is defined only once its completion
 * is seen (our engine stores the 24-byte entry as two overlapping
 * 16-byte stores, glibc's memmove): an entry read in between is half the
 * new window and half the old one, another address with the old rkey.
 * So the area is read only at the completion, once per message, into a
 * copy that is checked there (the write's size, the index within the
 * entries we offered, no window whose offset or address range wraps)
 * and only the copy is looked up.  The wire is rdma-core's, unchanged:
 * the immediate carries the index, the receiver answers nothing.
 *
 * riounmap is not told to the peer, so an entry stays after its window
 * went and the index may come back for another window: a new entry
 * replaces the copies of older ones whose stream offsets it overlaps,
 * and the copies never overlap, so a lookup has one answer (the newest
 * window at that offset).  A length of 0 clears the entry.
 */
#ifndef RC_RS_PEERMAP_H
#define RC_RS_PEERMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "librdmacm/rc_rs_proto.h"

struct rc_rs_peermaps {
	const struct rc_rs_iomap *area;	/* what the peer writes, n entries */
	struct rc_rs_iomap *copy;	/* ours, in our byte order, checked */
	uint32_t n;
};

/* n entries (RDMA_IOMAPSIZE) at area: the copies, all empty.  0 or
 * -ENOMEM. */
int rc_rs_peermaps_init(struct rc_rs_peermaps *p,
			const struct rc_rs_iomap *area, uint32_t n);
void rc_rs_peermaps_free(struct rc_rs_peermaps *p);

/*
 * The receive completion of an IOMAP_SGL message for entry index whose
 * write carried len bytes (swap: the peer's byte order differs): the
 * entry is copied and checked.  0, or -EPROTO (the copies unchanged,
 * *why says what) for a write of another size than an entry, an index
 * past the entries, or a window whose offset + length or address +
 * length wraps past 2^64.
 */
int rc_rs_peermaps_arrived(struct rc_rs_peermaps *p, uint32_t index,
			   uint32_t len, bool swap, const char **why);

/* Where a riowrite at offset goes, from the copies only: the remote
 * address, rkey and the bytes left in that window; 0, or -EINVAL when
 * no window holds offset. */
int rc_rs_peermaps_find(const struct rc_rs_peermaps *p, uint64_t offset,
			uint64_t *addr, uint32_t *rkey, uint64_t *room);

#endif /* RC_RS_PEERMAP_H */
