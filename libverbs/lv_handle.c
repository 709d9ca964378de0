/* SPDX-License-Identifier: MIT */
/*
 * Per-context map from a provider's (kind, handle) to the core object, used
 * to turn async and completion events back into the app's pointers.  A
 * chained hash; callers serialise (the context's obj_lock).
 */
#include <errno.h>
#include <stdlib.h>

#include "libverbs/lv_core.h"

struct lv_hentry {
	struct lv_hentry *next;
	uint32_t kind;
	uint32_t handle;
	void *obj;
};

static unsigned int bucket_of(uint32_t kind, uint32_t handle)
{
	uint32_t h = handle * 2654435761u ^ kind * 40503u;

	return (h >> 8) % LV_HASH_BUCKETS;
}

int lv_htable_insert(struct lv_htable *t, uint32_t kind, uint32_t handle,
		     void *obj)
{
	unsigned int b = bucket_of(kind, handle);
	struct lv_hentry *e;

	for (e = t->bucket[b]; e; e = e->next)
		if (e->kind == kind && e->handle == handle)
			return -EEXIST;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->kind = kind;
	e->handle = handle;
	e->obj = obj;
	e->next = t->bucket[b];
	t->bucket[b] = e;
	return 0;
}

void *lv_htable_lookup(const struct lv_htable *t, uint32_t kind,
		       uint32_t handle)
{
	const struct lv_hentry *e;

	for (e = t->bucket[bucket_of(kind, handle)]; e; e = e->next)
		if (e->kind == kind && e->handle == handle)
			return e->obj;
	return NULL;
}

void *lv_htable_remove(struct lv_htable *t, uint32_t kind, uint32_t handle)
{
	struct lv_hentry **pp = &t->bucket[bucket_of(kind, handle)];

	for (; *pp; pp = &(*pp)->next) {
		struct lv_hentry *e = *pp;
		void *obj;

		if (e->kind != kind || e->handle != handle)
			continue;
		obj = e->obj;
		*pp = e->next;
		free(e);
		return obj;
	}
	return NULL;
}

void lv_htable_clear(struct lv_htable *t)
{
	for (unsigned int b = 0; b < LV_HASH_BUCKETS; b++) {
		while (t->bucket[b]) {
			struct lv_hentry *e = t->bucket[b];

			t->bucket[b] = e->next;
			free(e);
		}
	}
}
