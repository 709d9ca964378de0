#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified perftest ib_atomic_bw and ib_atomic_lat between two
# pods on one engine, over our libibverbs: fetch-and-add and compare-and-
# swap, one QP and four (-q 4, bandwidth only).  Atomics are 8 bytes (the
# tools refuse -a and -s).
. "$PV_ROOT/tests/compat/perftest_common.inc"
need_cmd ib_atomic_bw ib_atomic_lat

pt_case ib_atomic_bw atomic-bw-faa 1 -n 200
pt_case ib_atomic_bw atomic-bw-cas 1 -n 200 -A CMP_AND_SWAP
pt_case ib_atomic_bw atomic-bw-4qp 1 -n 200 -q 4
pt_case ib_atomic_lat atomic-lat-faa 1 -n 200
pt_case ib_atomic_lat atomic-lat-cas 1 -n 200 -A CMP_AND_SWAP
pairs_done
