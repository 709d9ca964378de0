/* SPDX-License-Identifier: MIT */
#include "tests/tools/pv-impair/pvi_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int pvi_report_line(char *buf, size_t size, const char *dir,
		    const struct pvi_stats *st)
{
	int n = snprintf(buf, size,
			 "pv-impair %s rx=%" PRIu64 " rx_bytes=%" PRIu64
			 " tx=%" PRIu64 " tx_bytes=%" PRIu64 " drop=%" PRIu64
			 " reorder=%" PRIu64 " dup=%" PRIu64
			 " corrupt=%" PRIu64 " corrupt_skip=%" PRIu64
			 " trunc=%" PRIu64 " txerr=%" PRIu64
			 " qdrop=%" PRIu64 " kdrop=%" PRIu64 "\n",
			 dir, st->rx, st->rx_bytes, st->tx, st->tx_bytes,
			 st->drop, st->reorder, st->dup, st->corrupt,
			 st->corrupt_skip, st->trunc, st->txerr, st->qdrop,
			 st->kdrop);

	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}
