#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile requests on the engine's CM ops from a pod: ids of another
# connection, unknown ids, another pod's address, ports in use, private
# data over the kernel's limits, wrong states and sizes, an unproven
# connection.  Each is refused with its errno and counted (cm_bad_requests,
# msgs_malformed); the engine keeps serving (a real rping still works).
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
need_cmd rping
pods_up
before=$(pvctl stats | awk '$1 == "cm_bad_requests" { print $2 }')
in_pod a timeout 30 python3 "$PV_ROOT/tests/integration/cm/cm_peer.py" \
	hostile "$POD_A_IP" "$POD_B_IP" >"$TMP/hostile" 2>&1
rc=$?
cat "$TMP/hostile"
[ "$rc" = 0 ] || fail "a hostile request was not refused as expected (rc $rc)"
after=$(pvctl stats | awk '$1 == "cm_bad_requests" { print $2 }')
n=$((after - before))
echo "cm_bad_requests: +$n"
[ "$n" -ge 10 ] || fail "only $n bad requests counted"
pid_alive "$ENGINE_PID" || fail "the engine died"
l0=$(pvctl stats | awk '$1 == "cm_listens" { print $2 }')
listened() { [ "$(pvctl stats | awk '$1 == "cm_listens" { print $2 }')" -gt "$l0" ]; }
in_pod b timeout 20 rping -s -a "$POD_B_IP" -C 3 >"$TMP/srv" 2>&1 &
wait_until 10 listened || fail "rping did not listen"
in_pod a timeout 20 rping -c -a "$POD_B_IP" -C 3 -v >"$TMP/cli" 2>&1 ||
	fail "rping after the attack: $(cat "$TMP/cli")"
echo "ok: the engine still connects pods"
echo PASS
