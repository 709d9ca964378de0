/* SPDX-License-Identifier: MIT */
/*
 * The engine's GID -> device index (eng_gidmap.h).
 */
#include "providers/soft/engine/eng_gidmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CAP 64u
/* MurmurHash3's 64-bit finaliser: every input bit reaches every output
 * bit (the table uses the low ones; an address's last byte sits in the
 * top byte of the second half). */
static uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* The two 64-bit halves folded under the seed. */
static uint32_t home(const struct eng_gidmap *m, const uint8_t gid[16])
{
	uint64_t a, b;

	memcpy(&a, gid, 8);
	memcpy(&b, gid + 8, 8);
	return (uint32_t)fmix(fmix(m->seed ^ a) ^ b) & m->mask;
}

void eng_gidmap_init(struct eng_gidmap *m, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->seed = seed;
}

void eng_gidmap_fini(struct eng_gidmap *m)
{
	free(m->ent);
	m->ent = NULL;
	m->mask = 0;
	m->n = 0;
}

static struct eng_gidmap_ent *find(const struct eng_gidmap *m,
				   const uint8_t gid[16], uint32_t dev_id)
{
	if (!m->ent)
		return NULL;
	for (uint32_t i = home(m, gid);; i = (i + 1) & m->mask) {
		struct eng_gidmap_ent *x = &m->ent[i];

		if (!x->dev_id)
			return NULL;
		if ((!dev_id || x->dev_id == dev_id) &&
		    memcmp(x->gid, gid, 16) == 0)
			return x;
	}
}

static void place(struct eng_gidmap *m, const uint8_t gid[16],
		  uint32_t dev_id)
{
	uint32_t i = home(m, gid);

	while (m->ent[i].dev_id)
		i = (i + 1) & m->mask;
	memcpy(m->ent[i].gid, gid, 16);
	m->ent[i].dev_id = dev_id;
}

static int grow(struct eng_gidmap *m)
{
	uint32_t old_cap = m->ent ? m->mask + 1 : 0;
	uint32_t cap = old_cap ? 2 * old_cap : MIN_CAP;
	struct eng_gidmap_ent *old = m->ent;

	if (cap > (1u << 24))
		return -ENOMEM;
	m->ent = calloc(cap, sizeof(*m->ent));
	if (!m->ent) {
		m->ent = old;
		return -ENOMEM;
	}
	m->mask = cap - 1;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].dev_id)
			place(m, old[i].gid, old[i].dev_id);
	free(old);
	return 0;
}

int eng_gidmap_put(struct eng_gidmap *m, const uint8_t gid[16],
		   uint32_t dev_id)
{
	if (!dev_id)
		return -EINVAL;
	if (find(m, gid, dev_id))
		return 0;
	if (!m->ent || 2 * ((uint64_t)m->n + 1) > (uint64_t)m->mask + 1)
		if (grow(m) < 0)
			return -ENOMEM;
	place(m, gid, dev_id);
	m->n++;
	return 0;
}

/* Backward-shift deletion (as eng_keytab.c): probe runs stay unbroken
 * without tombstones. */
void eng_gidmap_del(struct eng_gidmap *m, const uint8_t gid[16],
		    uint32_t dev_id)
{
	struct eng_gidmap_ent *x = dev_id ? find(m, gid, dev_id) : NULL;
	uint32_t i;

	if (!x)
		return;
	i = (uint32_t)(x - m->ent);
	for (uint32_t j = (i + 1) & m->mask; m->ent[j].dev_id;
	     j = (j + 1) & m->mask) {
		uint32_t h = home(m, m->ent[j].gid);

		if (((j - h) & m->mask) >= ((j - i) & m->mask)) {
			m->ent[i] = m->ent[j];
			i = j;
		}
	}
	memset(&m->ent[i], 0, sizeof(m->ent[i]));
	m->n--;
}

uint32_t eng_gidmap_get(const struct eng_gidmap *m, const uint8_t gid[16])
{
	const struct eng_gidmap_ent *x = find(m, gid, 0);

	return x ? x->dev_id : 0;
}

bool eng_gidmap_has(const struct eng_gidmap *m, const uint8_t gid[16],
		    uint32_t dev_id)
{
	return dev_id && find(m, gid, dev_id);
}
