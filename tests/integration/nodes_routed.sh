#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/lib/nodes.sh, routed layout: two simulated nodes, each with its own
# engine inside its node namespace; pods a, c on node 1 and b on node 2 on
# per-node pod subnets.  A TCP stream between a and b arrives whole and
# crosses the wire namespace (tcpdump there sees it); with the wire
# unplugged a and b cannot reach each other while a and c still can; each
# engine serves only its own node's pods.
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd /usr/bin/python3 tcpdump
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"

nodes_up 2 routed
node_pod_add 1 a
node_pod_add 2 b
node_pod_add 1 c
A=$(node_pod_ip a) B=$(node_pod_ip b) C=$(node_pod_ip c)
case "$A $B $C" in
"10.80.1.10 10.80.2.10 10.80.1.11") ;;
*) fail "pod addresses $A $B $C, expected 10.80.1.10 10.80.2.10 10.80.1.11" ;;
esac

# The stream, captured in the wire.
wire_capture start "$TMP/wire.pcap" tcp
out=$(pod_tcp_transfer a b 8) || fail "$out"
echo "a -> b: $out"
wire_capture stop
seen=$(tcpdump -r "$TMP/wire.pcap" -n "src $A and dst $B and tcp" 2>/dev/null | wc -l)
[ "$seen" -gt 100 ] ||
	fail "the wire saw $seen TCP packets from $A to $B (expected the stream's)"
echo "the wire namespace saw $seen TCP packets $A -> $B"

# Only the wire joins the nodes.
pod_reaches a b || fail "a does not reach b with the wire plugged"
wire_link down
pod_reaches a b && fail "a reaches b with the wire unplugged"
pod_reaches b a && fail "b reaches a with the wire unplugged"
pod_reaches a c || fail "a does not reach c (same node) with the wire unplugged"
wire_link up
wait_until 5 pod_reaches a b || fail "a does not reach b once the wire is back"
echo "wire unplugged: a, b apart; a, c (same node) still together"

# Each engine serves its own node's pods only.
node_pvctl 1 --json dev list >"$TMP/dev1.json" || fail "pvctl on node 1"
node_pvctl 2 --json dev list >"$TMP/dev2.json" || fail "pvctl on node 2"
n1=$(json_count 'True' <"$TMP/dev1.json")
n2=$(json_count 'True' <"$TMP/dev2.json")
[ "$n1" = 2 ] && [ "$n2" = 1 ] ||
	fail "engine 1 lists $n1 devices, engine 2 $n2 (expected 2 and 1)"
grep -q "$(topo_name a)\"" "$TMP/dev1.json" &&
	grep -q "$(topo_name c)\"" "$TMP/dev1.json" &&
	! grep -q "$(topo_name b)\"" "$TMP/dev1.json" ||
	fail "engine 1 does not list exactly a and c: $(cat "$TMP/dev1.json")"
grep -q "$(topo_name b)\"" "$TMP/dev2.json" ||
	fail "engine 2 does not list b: $(cat "$TMP/dev2.json")"
in_node_pod a ibv_devices | grep -q "$NODES_DEV" ||
	fail "pod a sees no $NODES_DEV through node 1's engine"
in_node_pod b ibv_devices | grep -q "$NODES_DEV" ||
	fail "pod b sees no $NODES_DEV through node 2's engine"
# Pod b asking node 1's engine: not one of its pods, no device.
topo_exec b env PODVERBS_ENGINE="$(node_engine_sock 1)" \
	LD_LIBRARY_PATH="$PV_LIB" ibv_devices 2>&1 | grep -q "$NODES_DEV" &&
	fail "pod b sees a device through node 1's engine"
echo "engine 1: a, c; engine 2: b; b sees nothing through engine 1"
echo PASS
