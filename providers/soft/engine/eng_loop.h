/* SPDX-License-Identifier: MIT */
#ifndef ENG_LOOP_H
#define ENG_LOOP_H

#include "providers/soft/engine/eng.h"

/* Runs the loop until e->stop; returns 0 or -errno. */
int eng_run(struct eng *e);

#endif /* ENG_LOOP_H */
