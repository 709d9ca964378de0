#!/bin/sh
# SPDX-License-Identifier: MIT
# ibv_rereg_mr between two pods: data before and after, new keys, a WRITE with the old rights or the old rkey after dropping REMOTE_WRITE fails with REM_ACCESS_ERR, new range, other PD, rdma-core's error results.
# (tests/integration/datapath/dpt_rereg.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_rereg || fail "dpt_rereg"
