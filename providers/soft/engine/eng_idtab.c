/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_idtab.h"

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

void eng_idtab_fini(struct eng_idtab *t)
{
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

int64_t eng_idtab_alloc(struct eng_idtab *t, void *obj)
{
	int64_t idx = find_free(t);

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
	if (idx < t->min || idx >= t->cap)
		return NULL;
	return t->slot[idx];
}

void eng_idtab_free(struct eng_idtab *t, uint32_t idx)
{
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
