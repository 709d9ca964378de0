/* SPDX-License-Identifier: MIT */
/*
 * Memory-registration tallies (eng_mr_tally.h): pure arithmetic, no I/O.
 * Releases never go below zero: a tally that missed an add (it cannot,
 * but a bug must not wrap it to 2^64) stays at zero.
 */
#include "providers/soft/engine/eng_mr_tally.h"

bool eng_mr_misaligned(uint64_t addr, uint64_t length, uint64_t page)
{
	uint64_t mask = page - 1;

	return (addr & mask) != 0 || ((addr + length) & mask) != 0;
}

static uint64_t sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A window that ended begins again at now, from the current bytes. */
static void roll(struct eng_mr_tally *t, uint64_t now_ns)
{
	if (t->win_at_ns && now_ns - t->win_at_ns < ENG_MR_GROWTH_WINDOW_NS)
		return;
	t->win_at_ns = now_ns ? now_ns : 1;
	t->win_bytes = t->bytes;
}

void eng_mr_tally_add(struct eng_mr_tally *t, uint64_t length,
		      bool misaligned, uint64_t now_ns)
{
	roll(t, now_ns);
	t->mrs++;
	t->bytes += length;
	t->regs++;
	t->reg_bytes += length;
	if (misaligned)
		t->misaligned++;
	if (t->mrs > t->peak_mrs)
		t->peak_mrs = t->mrs;
	if (t->bytes > t->peak_bytes)
		t->peak_bytes = t->bytes;
}

void eng_mr_tally_sub(struct eng_mr_tally *t, uint64_t length,
		      bool misaligned, uint64_t now_ns)
{
	roll(t, now_ns);
	t->mrs = sub_floor(t->mrs, 1);
	t->bytes = sub_floor(t->bytes, length);
	if (misaligned)
		t->misaligned = sub_floor(t->misaligned, 1);
}

void eng_mr_tally_drop(struct eng_mr_tally *t, const struct eng_mr_tally *src,
		       uint64_t now_ns)
{
	roll(t, now_ns);
	t->mrs = sub_floor(t->mrs, src->mrs);
	t->bytes = sub_floor(t->bytes, src->bytes);
	t->misaligned = sub_floor(t->misaligned, src->misaligned);
}

int64_t eng_mr_tally_growth(struct eng_mr_tally *t, uint64_t now_ns)
{
	roll(t, now_ns);
	return (int64_t)(t->bytes - t->win_bytes);
}
