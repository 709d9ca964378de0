/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_idtab.h"

#include "providers/soft/engine/eng_csprng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void eng_idtab_init(struct eng_idtab *t, uint32_t min, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	t->min = min;
	t->max = max;
	t->next = min;
}

void eng_idtab_init_sparse(struct eng_idtab *t, uint32_t min, uint32_t max,
			   uint32_t quarantine)
{
	eng_idtab_init(t, min ? min : 1, max);
	t->sparse = true;
	eng_keytab_init(&t->kt, quarantine);
}

void eng_idtab_fini(struct eng_idtab *t)
{
	eng_keytab_fini(&t->kt);
	free(t->slot);
	t->slot = NULL;
	t->cap = t->used = 0;
}

static int grow(struct eng_idtab *t)
{
	uint64_t want = t->cap ? (uint64_t)t->cap * 2 : t->min + 16;
	void **s;

	if (want > (uint64_t)t->max + 1)
		want = (uint64_t)t->max + 1;
	if (want <= t->cap)
		return -ENOMEM;
	s = realloc(t->slot, want * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + t->cap, 0, (want - t->cap) * sizeof(*s));
	t->slot = s;
	t->cap = (uint32_t)want;
	return 0;
}

static int64_t find_free(const struct eng_idtab *t)
{
	uint32_t start = t->next;

	if (t->cap <= t->min)
		return -1;
	if (start < t->min || start >= t->cap)
		start = t->min;
	for (uint32_t i = start; i < t->cap; i++)
		if (!t->slot[i])
			return i;
	for (uint32_t i = t->min; i < start; i++)
		if (!t->slot[i])
			return i;
	return -1;
}

/* A few random draws find a free index while the range is mostly free
 * (the limits keep it so); a crowded small range falls back to a scan
 * from a random start. */
static int64_t sparse_alloc(struct eng_idtab *t, void *obj)
{
	uint64_t span = (uint64_t)t->max - t->min + 1;
	uint32_t idx;

	if (!obj || t->min > t->max)
		return -EINVAL;
	for (int i = 0; i < 64; i++) {
		idx = t->min + (span > UINT32_MAX ? eng_csprng_u32()
			: eng_csprng_below((uint32_t)span));
		if (idx >= t->min && !eng_keytab_taken(&t->kt, idx))
			goto found;
	}
	idx = t->min + eng_csprng_below((uint32_t)(span > UINT32_MAX ?
					UINT32_MAX : span));
	for (uint64_t n = 0; n < span; n++) {
		if (!eng_keytab_taken(&t->kt, idx))
			goto found;
		idx = idx >= t->max ? t->min : idx + 1;
	}
	return -ENOMEM;
found:
	if (eng_keytab_put(&t->kt, idx, obj) < 0)
		return -ENOMEM;
	t->used++;
	return idx;
}

int64_t eng_idtab_alloc(struct eng_idtab *t, void *obj)
{
	int64_t idx;

	if (t->sparse)
		return sparse_alloc(t, obj);
	idx = find_free(t);

	if (idx < 0) {
		uint32_t old = t->cap;

		if (grow(t) < 0)
			return -ENOMEM;
		idx = old > t->min ? old : t->min;
	}
	t->slot[idx] = obj;
	t->used++;
	t->next = (uint32_t)idx + 1;
	return idx;
}

void *eng_idtab_get(const struct eng_idtab *t, uint32_t idx)
{
	if (t->sparse)
		return idx < t->min || idx > t->max ? NULL :
		       eng_keytab_get(&t->kt, idx);
	if (idx < t->min || idx >= t->cap)
		return NULL;
	return t->slot[idx];
}

void eng_idtab_free(struct eng_idtab *t, uint32_t idx)
{
	if (t->sparse) {
		if (eng_keytab_get(&t->kt, idx)) {
			eng_keytab_del(&t->kt, idx);
			t->used--;
		}
		return;
	}
	if (idx < t->min || idx >= t->cap || !t->slot[idx])
		return;
	t->slot[idx] = NULL;
	t->used--;
}

int eng_idtab_alloc_at(struct eng_idtab *t, uint32_t idx, void *obj)
{
	if (idx < t->min || idx > t->max)
		return -EINVAL;
	while (idx >= t->cap)
		if (grow(t) < 0)
			return -ENOMEM;
	if (t->slot[idx])
		return -EEXIST;
	t->slot[idx] = obj;
	t->used++;
	if (t->next <= idx)
		t->next = idx + 1;
	return 0;
}
