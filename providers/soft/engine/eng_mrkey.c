/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_mrkey.h"

#include <errno.h>

#include "providers/soft/engine/eng_csprng.h"
#include "providers/soft/engine/eng_obj.h"

void eng_mrkeys_init(struct eng_mrkeys *k)
{
	eng_keytab_init(&k->lkeys, ENG_MRKEY_QUARANTINE);
	eng_keytab_init(&k->rkeys, ENG_MRKEY_QUARANTINE);
	eng_keytab_init(&k->mwidx, ENG_MRKEY_QUARANTINE);
}

void eng_mrkeys_fini(struct eng_mrkeys *k)
{
	eng_keytab_fini(&k->lkeys);
	eng_keytab_fini(&k->rkeys);
	eng_keytab_fini(&k->mwidx);
}

static bool key_free(const struct eng_mrkeys *k, uint32_t key)
{
	return key && !eng_keytab_taken(&k->lkeys, key) &&
	       !eng_keytab_taken(&k->rkeys, key) &&
	       !eng_keytab_taken(&k->mwidx, ENG_MW_IDX(key));
}

/* A key nothing in the device uses; with the MR limits far below 2^32 a
 * draw is taken with negligible probability, so a few tries suffice. */
static uint32_t draw(const struct eng_mrkeys *k, uint32_t not)
{
	for (int i = 0; i < 32; i++) {
		uint32_t key = eng_csprng_u32();

		if (key != not && key_free(k, key))
			return key;
	}
	return 0;
}

/* Two fresh keys for mr, entered in both tables (mr's own unchanged). */
static int put_pair(struct eng_mrkeys *k, struct eng_mr *mr, uint32_t *lkey,
		    uint32_t *rkey)
{
	*lkey = draw(k, 0);
	*rkey = *lkey ? draw(k, *lkey) : 0;
	if (!*rkey)
		return -ENOMEM;
	if (eng_keytab_put(&k->lkeys, *lkey, mr) < 0)
		return -ENOMEM;
	if (eng_keytab_put(&k->rkeys, *rkey, mr) < 0) {
		eng_keytab_del(&k->lkeys, *lkey);
		return -ENOMEM;
	}
	return 0;
}

int eng_mrkeys_assign(struct eng_mrkeys *k, struct eng_mr *mr)
{
	uint32_t lkey, rkey;

	if (put_pair(k, mr, &lkey, &rkey) < 0)
		return -ENOMEM;
	mr->lkey = lkey;
	mr->rkey = rkey;
	return 0;
}

void eng_mrkeys_release(struct eng_mrkeys *k, const struct eng_mr *mr)
{
	if (eng_keytab_get(&k->lkeys, mr->lkey) == mr)
		eng_keytab_del(&k->lkeys, mr->lkey);
	if (eng_keytab_get(&k->rkeys, mr->rkey) == mr)
		eng_keytab_del(&k->rkeys, mr->rkey);
}

int eng_mrkeys_rekey(struct eng_mrkeys *k, struct eng_mr *mr)
{
	uint32_t lkey, rkey;

	if (put_pair(k, mr, &lkey, &rkey) < 0)
		return -ENOMEM;
	eng_mrkeys_release(k, mr);
	mr->lkey = lkey;
	mr->rkey = rkey;
	return 0;
}

/* No MR key lies among the 256 keys of index idx. */
static bool mw_range_free(const struct eng_mrkeys *k, uint32_t idx)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t key = (idx << 8) | b;

		if (eng_keytab_taken(&k->lkeys, key) ||
		    eng_keytab_taken(&k->rkeys, key))
			return false;
	}
	return true;
}

int eng_mrkeys_mw_assign(struct eng_mrkeys *k, struct eng_mw *mw)
{
	for (int i = 0; i < 32; i++) {
		uint32_t key = eng_csprng_u32(), idx = key >> 8;

		if (!idx || eng_keytab_taken(&k->mwidx, ENG_MW_IDX(key)) ||
		    !mw_range_free(k, idx))
			continue;
		if (eng_keytab_put(&k->mwidx, ENG_MW_IDX(key), mw) < 0)
			return -ENOMEM;
		mw->rkey = key;
		return 0;
	}
	return -ENOMEM;
}

void eng_mrkeys_mw_release(struct eng_mrkeys *k, const struct eng_mw *mw)
{
	if (eng_keytab_get(&k->mwidx, ENG_MW_IDX(mw->rkey)) == mw)
		eng_keytab_del(&k->mwidx, ENG_MW_IDX(mw->rkey));
}
