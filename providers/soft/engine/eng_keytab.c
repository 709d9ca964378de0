/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_keytab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CAP 16u

/* Keys are random, but QP numbers of a small range are not: spread them
 * (Fibonacci hashing). */
static inline uint32_t home(const struct eng_keytab *t, uint32_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32) &
	       t->mask;
}

void eng_keytab_init(struct eng_keytab *t, uint32_t quarantine)
{
	memset(t, 0, sizeof(*t));
	t->fifo_cap = quarantine;
}

void eng_keytab_fini(struct eng_keytab *t)
{
	free(t->ent);
	free(t->fifo);
	memset(t, 0, sizeof(*t));
}

static struct eng_keytab_ent *find(const struct eng_keytab *t, uint32_t key)
{
	if (!t->ent || !key)
		return NULL;
	for (uint32_t i = home(t, key);; i = (i + 1) & t->mask) {
		struct eng_keytab_ent *e = &t->ent[i];

		if (e->key == key)
			return e;
		if (!e->key)
			return NULL;
	}
}

static void place(struct eng_keytab *t, uint32_t key, void *obj)
{
	uint32_t i = home(t, key);

	while (t->ent[i].key)
		i = (i + 1) & t->mask;
	t->ent[i].key = key;
	t->ent[i].obj = obj;
}

static int grow(struct eng_keytab *t)
{
	uint64_t cap = t->ent ? ((uint64_t)t->mask + 1) * 2 : MIN_CAP;
	struct eng_keytab_ent *old = t->ent;
	uint32_t old_cap = t->ent ? t->mask + 1 : 0;

	if (cap > (1ull << 31))
		return -ENOMEM;
	t->ent = calloc(cap, sizeof(*t->ent));
	if (!t->ent) {
		t->ent = old;
		return -ENOMEM;
	}
	t->mask = (uint32_t)cap - 1;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].key)
			place(t, old[i].key, old[i].obj);
	free(old);
	return 0;
}

/* Backward-shift deletion keeps every probe run unbroken without
 * tombstones. */
static void remove_at(struct eng_keytab *t, struct eng_keytab_ent *e)
{
	uint32_t i = (uint32_t)(e - t->ent);

	for (uint32_t j = (i + 1) & t->mask; t->ent[j].key;
	     j = (j + 1) & t->mask) {
		uint32_t h = home(t, t->ent[j].key);

		/* Entry j may move to i when its home is not in (i, j]. */
		if (((j - h) & t->mask) >= ((j - i) & t->mask)) {
			t->ent[i] = t->ent[j];
			i = j;
		}
	}
	t->ent[i].key = 0;
	t->ent[i].obj = NULL;
}

int eng_keytab_put(struct eng_keytab *t, uint32_t key, void *obj)
{
	uint64_t n = (uint64_t)t->live + t->quarantined + 1;

	if (!key || !obj)
		return -EINVAL;
	if (find(t, key))
		return -EEXIST;
	if (!t->ent || n * 2 > (uint64_t)t->mask + 1)
		if (grow(t) < 0)
			return -ENOMEM;
	place(t, key, obj);
	t->live++;
	return 0;
}

void *eng_keytab_get(const struct eng_keytab *t, uint32_t key)
{
	struct eng_keytab_ent *e = find(t, key);

	return e ? e->obj : NULL;
}

bool eng_keytab_taken(const struct eng_keytab *t, uint32_t key)
{
	return find(t, key) != NULL;
}

void eng_keytab_del(struct eng_keytab *t, uint32_t key)
{
	struct eng_keytab_ent *e = find(t, key);

	if (!e || !e->obj)
		return;
	t->live--;
	if (!t->fifo_cap) {
		remove_at(t, e);
		return;
	}
	if (!t->fifo) {
		t->fifo = calloc(t->fifo_cap, sizeof(*t->fifo));
		if (!t->fifo) {		/* no quarantine rather than a leak */
			remove_at(t, e);
			return;
		}
	}
	if (t->quarantined == t->fifo_cap) {
		/* Full: the oldest quarantined key becomes free again. */
		struct eng_keytab_ent *old = find(t, t->fifo[t->fifo_head]);

		if (old)
			remove_at(t, old);
		t->fifo_head = (t->fifo_head + 1) % t->fifo_cap;
		t->quarantined--;
		e = find(t, key);	/* the shift may have moved it */
	}
	e->obj = NULL;
	t->fifo[(t->fifo_head + t->quarantined) % t->fifo_cap] = key;
	t->quarantined++;
}
