/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator for building one protobuf-c response: every nested
 * message, array and string of a reply comes from it and is released at
 * once after packing, so no builder needs a matching free walk.
 */
#ifndef DP_ARENA_H
#define DP_ARENA_H

#include <stddef.h>

struct dp_arena_chunk;

struct dp_arena {
	struct dp_arena_chunk *head;
	int failed;		/* set once any allocation failed */
};

/* Zeroed memory, or NULL (and a->failed set). */
void *dp_arena_alloc(struct dp_arena *a, size_t size);
char *dp_arena_strdup(struct dp_arena *a, const char *s);
__attribute__((format(printf, 2, 3)))
char *dp_arena_printf(struct dp_arena *a, const char *fmt, ...);
void dp_arena_free(struct dp_arena *a);

#endif /* DP_ARENA_H */
