/* SPDX-License-Identifier: MIT */
/*
 * Memory keys of a device's MRs.  Both keys of an MR are drawn from the
 * whole 32-bit space by the engine's CSPRNG (eng_csprng.h), the lkey
 * differs from the rkey, and no key is live or recently freed anywhere
 * in the device (either table), so a peer that learns one key learns
 * nothing about another and a stale key keeps missing.  Each key finds
 * its MR through its own hash table: an rkey can never be used as an
 * lkey or the other way round, and a guess costs O(1).
 */
#ifndef ENG_MRKEY_H
#define ENG_MRKEY_H

#include <stdint.h>

#include "providers/soft/engine/eng_keytab.h"

/* Freed keys kept out of use per table. */
#define ENG_MRKEY_QUARANTINE	1024

struct eng_mr;

struct eng_mrkeys {
	struct eng_keytab lkeys;	/* lkey -> struct eng_mr */
	struct eng_keytab rkeys;	/* rkey -> struct eng_mr */
};

void eng_mrkeys_init(struct eng_mrkeys *k);
void eng_mrkeys_fini(struct eng_mrkeys *k);
/* Picks mr->lkey and mr->rkey and enters them: 0 or -ENOMEM. */
int eng_mrkeys_assign(struct eng_mrkeys *k, struct eng_mr *mr);
/* Gives mr two new keys, drawn as eng_mrkeys_assign draws them; its old
 * ones go to quarantine (ibv_rereg_mr: a stale key keeps missing).  0, or
 * -ENOMEM with mr and its keys as they were. */
int eng_mrkeys_rekey(struct eng_mrkeys *k, struct eng_mr *mr);
/* Takes mr's keys out (into quarantine); no-op if they are not in. */
void eng_mrkeys_release(struct eng_mrkeys *k, const struct eng_mr *mr);

static inline struct eng_mr *eng_mrkeys_by_lkey(const struct eng_mrkeys *k,
						uint32_t lkey)
{
	return eng_keytab_get(&k->lkeys, lkey);
}

static inline struct eng_mr *eng_mrkeys_by_rkey(const struct eng_mrkeys *k,
						uint32_t rkey)
{
	return eng_keytab_get(&k->rkeys, rkey);
}

#endif /* ENG_MRKEY_H */
