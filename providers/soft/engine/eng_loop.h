/* SPDX-License-Identifier: MIT */
#ifndef ENG_LOOP_H
#define ENG_LOOP_H

#include "providers/soft/engine/eng.h"

/* Sets up e (no listener yet); 0 or -errno. */
int eng_init(struct eng *e);

/* Closes every connection and device and frees e's resources. */
void eng_fini(struct eng *e);

/* Runs the loop until e->stop; returns 0 or -errno. */
int eng_run(struct eng *e);

#endif /* ENG_LOOP_H */
