/* SPDX-License-Identifier: MIT */
/*
 * Who may hold a connection (issue 8, finding 6): admin connections have
 * their own listener and cap; pod connections are capped per network
 * namespace (bucketed by the accepted socket's SO_NETNS_COOKIE, which no
 * client can race) and in all; a pod connection that has not proven its
 * namespace by HELLO within unproven_ms is closed, and only max_unproven
 * may wait at once, max_unproven_per_ns of them from one namespace.
 */
#ifndef ENG_ADMISSION_H
#define ENG_ADMISSION_H

#include "providers/soft/engine/eng.h"

/* 0 if a connection with identity id may be added, else -ENOMEM (a cap
 * was hit; counted and logged here). */
int eng_admit(struct eng *e, const struct eng_ident *id);
/* Bookkeeping for a connection just added / about to go. */
void eng_admitted(struct eng *e, struct eng_conn *c);
void eng_released(struct eng *e, struct eng_conn *c);

#endif /* ENG_ADMISSION_H */
