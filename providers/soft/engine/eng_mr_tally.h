/* SPDX-License-Identifier: MIT */
/*
 * Memory-registration tallies (issue 15, item 4), pure: one per client
 * connection and one per device (= per pod), kept by eng_mr_report.c at
 * every MR mapped and unmapped, reported by ADM_MR_REPORT (`pvctl mr`).
 *
 * Growth is the net bytes registered since the tally's window began; a
 * window lasts ENG_MR_GROWTH_WINDOW_NS and is rolled lazily (at the next
 * change or report after it ended), so a report shows how much a client
 * or pod added over the last minute or so: a steady leak shows as a
 * growth that stays positive report after report.
 */
#ifndef ENG_MR_TALLY_H
#define ENG_MR_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#define ENG_MR_GROWTH_WINDOW_NS (60ull * 1000 * 1000 * 1000)

struct eng_mr_tally {
	uint64_t mrs, bytes;		/* registered now */
	uint64_t peak_mrs, peak_bytes;
	uint64_t regs, reg_bytes;	/* registrations since it began */
	uint64_t misaligned;		/* of mrs, not page-aligned */
	uint64_t win_at_ns;		/* growth window: began then (0: none) */
	uint64_t win_bytes;		/* with bytes at this value */
};

/* An MR [addr, addr + length) starts or ends off a page boundary (page: a
 * power of two). */
bool eng_mr_misaligned(uint64_t addr, uint64_t length, uint64_t page);

/* One MR of length bytes registered / released at now_ns (monotonic). */
void eng_mr_tally_add(struct eng_mr_tally *t, uint64_t length,
		      bool misaligned, uint64_t now_ns);
void eng_mr_tally_sub(struct eng_mr_tally *t, uint64_t length,
		      bool misaligned, uint64_t now_ns);
/* Takes all of src's current MRs off t (a client leaving its device);
 * peaks and cumulative counts stay. */
void eng_mr_tally_drop(struct eng_mr_tally *t, const struct eng_mr_tally *src,
		       uint64_t now_ns);
/* The net bytes registered in the current window (rolled first). */
int64_t eng_mr_tally_growth(struct eng_mr_tally *t, uint64_t now_ns);

#endif /* ENG_MR_TALLY_H */
