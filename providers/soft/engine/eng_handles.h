/* SPDX-License-Identifier: MIT */
/*
 * Per-connection object handles.  A handle is (generation << 16) |
 * (slot + 1): never 0, and a handle of a destroyed object stays invalid
 * after its slot is reused (the generation moved on).  A lookup names the
 * kind it expects, so a CQ handle passed as a PD is rejected.  Pure.
 */
#ifndef ENG_HANDLES_H
#define ENG_HANDLES_H

#include <stdint.h>

#define ENG_HANDLES_MAX	65535u	/* slots per connection */

struct eng_hslot {
	void    *obj;
	uint16_t gen;
	uint16_t kind;
};

struct eng_htab {
	struct eng_hslot *slot;
	uint32_t cap;
	uint32_t used;
	uint32_t free_hint;
};

void eng_htab_init(struct eng_htab *t);
void eng_htab_fini(struct eng_htab *t);
/* Returns a new handle (> 0) for obj, or -ENOMEM. */
int64_t eng_htab_add(struct eng_htab *t, void *obj, uint16_t kind);
/* The object behind handle if it is of kind, else NULL. */
void *eng_htab_get(const struct eng_htab *t, uint32_t handle, uint16_t kind);
/* Puts obj of kind behind a live handle in place of what it named
 * (the handle's number stays); returns 0 or -ENOENT. */
int eng_htab_set(struct eng_htab *t, uint32_t handle, void *obj,
		 uint16_t kind);
/* Forgets handle; returns 0 or -ENOENT. */
int eng_htab_del(struct eng_htab *t, uint32_t handle);

#endif /* ENG_HANDLES_H */
