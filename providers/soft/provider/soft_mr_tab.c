/* SPDX-License-Identifier: MIT */
/*
 * A context's MRs by lkey (soft_provider.h, struct soft_mr).  The engine
 * owns the keys; this is the provider's copy of what it was told at
 * registration and rereg, so that ibv_advise_mr can check an SGE's key,
 * PD, range and rights without a round trip.  The records are made by
 * soft_objects.c; the table only links them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "providers/soft/provider/soft_provider.h"

#define SOFT_MR_TAB_BUCKETS 256		/* a power of two */

struct soft_mr_tab {
	pthread_mutex_t lock;
	struct soft_mr *bucket[SOFT_MR_TAB_BUCKETS];
};

/* The engine's keys are an index with a key byte in the low bits: mix
 * so that neighbouring indexes spread. */
static struct soft_mr **bucket_of(struct soft_mr_tab *t, uint32_t lkey)
{
	uint32_t h = lkey * 0x9e3779b1u;

	return &t->bucket[h >> 24 & (SOFT_MR_TAB_BUCKETS - 1)];
}

int soft_mr_tab_new(struct soft_mr_tab **ret_tab)
{
	struct soft_mr_tab *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	*ret_tab = t;
	return 0;
}

/* The records belong to their pv_mrs (an MR the app never deregistered
 * is its leak, as the MR itself is). */
void soft_mr_tab_free(struct soft_mr_tab *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void link_locked(struct soft_mr_tab *t, struct soft_mr *m)
{
	struct soft_mr **b = bucket_of(t, m->lkey);

	m->next = *b;
	*b = m;
}

static void unlink_locked(struct soft_mr_tab *t, struct soft_mr *m)
{
	for (struct soft_mr **pp = bucket_of(t, m->lkey); *pp;
	     pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			m->next = NULL;
			return;
		}
	}
}

void soft_mr_tab_add(struct soft_mr_tab *t, struct soft_mr *m)
{
	pthread_mutex_lock(&t->lock);
	link_locked(t, m);
	pthread_mutex_unlock(&t->lock);
}

void soft_mr_tab_remove(struct soft_mr_tab *t, struct soft_mr *m)
{
	pthread_mutex_lock(&t->lock);
	unlink_locked(t, m);
	pthread_mutex_unlock(&t->lock);
}

void soft_mr_tab_update(struct soft_mr_tab *t, struct soft_mr *m,
			const struct soft_mr *now)
{
	pthread_mutex_lock(&t->lock);
	unlink_locked(t, m);
	m->lkey = now->lkey;
	m->pd_handle = now->pd_handle;
	m->iova = now->iova;
	m->addr = now->addr;
	m->length = now->length;
	m->access = now->access;
	link_locked(t, m);
	pthread_mutex_unlock(&t->lock);
}

int soft_mr_tab_find(struct soft_mr_tab *t, uint32_t lkey,
		     struct soft_mr *ret)
{
	int found = -ENOENT;

	pthread_mutex_lock(&t->lock);
	for (struct soft_mr *m = *bucket_of(t, lkey); m; m = m->next) {
		if (m->lkey == lkey) {
			*ret = *m;
			ret->next = NULL;
			found = 0;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}
