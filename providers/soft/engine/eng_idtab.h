/* SPDX-License-Identifier: MIT */
/*
 * An index table: small integers in [min, max] mapped to objects, for
 * lookups a data path makes (device id, QP number, MR key index).
 * Dense tables (devices) allocate next-fit from a moving cursor, so a
 * freed index is not handed out again at once.  Sparse tables (QP
 * numbers) draw each index at random from the whole range (eng_csprng.h)
 * and keep freed ones in quarantine (eng_keytab.h): a peer can neither
 * predict the next number nor reach a new QP through a stale one, as on
 * hardware.  No I/O, no locking (the owner locks).
 */
#ifndef ENG_IDTAB_H
#define ENG_IDTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng_keytab.h"

struct eng_idtab {
	void   **slot;
	uint32_t cap;		/* slots allocated: indexes [0, cap) */
	uint32_t min, max;	/* usable index range */
	uint32_t next;		/* cursor for next-fit */
	uint32_t used;
	bool sparse;		/* random indexes in a hash table */
	struct eng_keytab kt;	/* sparse: the live and quarantined ones */
};

void eng_idtab_init(struct eng_idtab *t, uint32_t min, uint32_t max);
/* A sparse table over [min, max] (min >= 1) whose freed indexes stay
 * unused for the next `quarantine` frees. */
void eng_idtab_init_sparse(struct eng_idtab *t, uint32_t min, uint32_t max,
			   uint32_t quarantine);
void eng_idtab_fini(struct eng_idtab *t);
/* Stores obj (non-NULL) at a free index; returns it or -ENOMEM. */
int64_t eng_idtab_alloc(struct eng_idtab *t, void *obj);
/* Stores obj at exactly idx (an id kept across an engine restart):
 * -EINVAL outside [min, max], -EEXIST if taken, -ENOMEM.  The next-fit
 * cursor moves past idx, never back. */
int eng_idtab_alloc_at(struct eng_idtab *t, uint32_t idx, void *obj);
/* The object at idx, or NULL. */
void *eng_idtab_get(const struct eng_idtab *t, uint32_t idx);
/* Frees idx (no-op when empty). */
void eng_idtab_free(struct eng_idtab *t, uint32_t idx);

#endif /* ENG_IDTAB_H */
