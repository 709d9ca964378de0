/* SPDX-License-Identifier: MIT */
/*
 * 24-bit packet sequence numbers (IBA 9.7.1): arithmetic modulo 2^24 and
 * comparisons that hold across the wrap from 0xFFFFFF to 0.  a is "before"
 * b when b - a, taken as a signed 24-bit number, is positive: the sequence
 * space is split in halves around a.  Exactly half the space apart
 * (0x800000) is ambiguous; both directions then read as "before", which
 * callers avoid by keeping windows far smaller (IBA bounds outstanding
 * PSNs to 2^23: 9.7.1.1).  Pure, header only.
 */
#ifndef ENG_WIRE_PSN_H
#define ENG_WIRE_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define ENG_PSN_SPACE 0x1000000u
#define ENG_PSN_HALF 0x800000u

static inline uint32_t eng_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & 0xffffffu;
}

static inline uint32_t eng_psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & 0xffffffu;
}

/* a - b as a signed 24-bit number: -0x800000 .. 0x7fffff. */
static inline int32_t eng_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & 0xffffffu;

	return d & ENG_PSN_HALF ? (int32_t)d - (int32_t)ENG_PSN_SPACE
				: (int32_t)d;
}

static inline bool eng_psn_before(uint32_t a, uint32_t b)
{
	return eng_psn_diff(a, b) < 0;
}

static inline bool eng_psn_after(uint32_t a, uint32_t b)
{
	return eng_psn_diff(a, b) > 0;
}

/* Whether psn lies in [first, first + n) (n < 2^24), wrap included. */
static inline bool eng_psn_in_window(uint32_t psn, uint32_t first, uint32_t n)
{
	return ((psn - first) & 0xffffffu) < n;
}

#endif /* ENG_WIRE_PSN_H */
