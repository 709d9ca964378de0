#!/bin/sh
# SPDX-License-Identifier: MIT
# The CM on the wire when the network misbehaves (issue 11 item 3), across
# two engines started with a short CM response time and 3 retries
# (--limit cm_resp_timeout=8 --limit cm_max_retries=3: ~0.55 s a try
# instead of the kernel's ~4.8 s x 15):
#  - node 1 unplugged: a connect's REQ is resent 3 times, then the id gets
#    UNREACHABLE (-ETIMEDOUT), and the REQ's wire connection is freed;
#  - the link through pv-impair duplicating half the frames and losing
#    5 %: rping -C 20 -v still connects, verifies and disconnects (the
#    state machines drop or answer the duplicates, resends cover losses);
#  - nothing is left on either engine.
set -u
PV_TOPO=cross
export PV_TOPO
NODES_ENGINE_ARGS="--limit cm_resp_timeout=8 --limit cm_max_retries=3"
export NODES_ENGINE_ARGS
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
need_cmd rping
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
PEER=$PV_ROOT/tests/integration/cm/cm_peer.py
pods_up

stat_of() { pvctl_node "$1" stats | awk -v n="$2" '$1 == n { print $2 }'; }

# 1. No path: UNREACHABLE after the retries.
rs0=$(stat_of 1 cm_wire_resends)
wire_link down
in_pod a timeout 30 python3 "$PEER" connect "$POD_A_IP" "$POD_B_IP" 7200 establish \
	>"$TMP/unreach" 2>&1 &
UP=$!
wait_until 15 grep -qx "EVENT 7 -110" "$TMP/unreach"
rs=$(($(stat_of 1 cm_wire_resends) - rs0))
if grep -qx "EVENT 7 -110" "$TMP/unreach" && [ "$rs" = 3 ] &&
   [ "$(stat_of 1 cm_wire_unreachable)" = 1 ] &&
   [ "$(stat_of 1 cm_wire_conns_live)" = 0 ]; then
	case_ok "link down: REQ resent 3 times, then UNREACHABLE (-ETIMEDOUT), nothing held"
else
	case_fail unreach "resends $rs (3), unreachable $(stat_of 1 cm_wire_unreachable), live $(stat_of 1 cm_wire_conns_live); peer: $(cat "$TMP/unreach")"
fi
UPY=$(pair_tool "$UP" python3)
[ -n "$UPY" ] && kill -9 "$UPY" 2>/dev/null
stop_pid "$UP"
wire_link up

# 2. Duplicates and loss on the link.
wire_impair dup=50 loss=5
l0=$(stat_of 2 cm_listens)
in_pod b timeout 90 rping -s -a "$POD_B_IP" -C 20 -v >"$TMP/rping.srv" 2>&1 &
SP=$!
listened() { [ "$(stat_of 2 cm_listens)" -gt "$l0" ]; }
wait_until 10 listened
in_pod a timeout 90 rping -c -a "$POD_B_IP" -C 20 -v >"$TMP/rping.cli" 2>&1
crc=$?
wait "$SP"
src=$?
n=$(grep -c 'ping data: rdma-ping-' "$TMP/rping.cli")
dups=$(($(stat_of 1 cm_wire_rx_dropped) + $(stat_of 2 cm_wire_rx_dropped)))
echo "    impairer: $(wire_stats ab | cut -d' ' -f3-)"
if [ "$crc" = 0 ] && [ "$src" = 0 ] && [ "$n" = 20 ]; then
	case_ok "rping through duplication and loss: 20 pings verified ($dups duplicate MADs dropped, $(($(stat_of 1 cm_wire_resends) + $(stat_of 2 cm_wire_resends) - rs0 - 3)) resent)"
else
	case_fail rping "client rc $crc ($n pings), server rc $src"
fi
wire_impair off

clean() {
	for _n in 1 2; do
		[ "$(stat_of $_n cm_ids_live)" = 0 ] || return 1
		[ "$(stat_of $_n cm_wire_conns_live)" = 0 ] || return 1
	done
}
if wait_until 15 clean; then
	case_ok "no CM state left on either node"
else
	case_fail left "node 1: ids $(stat_of 1 cm_ids_live) wire $(stat_of 1 cm_wire_conns_live); node 2: ids $(stat_of 2 cm_ids_live) wire $(stat_of 2 cm_wire_conns_live)"
fi
pairs_done
