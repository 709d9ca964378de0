/* SPDX-License-Identifier: MIT */
/*
 * The sender's side of the peer's buffer grants (rsocket(7)): the grant
 * being filled and the entries of our target SGL the peer has filled.
 * No I/O: the target SGL is memory the peer RDMA-writes, passed in.
 *
 * What an RDMA WRITE puts in memory is defined only once its completion
 * is seen: before that, the bytes may be placed piecemeal or more than
 * once (our engine stores a 16-byte write as two overlapping 16-byte
 * stores, glibc's memmove).  So an entry is read only after the SGL
 * message that wrote it completed (rc_rs_grants_arrived), read once into
 * a copy, and never written here: a length cleared in place could be
 * stored over again by the placement still under way, and the same grant
 * taken twice.  The peer rewrites an entry only after we filled the grant
 * it held (it grants a half once it was read), so a completed entry is
 * stable until we take it.
 */
#ifndef RC_RS_GRANT_H
#define RC_RS_GRANT_H

#include <stdbool.h>
#include <stdint.h>

#include "librdmacm/rc_rs_proto.h"

struct rc_rs_grants {
	struct rc_rs_sge cur;		/* grant being filled (our copy) */
	uint32_t next;			/* entry of the target SGL to take next */
	uint32_t ready;			/* completed in the SGL, not taken yet */
};

/* The first grant is the peer's private data's (its entry 0): ours are
 * taken from entry 1 on, in order. */
void rc_rs_grants_init(struct rc_rs_grants *g, struct rc_rs_sge first);

/*
 * The receive completion of an SGL message whose write carried len
 * bytes: 0 is a credit update alone, sizeof(struct rc_rs_sge) a grant in
 * the next entry.  0, or -EPROTO for any other length or a grant into an
 * entry we have not taken yet (more than RC_RS_SGL_SIZE outstanding).
 */
int rc_rs_grants_arrived(struct rc_rs_grants *g, uint32_t len);

/* Bytes left in the grant being filled; when none, takes the next
 * completed entry of tsgl (RC_RS_SGL_SIZE entries, the peer's byte order
 * unless swap) into the copy.  0 when no grant is there. */
uint32_t rc_rs_grants_left(struct rc_rs_grants *g,
			   const struct rc_rs_sge *tsgl, bool swap);

/* n bytes (at most rc_rs_grants_left's) go into the current grant: where
 * they go. */
void rc_rs_grants_use(struct rc_rs_grants *g, uint32_t n, uint64_t *addr,
		      uint32_t *key);

#endif /* RC_RS_GRANT_H */
