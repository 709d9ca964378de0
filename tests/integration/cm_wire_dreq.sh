#!/bin/sh
# SPDX-License-Identifier: MIT
# The DREQ of a connection whose id went (issue 11 item 3): across two
# engines with a short CM response time (--limit cm_resp_timeout=8: ~0.5 s
# a try), max_cm_retries 6 and cm_dreq_retries 2.  A connected client on
# node 1 is SIGKILLed while node 1 is unplugged: its engine sends the DREQ
# and resends it cm_dreq_retries times, not max_cm_retries (nobody waits
# for that DREP; the kernel's cm_destroy_id sends one DREQ), then the
# timewait ends and node 1 holds nothing.  Plugged back, node 2's side is
# left to its listener, which is killed: nothing is left on either node.
set -u
PV_TOPO=cross
export PV_TOPO
NODES_ENGINE_ARGS="--limit cm_resp_timeout=8 --limit cm_max_retries=6 --limit cm_dreq_retries=2"
export NODES_ENGINE_ARGS
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
PEER=$PV_ROOT/tests/integration/cm/cm_peer.py
pods_up

stat_of() { pvctl_node "$1" stats | awk -v n="$2" '$1 == n { print $2 }'; }

in_pod b timeout 60 python3 "$PEER" listen "$POD_B_IP" 7300 accept \
	>"$TMP/dreq.listen" 2>&1 &
LP=$!
wait_until 10 grep -qx LISTENING "$TMP/dreq.listen"
in_pod a timeout 60 python3 "$PEER" connect "$POD_A_IP" "$POD_B_IP" 7300 establish \
	>"$TMP/dreq.connect" 2>&1 &
CP=$!
wait_until 15 grep -qx CONNECTED "$TMP/dreq.connect"
rs0=$(stat_of 1 cm_wire_resends)
wire_link down
CPY=$(pair_tool "$CP" python3)
[ -n "$CPY" ] && kill -9 "$CPY"
stop_pid "$CP"
gone() { [ "$(stat_of 1 cm_wire_conns_live)" = 0 ]; }
# (1 + 2) tries of ~0.5 s and a ~0.5 s timewait; 6 resends would be 3.5 s.
wait_until 15 gone
rs=$(($(stat_of 1 cm_wire_resends) - rs0))
if grep -qx CONNECTED "$TMP/dreq.connect" && gone && [ "$rs" = 2 ]; then
	case_ok "client killed, peer unreachable: DREQ resent 2 times (cm_dreq_retries), then nothing held"
else
	case_fail dreq "resends $rs (2), wire conns $(stat_of 1 cm_wire_conns_live) (0)"
fi
wire_link up
LPY=$(pair_tool "$LP" python3)
[ -n "$LPY" ] && kill -9 "$LPY"
stop_pid "$LP"
clean() {
	for _n in 1 2; do
		[ "$(stat_of $_n cm_ids_live)" = 0 ] || return 1
	done
}
if wait_until 15 clean; then
	case_ok "no CM id left on either node"
else
	case_fail left "ids: node 1 $(stat_of 1 cm_ids_live), node 2 $(stat_of 2 cm_ids_live)"
fi
pairs_done
