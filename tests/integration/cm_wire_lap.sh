#!/bin/sh
# SPDX-License-Identifier: MIT
# Path migration asked of our CM on the wire (issue 11): a peer with its
# own CM MADs (tests/integration/cm/cm_wire_lap.py, in pod c on node 1:
# a pod with no soft device, so UDP 4791 is the script's) connects to a
# listener in pod b on node 2, then sends LAPs.  Node 2's engine answers
# the LAP of the established connection with an APR "unsupported" (no
# alternate paths; counted in cm_wire_lap_refused), again for a resent
# LAP, drops a LAP naming another QPN and an APR nobody asked for, and
# the connection still disconnects with DREQ/DREP.
set -u
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd python3
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy is not installed"
PEER=$PV_ROOT/tests/integration/cm/cm_peer.py
LAP=$PV_ROOT/tests/integration/cm/cm_wire_lap.py
pods_up

# Pod c on node 1 without a device: its namespace, eth0 on n1's bridge.
C_IP=10.80.1.40
topo_ns c
topo_veth n1 c - "$C_IP/24" v-c eth0
node_mtu n1 v-c
node_mtu c eth0
topo_ip n1 link set v-c master br0 || fail "enslave v-c"
topo_ip c route add default via 10.80.1.1 || fail "default route in c"

stat2() { pvctl_node 2 stats | awk -v n="$1" '$1 == n { print $2 }'; }

in_pod b timeout 60 python3 "$PEER" listen "$POD_B_IP" 7300 accept \
	>"$TMP/lap.srv" 2>&1 &
SRV=$!
wait_until 10 grep -qx LISTENING "$TMP/lap.srv" ||
	fail "listener: $(cat "$TMP/lap.srv")"
lap0=$(stat2 cm_wire_lap_refused)
topo_exec c timeout 60 /usr/bin/python3 "$LAP" "$C_IP" "$POD_B_IP" 7300 \
	>"$TMP/lap.cli" 2>&1
rc=$?
cat "$TMP/lap.cli"
n=$(($(stat2 cm_wire_lap_refused) - lap0))
if [ "$rc" = 0 ] && [ "$n" = 2 ]; then
	case_ok "LAP answered with APR 'unsupported' twice (cm_wire_lap_refused +$n), the rest dropped, DREQ/DREP after"
else
	case_fail lap "peer exited $rc, cm_wire_lap_refused +$n (want 2)"
fi
# The listener (python3 under in_pod's timeout) and its accepted id go.
SRV_PY=$(pair_tool "$SRV" python3)
[ -n "$SRV_PY" ] && kill -9 "$SRV_PY" 2>/dev/null
stop_pid "$SRV"
clean() { [ "$(stat2 cm_ids_live)" = 0 ] && [ "$(stat2 cm_wire_conns_live)" = 0 ]; }
if wait_until 10 clean; then
	case_ok "node 2: no CM id and no wire connection left"
else
	case_fail left "cm_ids_live $(stat2 cm_ids_live), cm_wire_conns_live $(stat2 cm_wire_conns_live)"
fi
pairs_done
