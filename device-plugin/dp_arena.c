// SPDX-License-Identifier: MIT
#include "device-plugin/dp_arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dp_arena_chunk {
	struct dp_arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define DP_ARENA_CHUNK 16384

void *dp_arena_alloc(struct dp_arena *a, size_t size)
{
	struct dp_arena_chunk *c = a->head;
	size_t al = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	void *p;

	if (!c || c->cap - c->used < al) {
		size_t cap = al > DP_ARENA_CHUNK ? al : DP_ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c) {
			a->failed = 1;
			return NULL;
		}
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += al;
	memset(p, 0, size);
	return p;
}

char *dp_arena_strdup(struct dp_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = dp_arena_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

char *dp_arena_printf(struct dp_arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = dp_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void dp_arena_free(struct dp_arena *a)
{
	while (a->head) {
		struct dp_arena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
	a->failed = 0;
}
