/* SPDX-License-Identifier: MIT */
/*
 * 24-bit PSN arithmetic (IBA 9.7.1: PSNs wrap modulo 2^24; a PSN is
 * "behind" another when it lies in the 2^23 PSNs before it).  Minimal
 * inlines for the responder's classifier; switch to the wire codec's
 * eng_wire_psn.h once it is in main (the lead dedupes).
 */
#ifndef ENG_DP_PSN_H
#define ENG_DP_PSN_H

#include <stdint.h>

#define ENG_DP_PSN_MASK		0xffffffu

static inline uint32_t eng_dp_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ENG_DP_PSN_MASK;
}

/* a - b as a signed distance in [-2^23, 2^23): negative when a is older
 * than b.  Shifting into the top 24 bits makes the sign bit the PSN's
 * bit 23, so the 2^24 wrap falls out of 32-bit wrap. */
static inline int32_t eng_dp_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif /* ENG_DP_PSN_H */
