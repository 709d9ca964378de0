#!/bin/sh
# SPDX-License-Identifier: MIT
# Flush errors: every outstanding send and receive WR completes once with IBV_WC_WR_FLUSH_ERR after ibv_modify_qp to ERR; WRs posted in ERR are flushed.
# (tests/integration/datapath/dpt_flush.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_flush || fail "dpt_flush"
