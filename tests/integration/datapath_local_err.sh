#!/bin/sh
# SPDX-License-Identifier: MIT
# RC local errors between two pods: receive too small (LOC_LEN_ERR / REM_INV_REQ_ERR), wrong lkey, SGE out of bounds, READ into a read-only MR (LOC_PROT_ERR).
# (tests/integration/datapath/dpt_local_err.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_local_err || fail "dpt_local_err"
