#!/bin/sh
# SPDX-License-Identifier: MIT
# RC atomics between two pods on one engine: compare-and-swap, fetch-and-add, concurrent adds, misaligned target.
# (tests/integration/datapath/dpt_atomic.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_atomic || fail "dpt_atomic"
