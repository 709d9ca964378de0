/* SPDX-License-Identifier: MIT */
/*
 * The impairer's counters as one line per direction, for tests to parse:
 *   pv-impair ab rx=N rx_bytes=N tx=N tx_bytes=N drop=N reorder=N dup=N
 *   corrupt=N corrupt_skip=N trunc=N txerr=N qdrop=N kdrop=N
 * ("ab": frames that came in on interface A and left on B).  Pure.
 */
#ifndef PVI_REPORT_H
#define PVI_REPORT_H

#include <stddef.h>

#include "tests/tools/pv-impair/pvi_path.h"

/* Writes the line (with its newline) into buf; returns its length, or
 * -ENOSPC when buf is too small. */
int pvi_report_line(char *buf, size_t size, const char *dir,
		    const struct pvi_stats *st);

#endif /* PVI_REPORT_H */
