/* SPDX-License-Identifier: MIT */
/*
 * The loop's primitives: registering pollables with the epoll set and
 * freeing what a ready callback closed once the batch it belongs to is
 * over.  A leaf of the engine's call graph (tests/abi/layering.sh): every
 * file may call these, they call nothing of the engine, so the loop at
 * the top (eng_loop.c) and the files it drives never call each other in
 * a circle.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "providers/soft/engine/eng.h"

int eng_poll_add(struct eng *e, struct eng_pollable *p)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, p->fd, &ev) < 0 ? -errno : 0;
}

void eng_poll_del(struct eng *e, struct eng_pollable *p)
{
	epoll_ctl(e->epfd, EPOLL_CTL_DEL, p->fd, NULL);
}

/* A later event of the same batch may still point at a pollable a
 * callback closed (epoll_wait returned them together): its memory must
 * outlive the batch. */
void eng_defer_free(struct eng *e, void *ptr)
{
	if (e->in_batch) {
		if (e->ndeferred == e->deferred_cap) {
			uint32_t cap = e->deferred_cap ? e->deferred_cap * 2 : 16;
			void **d = realloc(e->deferred, cap * sizeof(*d));

			if (!d)
				return;	/* leak rather than use after free */
			e->deferred = d;
			e->deferred_cap = cap;
		}
		e->deferred[e->ndeferred++] = ptr;
		return;
	}
	free(ptr);
}

void eng_batch_begin(struct eng *e)
{
	e->in_batch = true;
}

void eng_batch_end(struct eng *e)
{
	e->in_batch = false;
	for (uint32_t i = 0; i < e->ndeferred; i++)
		free(e->deferred[i]);
	e->ndeferred = 0;
}
