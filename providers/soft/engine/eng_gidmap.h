/* SPDX-License-Identifier: MIT */
/*
 * The engine's GID index: which device holds a GID, in O(1), for the
 * per-packet look-ups that used to walk every device's table (issue 10):
 * the receive path's "is the source one of ours" (a forged local source,
 * eng_recv.c) and "is the destination this device's", and the transmit
 * path's wire-or-local (eng_wire_route).  eng_device.c keeps it in step
 * with every device's table (eng_dev_gids_index), the only writer.
 *
 * Open addressing with linear probing, at most half full, keyed by the
 * 16 GID bytes under a per-engine random seed: a pod picks its own
 * interface addresses, so it must not be able to pick ones that share a
 * probe run.  A GID may be held by two devices for a moment (a claim
 * takes it from a squatter, eng_gid_own.h, before the squatter's table
 * is rebuilt), so entries are (GID, device) pairs.  Pure: no I/O.
 */
#ifndef ENG_GIDMAP_H
#define ENG_GIDMAP_H

#include <stdbool.h>
#include <stdint.h>

struct eng_gidmap_ent {
	uint8_t gid[16];
	uint32_t dev_id;		/* 0: empty */
};

struct eng_gidmap {
	struct eng_gidmap_ent *ent;
	uint32_t mask;			/* capacity - 1 (no table: 0) */
	uint32_t n;
	uint64_t seed;
};

void eng_gidmap_init(struct eng_gidmap *m, uint64_t seed);
void eng_gidmap_fini(struct eng_gidmap *m);
/* Adds (gid, dev_id), dev_id != 0: 0 (also when already there),
 * -EINVAL, -ENOMEM. */
int eng_gidmap_put(struct eng_gidmap *m, const uint8_t gid[16],
		   uint32_t dev_id);
/* Removes (gid, dev_id) if there. */
void eng_gidmap_del(struct eng_gidmap *m, const uint8_t gid[16],
		    uint32_t dev_id);
/* A device holding gid, or 0. */
uint32_t eng_gidmap_get(const struct eng_gidmap *m, const uint8_t gid[16]);
/* Device dev_id holds gid. */
bool eng_gidmap_has(const struct eng_gidmap *m, const uint8_t gid[16],
		    uint32_t dev_id);

#endif /* ENG_GIDMAP_H */
