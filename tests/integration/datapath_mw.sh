#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory windows type 1 and 2 between two pods: access through the window's rkey in range OK; out of range, wrong rights, the MR's rkey, after rebind/unbind/dealloc/LOCAL_INV/SEND_WITH_INV -> REM_ACCESS_ERR; type 2 tied to its QP; bind errors -> MW_BIND_ERR.
# (tests/integration/datapath/dpt_mw.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_mw || fail "dpt_mw"
