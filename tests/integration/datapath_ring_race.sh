#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 1: a pod rewrites the receive WQE at its RQ's head
# (num_sge, sge addr) while its peer SENDs to it, for ~10 s of fresh QP
# pairs (tests/integration/datapath/dpt_ring_race.c).  The engine must
# stay alive, serve a clean ping-pong afterwards, write nothing outside
# the MR (canaries) and count the malformed WQEs (dp_ring_errors).
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
stat_of() { pvctl stats | awk -v n="$1" '$1 == n { print $2 }'; }
before=$(stat_of dp_ring_errors)
dpt_run dpt_ring_race "${RACE_SECS:-10}"
rc=$?
pid_alive "$ENGINE_PID" || {
	tail -30 "$ENGINE_LOG"
	fail "the engine (pid $ENGINE_PID) died under the ring race"
}
[ "$rc" = 0 ] || fail "dpt_ring_race"
after=$(stat_of dp_ring_errors)
echo "dp_ring_errors: $before -> $after; dp_qp_errors: $(stat_of dp_qp_errors)"
[ "${after:-0}" -gt "${before:-0}" ] ||
	fail "no malformed WQE counted (dp_ring_errors did not move)"
echo PASS
