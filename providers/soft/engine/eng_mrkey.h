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
struct eng_mw;

/* Memory windows (eng_mw.c) are found by their rkey's upper 24 bits,
 * the index, which a window keeps for life: a bind changes only the low
 * 8 bits (the consumer's key, as ibv_inc_rkey() does), so a window may
 * cycle through its 256 keys without running into the quarantine.  No
 * MR key ever falls in a live or quarantined window's 256 keys. */
#define ENG_MW_IDX(rkey)	(((rkey) >> 8) | (1u << 24))

struct eng_mrkeys {
	struct eng_keytab lkeys;	/* lkey -> struct eng_mr */
	struct eng_keytab rkeys;	/* rkey -> struct eng_mr */
	struct eng_keytab mwidx;	/* ENG_MW_IDX(rkey) -> struct eng_mw */
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

/* Gives mw a fresh index (no MR key inside its 256 keys) and a random
 * first key byte: sets mw->rkey; 0 or -ENOMEM. */
int eng_mrkeys_mw_assign(struct eng_mrkeys *k, struct eng_mw *mw);
/* Takes mw's index out (into quarantine). */
void eng_mrkeys_mw_release(struct eng_mrkeys *k, const struct eng_mw *mw);
/* The window whose index rkey names, whatever its key byte (callers
 * compare the whole rkey). */
static inline struct eng_mw *eng_mrkeys_mw_by_rkey(const struct eng_mrkeys *k,
						   uint32_t rkey)
{
	return eng_keytab_get(&k->mwidx, ENG_MW_IDX(rkey));
}

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
