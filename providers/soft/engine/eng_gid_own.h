/* SPDX-License-Identifier: MIT */
/*
 * GID ownership: a GID belongs to at most one device of an engine.  The
 * engine routes by destination GID and writes the sender's GID into UD
 * receivers' GRHs, so a pod that adds a neighbour's address to its own
 * interface must not get that neighbour's GID into its table: it would be
 * able to send as the neighbour and to catch traffic meant for it.  The
 * first device holding a GID keeps it; a later one leaves it out of its
 * (still dense) table until the owner lets it go.
 *
 * Except for claimed GIDs: those of the addresses the CNI assigned to a
 * device's attachment (ADM_DEV_ADD's claims).  A device gets a GID it
 * claims even from an earlier holder that does not claim it (a squatter
 * that added the address while the rightful device was away, e.g. being
 * re-added after a restart); the holder then loses it and counts a
 * conflict.  Between two claimants the first keeps it.  Pure: callers
 * pass the other devices' current tables and claims.
 */
#ifndef ENG_GID_OWN_H
#define ENG_GID_OWN_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/pv-soft-abi.h"

/* Candidates read from an interface: up to twice a table, so that entries
 * left out for conflicts can let later addresses move up. */
#define ENG_GID_WANT_MAX	(2 * PV_GID_TABLE_MAX)

/* Another device's current table (borrowed). */
struct eng_gid_holder {
	uint32_t dev_id;
	uint32_t count;
	const struct pv_ipc_gid_entry *gid;
	uint32_t nclaims;		/* its claimed GIDs (may be 0) */
	const uint8_t (*claims)[16];
};

/* What a device may have: kept candidates in their order (dense), and the
 * candidates left out because another device owns them. */
struct eng_gid_claim {
	uint32_t count;
	uint8_t gid[PV_GID_TABLE_MAX][16];
	uint32_t nconflicts;
	uint8_t conflict[ENG_GID_WANT_MAX][16];
	uint32_t conflict_owner[ENG_GID_WANT_MAX];
};

/* The id of the holder other than self_id whose table has gid; 0 if none. */
uint32_t eng_gid_owner(const struct eng_gid_holder *h, uint32_t nh,
		       uint32_t self_id, const uint8_t gid[16]);

/* Decides device self_id's table from its candidates want[0..nwant) and
 * the other devices' tables.  A repeated candidate is kept once; past
 * PV_GID_TABLE_MAX kept entries the rest are dropped (not conflicts). */
void eng_gid_claim(uint32_t self_id, const uint8_t (*want)[16],
		   uint32_t nwant, const struct eng_gid_holder *h,
		   uint32_t nh, struct eng_gid_claim *out);

/* The same for a device claiming claims[0..nclaims): a holder that does
 * not claim a GID self claims does not own it against self. */
uint32_t eng_gid_owner_for(const struct eng_gid_holder *h, uint32_t nh,
			   uint32_t self_id, const uint8_t (*claims)[16],
			   uint32_t nclaims, const uint8_t gid[16]);
void eng_gid_claim_with(uint32_t self_id, const uint8_t (*want)[16],
			uint32_t nwant, const uint8_t (*claims)[16],
			uint32_t nclaims, const struct eng_gid_holder *h,
			uint32_t nh, struct eng_gid_claim *out);

/* gid is in device table t[0..n). */
bool eng_gid_table_has(const struct pv_ipc_gid_entry *t, uint32_t n,
		       const uint8_t gid[16]);

/* gid is one of set[0..n). */
bool eng_gid_in(const uint8_t (*set)[16], uint32_t n, const uint8_t gid[16]);

/* Some GID of table old[0..nold) is missing from new[0..nnew): the device
 * let it go and others may now claim it. */
bool eng_gid_released(const struct pv_ipc_gid_entry *old, uint32_t nold,
		      const uint8_t (*new_gids)[16], uint32_t nnew);

#endif /* ENG_GID_OWN_H */
