#!/bin/sh
# SPDX-License-Identifier: MIT
# The CM on the wire against hostile input (issue 11 item 4), across two
# engines (pod a on node 1; pods b and c on node 2):
#  - isolation: b and c both listen on the wildcard address, same port; a
#    REQ to b's address reaches b's listener only, one to c's only c's;
#  - malformed MADs forged from pod a (tests/integration/cm/
#    cm_wire_forge.py: short, garbage, a REQ with a bad RDMA CM header, a
#    ClassPortInfo Get): each refused and counted, nothing created;
#  - a flood of 1000 REQs at one listener of backlog 8: 8 pending, the
#    rest refused (cm_backlog_full), the wire table bounded;
#  - afterwards node 2's engine is alive and, once the listeners are
#    gone, holds no CM id and no wire connection.
set -u
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy is not installed"
PEER=$PV_ROOT/tests/integration/cm/cm_peer.py
FORGE=$PV_ROOT/tests/integration/cm/cm_wire_forge.py
pods_up
node_pod_add 2 c -
POD_C_IP=$(node_pod_ip c)

stat2() { pvctl_node 2 stats | awk -v n="$1" '$1 == n { print $2 }'; }

# bg_peer NAME POD ARGS...: cm_peer.py in POD (its node's engine), output
# in $TMP/NAME; BG_PID is the python process.
bg_peer() {
	_bp_name=$1 _bp_ns=$2
	shift 2
	in_pod "$_bp_ns" timeout 90 python3 "$PEER" "$@" >"$TMP/$_bp_name" 2>&1 &
	_bp_sh=$!
	BG_PID=""
	for _i in $(seq 50); do
		BG_PID=$(pair_tool "$_bp_sh" python3)
		[ -n "$BG_PID" ] && break
		sleep 0.1
	done
	topo_track_pid "$_bp_sh"
}
saw() { wait_until 10 grep -qx "$2" "$1"; }
count() { grep -cx "$2" "$1"; }

# 1. Isolation.
bg_peer lb b listen 0.0.0.0 7100 hold
LB=$BG_PID
bg_peer lc c listen 0.0.0.0 7100 hold
LC=$BG_PID
saw "$TMP/lb" LISTENING && saw "$TMP/lc" LISTENING ||
	fail "listeners: $(cat "$TMP/lb" "$TMP/lc")"
bg_peer cb a connect "$POD_A_IP" "$POD_B_IP" 7100 hold
CB=$BG_PID
saw "$TMP/lb" "EVENT 4 0"
sleep 0.5
if [ "$(count "$TMP/lb" "EVENT 4 0")" = 1 ] &&
   [ "$(count "$TMP/lc" "EVENT 4 0")" = 0 ]; then
	case_ok "a REQ to b's address: b's wildcard listener only"
else
	case_fail iso_b "b saw $(count "$TMP/lb" "EVENT 4 0"), c saw $(count "$TMP/lc" "EVENT 4 0") requests"
fi
bg_peer cc a connect "$POD_A_IP" "$POD_C_IP" 7100 hold
CC=$BG_PID
saw "$TMP/lc" "EVENT 4 0"
sleep 0.5
if [ "$(count "$TMP/lb" "EVENT 4 0")" = 1 ] &&
   [ "$(count "$TMP/lc" "EVENT 4 0")" = 1 ]; then
	case_ok "a REQ to c's address: c's listener only"
else
	case_fail iso_c "b saw $(count "$TMP/lb" "EVENT 4 0"), c saw $(count "$TMP/lc" "EVENT 4 0") requests"
fi
kill -9 "$CB" "$CC" 2>/dev/null

# 2. Malformed MADs.
forge() { topo_exec a /usr/bin/python3 "$FORGE" "$POD_A_IP" "$POD_B_IP" "$@" >>"$TMP/forge" 2>&1; }
bad0=$(stat2 cm_wire_rx_bad) breq0=$(stat2 cm_wire_rx_bad_req)
get0=$(stat2 cm_wire_rx_get) ids0=$(stat2 cm_ids_live)
forge short 50 && forge garbage 200 && forge badreq 20 7100 && forge get 1 ||
	fail "forge: $(cat "$TMP/forge")"
bad_settled() { [ "$(stat2 cm_wire_rx_bad)" -ge $((bad0 + 250)) ]; }
wait_until 5 bad_settled
bad=$(($(stat2 cm_wire_rx_bad) - bad0)) breq=$(($(stat2 cm_wire_rx_bad_req) - breq0))
get=$(($(stat2 cm_wire_rx_get) - get0))
if [ "$bad" = 250 ] && [ "$breq" = 20 ] && [ "$get" = 1 ] &&
   [ "$(stat2 cm_ids_live)" = "$ids0" ] &&
   [ "$(count "$TMP/lb" "EVENT 4 0")" = 1 ]; then
	case_ok "malformed MADs: 250 dropped (cm_wire_rx_bad), 20 bad REQs refused, ClassPortInfo answered, no id made"
else
	case_fail malformed "rx_bad +$bad (250), bad_req +$breq (20), get +$get (1), ids $ids0 -> $(stat2 cm_ids_live)"
fi

# 3. A REQ flood at one listener (cm_peer.py listens with backlog 8).
bg_peer lf b listen "$POD_B_IP" 7101 hold
LF=$BG_PID
saw "$TMP/lf" LISTENING || fail "flood listener: $(cat "$TMP/lf")"
full0=$(stat2 cm_backlog_full) req0=$(stat2 cm_wire_rx_req)
forge flood 1000 7101 || fail "forge flood: $(cat "$TMP/forge")"
flood_settled() { [ $(($(stat2 cm_backlog_full) - full0 + $(stat2 cm_wire_rx_req) - req0)) -ge 1000 ]; }
wait_until 10 flood_settled
full=$(($(stat2 cm_backlog_full) - full0)) req=$(($(stat2 cm_wire_rx_req) - req0))
live=$(stat2 cm_wire_conns_live)
got=$(count "$TMP/lf" "EVENT 4 0")
if [ "$req" = 8 ] && [ "$full" = 992 ] && [ "$got" = 8 ] && [ "$live" -le 16 ]; then
	case_ok "1000 REQs at a backlog of 8: 8 delivered, 992 refused (cm_backlog_full), $live wire connections held"
else
	case_fail flood "delivered $req/$got (8), refused $full (992), wire connections $live"
fi
kill -0 "$(node_engine_pid 2)" 2>/dev/null || fail "node 2's engine died"

# 4. Nothing left once the listeners go (their pending requests are
# rejected on the wire and freed).
kill -9 "$LB" "$LC" "$LF" 2>/dev/null
clean() { [ "$(stat2 cm_ids_live)" = 0 ] && [ "$(stat2 cm_wire_conns_live)" = 0 ]; }
if wait_until 10 clean; then
	case_ok "node 2: no CM id and no wire connection left"
else
	case_fail left "cm_ids_live $(stat2 cm_ids_live), cm_wire_conns_live $(stat2 cm_wire_conns_live)"
fi
echo "    node 2: $(pvctl_node 2 stats | awk '$1 ~ /^cm_(wire_|backlog)/ && $2 != 0 { printf "%s=%s ", $1, $2 }')"
pairs_done
