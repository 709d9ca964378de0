/* SPDX-License-Identifier: MIT */
/*
 * The impairer's random numbers: splitmix64 (Steele, Lea, Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014), one
 * state per direction, so a run is repeatable from its seed and one
 * direction's traffic never shifts the other's decisions.  Not for
 * anything secret.
 */
#ifndef PVI_RNG_H
#define PVI_RNG_H

#include <stdint.h>

/* Rates are kept in parts per million: 0.1 % is 1000. */
#define PVI_PPM 1000000u

static inline uint64_t pvi_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* True with probability ppm / 1e6.  A zero rate draws nothing, so
 * enabling one fault leaves the others' sequences as they were. */
static inline int pvi_rng_hit(uint64_t *s, uint32_t ppm)
{
	if (ppm == 0)
		return 0;
	return pvi_rng_next(s) % PVI_PPM < ppm;
}

#endif /* PVI_RNG_H */
