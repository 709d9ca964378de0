#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 5: an MR deregistered while a 512 MiB RDMA WRITE moves
# through it fails the WRITE (IBV_WC_LOC_PROT_ERR for the local source,
# IBV_WC_REM_ACCESS_ERR for the remote target), and the engine, which
# unmapped the MR, keeps running (tests/integration/datapath/dpt_chunk_mr.c).
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_chunk_mr
rc=$?
pid_alive "$ENGINE_PID" || fail "the engine died"
[ "$rc" = 0 ] || fail "dpt_chunk_mr"
pvctl stats >/dev/null || fail "the engine does not answer"
echo PASS
