/* SPDX-License-Identifier: MIT */
/*
 * What the impairer does to each direction, parsed from KEY=VALUE words
 * ("loss=3" for both directions, "ab.loss=3" for A->B only, "ba.dup=1" for
 * B->A).  Pure: no I/O.
 */
#ifndef PVI_SPEC_H
#define PVI_SPEC_H

#include <stdint.h>

enum { PVI_AB = 0, PVI_BA = 1, PVI_NDIR = 2 };

#define PVI_HOLD_MAX 64u		/* frames held back at once, per direction */

struct pvi_dir_cfg {
	uint32_t loss_ppm;	/* frames dropped */
	uint32_t reorder_ppm;	/* frames held back (sent after later ones) */
	uint32_t dup_ppm;	/* frames sent twice */
	uint32_t corrupt_ppm;	/* frames with one L4-payload bit flipped */
	uint32_t hold_frames;	/* a held frame goes out after this many later ones */
	uint32_t hold_us;	/* ... or after this long, if traffic stops */
	uint32_t delay_us;	/* every frame waits this long */
};

/* The defaults: no fault, a held frame released after 3 frames or 2 ms. */
void pvi_spec_defaults(struct pvi_dir_cfg cfg[PVI_NDIR]);

/* Applies one KEY=VALUE word.  0, or -EINVAL (unknown key, bad number,
 * out of range: rates 0..100 percent, hold 1..64, holdus 1..10^6,
 * delay 0..10^6 us). */
int pvi_spec_apply(struct pvi_dir_cfg cfg[PVI_NDIR], const char *word);

#endif /* PVI_SPEC_H */
