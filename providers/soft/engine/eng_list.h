/* SPDX-License-Identifier: MIT */
/* A minimal intrusive circular doubly-linked list. */
#ifndef ENG_LIST_H
#define ENG_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct eng_list {
	struct eng_list *next, *prev;
};

static inline void eng_list_init(struct eng_list *h)
{
	h->next = h->prev = h;
}

static inline bool eng_list_empty(const struct eng_list *h)
{
	return h->next == h;
}

static inline void eng_list_add_tail(struct eng_list *h, struct eng_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void eng_list_del(struct eng_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define eng_container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

/* Safe against removal of the current node. */
#define eng_list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

#endif /* ENG_LIST_H */
