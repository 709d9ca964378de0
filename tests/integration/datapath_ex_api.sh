#!/bin/sh
# SPDX-License-Identifier: MIT
# Extended verbs between two pods: ibv_create_cq_ex with start/next/end_poll and read_*, ibv_create_qp_ex with the ibv_wr_* builders, wr_abort, EOPNOTSUPP for what is not offered.
# (tests/integration/datapath/dpt_ex_api.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_ex_api || fail "dpt_ex_api"
