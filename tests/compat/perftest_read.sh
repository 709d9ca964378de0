#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified perftest ib_read_bw and ib_read_lat between two pods
# on one engine, over our libibverbs: every message size (-a, 2 B .. 8 MiB),
# one QP and four (-q 4, bandwidth only); iteration counts kept small.
# Cross-node (PV_TOPO=cross): a few sizes, one QP and four (pt_cross).
. "$PV_ROOT/tests/compat/perftest_common.inc"
need_cmd ib_read_bw ib_read_lat

if pt_cross; then
	pt_case ib_read_bw read-bw-64k 1 -s 65536 -n 200
	pt_case ib_read_bw read-bw-64k-4qp 1 -s 65536 -n 50 -q 4
	# Four streams of 1 MiB READs once overflowed the requester's socket
	# and ran out of retries (status 12): the requester now asks for
	# READ responses within its device's socket buffer (eng_wire_rc_req.c,
	# wire_rc_read_req_pkts, wire_dev_read_credit_pkts).
	pt_case ib_read_bw read-bw-1m-4qp 1 -s 1048576 -n 5 -q 4
	pt_case ib_read_lat read-lat-2 1 -s 2 -n 200
	pt_case ib_read_lat read-lat-64k 1 -s 65536 -n 20
	# For the log: how often READ requests waited for the device's
	# credit, the receive buffer overflows, retransmissions.
	pods_wire_stats | grep -E "wire counters|read_credit|overflows|retransmits" || :
	pairs_done
fi
pt_case ib_read_bw read-bw-all 23 -a -n 200
pt_case ib_read_bw read-bw-all-4qp 23 -a -n 200 -q 4
pt_case ib_read_lat read-lat-all 23 -a -n 200
pairs_done
