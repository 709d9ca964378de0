#!/bin/sh
# SPDX-License-Identifier: MIT
# RC data correctness between two pods on one engine: SEND, SEND_WITH_IMM,
# RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, inline, multi-SGE, unsignaled
# (tests/integration/datapath/dpt_rc_ops.c).
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_rc_ops || fail "dpt_rc_ops"
