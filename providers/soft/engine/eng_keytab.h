/* SPDX-License-Identifier: MIT */
/*
 * A hash table from 32-bit keys (memory keys, QP numbers) to objects,
 * for the data path's O(1) lookups.  Open addressing with linear probing
 * at most half full, so a lookup of any key an attacker makes (a guess)
 * probes a short run on average.  Key 0 is never stored.
 *
 * A freed key goes into quarantine: it stays taken (no lookup finds an
 * object for it, eng_keytab_taken says it is in use) until `quarantine`
 * later frees have pushed it out, so a stale key or QP number keeps
 * missing for a long while, as on hardware.  Pure: no I/O, no locking.
 */
#ifndef ENG_KEYTAB_H
#define ENG_KEYTAB_H

#include <stdbool.h>
#include <stdint.h>

struct eng_keytab_ent {
	uint32_t key;			/* 0: empty */
	void *obj;			/* NULL: quarantined */
};

struct eng_keytab {
	struct eng_keytab_ent *ent;
	uint32_t mask;			/* capacity - 1 (capacity 0: none) */
	uint32_t live, quarantined;
	uint32_t *fifo;			/* quarantined keys, oldest first */
	uint32_t fifo_cap, fifo_head;
};

void eng_keytab_init(struct eng_keytab *t, uint32_t quarantine);
void eng_keytab_fini(struct eng_keytab *t);
/* Stores obj (non-NULL) under key (non-zero): 0, -EEXIST (live or
 * quarantined), -EINVAL, -ENOMEM. */
int eng_keytab_put(struct eng_keytab *t, uint32_t key, void *obj);
/* The live object under key, or NULL. */
void *eng_keytab_get(const struct eng_keytab *t, uint32_t key);
/* Live or quarantined. */
bool eng_keytab_taken(const struct eng_keytab *t, uint32_t key);
/* Frees a live key into quarantine (no-op for any other key). */
void eng_keytab_del(struct eng_keytab *t, uint32_t key);

#endif /* ENG_KEYTAB_H */
