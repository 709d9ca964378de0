#!/bin/sh
# SPDX-License-Identifier: MIT
# RC remote access errors between two pods (wrong rkey, out of bounds, missing MR or QP rights): IBV_WC_REM_ACCESS_ERR, requester QP in ERR, memory untouched.
# (tests/integration/datapath/dpt_rem_access.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_rem_access || fail "dpt_rem_access"
