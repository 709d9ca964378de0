#!/bin/sh
# SPDX-License-Identifier: MIT
# Clients of the engine's CM service SIGKILLed in each CM state, between
# two pods on one engine (tests/integration/cm/cm_peer.py speaks the CM
# IPC itself, so it can stop anywhere):
#  - mid-handshake (REQ delivered, not answered): the listener's new id
#    gets REJECTED (IB CM reason 1, timeout);
#  - connected (REQ, REP, RTU done): the peer gets DISCONNECTED;
#  - listening: a later connect gets REJECTED with status 8 (no listener).
# Afterwards pvctl shows no CM id left (cm_ids_live 0).
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
PEER=$PV_ROOT/tests/integration/cm/cm_peer.py
pods_up

# bg_peer NAME NS ARGS...: cm_peer.py in NS, output in $TMP/NAME; sets
# BG_PID (the python process).
bg_peer() {
	_bp_name=$1 _bp_ns=$2
	shift 2
	in_pod "$_bp_ns" timeout 60 python3 "$PEER" "$@" >"$TMP/$_bp_name" 2>&1 &
	_bp_sh=$!
	BG_PID=""
	for _i in $(seq 50); do
		BG_PID=$(pair_tool "$_bp_sh" python3)
		[ -n "$BG_PID" ] && break
		sleep 0.1
	done
}

# saw FILE LINE: FILE gets LINE within 10 s.
saw() {
	wait_until 10 grep -qx "$2" "$1"
}

# 1. Mid-handshake.
bg_peer l1 b listen "$POD_B_IP" 7001 hold
L1=$BG_PID
saw "$TMP/l1" LISTENING || fail "listener 1 did not listen: $(cat "$TMP/l1")"
bg_peer c1 a connect "$POD_A_IP" "$POD_B_IP" 7001 hold
C1=$BG_PID
if saw "$TMP/l1" "EVENT 4 0" && saw "$TMP/c1" REQ_SENT; then
	kill -9 "$C1"
	# Cross-node (PV_TOPO=cross) the requester's engine sends the REJ
	# the kernel's cm_destroy_id does: reason 4, timeout.
	if saw "$TMP/l1" "EVENT 8 [14]"; then
		case_ok "killed mid-handshake: the listener's id gets REJECTED ($(grep -o '^EVENT 8 [14]' "$TMP/l1" | cut -d' ' -f3))"
	else
		case_fail l1 "no REJECTED after the requester died: $(cat "$TMP/l1")"
	fi
else
	case_fail l1 "no CONNECT_REQUEST: $(cat "$TMP/l1" "$TMP/c1")"
fi
kill -9 "$L1" 2>/dev/null

# 2. Connected.
bg_peer l2 b listen "$POD_B_IP" 7002 accept
L2=$BG_PID
saw "$TMP/l2" LISTENING || fail "listener 2 did not listen"
bg_peer c2 a connect "$POD_A_IP" "$POD_B_IP" 7002 establish
C2=$BG_PID
if saw "$TMP/c2" CONNECTED && saw "$TMP/l2" "EVENT 9 0"; then
	kill -9 "$C2"
	if saw "$TMP/l2" "EVENT 10 0"; then
		case_ok "killed connected: the peer gets DISCONNECTED"
	else
		case_fail l2 "no DISCONNECTED: $(cat "$TMP/l2")"
	fi
else
	case_fail l2 "not connected: $(cat "$TMP/l2" "$TMP/c2")"
fi

# 3. Listening: the listener dies, a connect finds none.
kill -9 "$L2"
sleep 0.3
in_pod a timeout 20 rping -c -a "$POD_B_IP" -p 7002 -C 1 >"$TMP/c3" 2>&1
if grep -q 'RDMA_CM_EVENT_REJECTED, error 8' "$TMP/c3"; then
	case_ok "killed listening: a connect gets REJECTED (8)"
else
	case_fail c3 "expected REJECTED 8: $(cat "$TMP/c3")"
fi

sleep 0.5
live=$(pvctl stats | awk '$1 == "cm_ids_live" { print $2 }')
if [ "$live" = 0 ]; then
	case_ok "no CM ids left (cm_ids_live 0)"
else
	case_fail cm_left "cm_ids_live is '$live'"
fi
pairs_done
