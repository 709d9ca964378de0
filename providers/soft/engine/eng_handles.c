/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_handles.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void eng_htab_init(struct eng_htab *t)
{
	memset(t, 0, sizeof(*t));
}

void eng_htab_fini(struct eng_htab *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static struct eng_hslot *slot_of(const struct eng_htab *t, uint32_t handle)
{
	uint32_t idx = (handle & 0xffff);

	if (idx == 0 || idx > t->cap)
		return NULL;
	return &t->slot[idx - 1];
}

int64_t eng_htab_add(struct eng_htab *t, void *obj, uint16_t kind)
{
	uint32_t i;

	for (i = t->free_hint; i < t->cap; i++)
		if (!t->slot[i].obj)
			break;
	if (i >= t->cap) {
		uint32_t want = t->cap ? t->cap * 2 : 16;
		struct eng_hslot *s;

		if (t->cap >= ENG_HANDLES_MAX)
			return -ENOMEM;
		if (want > ENG_HANDLES_MAX)
			want = ENG_HANDLES_MAX;
		s = realloc(t->slot, want * sizeof(*s));
		if (!s)
			return -ENOMEM;
		memset(s + t->cap, 0, (want - t->cap) * sizeof(*s));
		i = t->cap;
		t->slot = s;
		t->cap = want;
	}
	t->slot[i].obj = obj;
	t->slot[i].kind = kind;
	if (t->slot[i].gen == 0)
		t->slot[i].gen = 1;
	t->used++;
	t->free_hint = i + 1;
	return ((int64_t)t->slot[i].gen << 16) | (i + 1);
}

void *eng_htab_get(const struct eng_htab *t, uint32_t handle, uint16_t kind)
{
	const struct eng_hslot *s = slot_of(t, handle);

	if (!s || !s->obj || s->gen != (handle >> 16) || s->kind != kind)
		return NULL;
	return s->obj;
}

int eng_htab_set(struct eng_htab *t, uint32_t handle, void *obj,
		 uint16_t kind)
{
	struct eng_hslot *s = slot_of(t, handle);

	if (!s || !s->obj || !obj || s->gen != (handle >> 16))
		return -ENOENT;
	s->obj = obj;
	s->kind = kind;
	return 0;
}

int eng_htab_del(struct eng_htab *t, uint32_t handle)
{
	struct eng_hslot *s = slot_of(t, handle);

	if (!s || !s->obj || s->gen != (handle >> 16))
		return -ENOENT;
	s->obj = NULL;
	/* Generation 0 is never used, so handles stay != 0 and stale ones
	 * never match a reused slot until 65535 reuses later. */
	s->gen = (uint16_t)(s->gen + 1) ? (uint16_t)(s->gen + 1) : 1;
	t->used--;
	if ((uint32_t)(s - t->slot) < t->free_hint)
		t->free_hint = (uint32_t)(s - t->slot);
	return 0;
}
