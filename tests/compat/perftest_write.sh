#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified perftest ib_write_bw and ib_write_lat between two pods
# on one engine, over our libibverbs: every message size (-a, 2 B .. 8 MiB),
# one QP and four (-q 4, bandwidth only); iteration counts kept small.
# Cross-node (PV_TOPO=cross): a few sizes, one QP and four (pt_cross).
. "$PV_ROOT/tests/compat/perftest_common.inc"
need_cmd ib_write_bw ib_write_lat

if pt_cross; then
	pt_case ib_write_bw write-bw-64k 1 -s 65536 -n 200
	pt_case ib_write_bw write-bw-64k-4qp 1 -s 65536 -n 50 -q 4
	pt_case ib_write_bw write-bw-1m-4qp 1 -s 1048576 -n 5 -q 4
	pt_case ib_write_lat write-lat-2 1 -s 2 -n 200
	pt_case ib_write_lat write-lat-64k 1 -s 65536 -n 20
	pairs_done
fi
pt_case ib_write_bw write-bw-all 23 -a -n 200
pt_case ib_write_bw write-bw-all-4qp 23 -a -n 200 -q 4
pt_case ib_write_lat write-lat-all 23 -a -n 200
pairs_done
