#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/lib/nodes.sh, flat layout: pods a (node 1) and b (node 2) on one L2
# segment that spans both nodes' bridges and the wire.  A TCP stream between
# them arrives whole and crosses the wire namespace; a resolves b's address
# to b's own MAC (no router between them); unplugged, the wire parts them.
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd /usr/bin/python3 tcpdump

NODES_NO_ENGINE=1 nodes_up 2 flat
node_pod_add 1 a
node_pod_add 2 b
A=$(node_pod_ip a) B=$(node_pod_ip b)

wire_capture start "$TMP/wire.pcap" tcp
out=$(pod_tcp_transfer a b 8) || fail "$out"
echo "a -> b: $out"
wire_capture stop
seen=$(tcpdump -r "$TMP/wire.pcap" -n "src $A and dst $B and tcp" 2>/dev/null | wc -l)
[ "$seen" -gt 100 ] || fail "the wire saw $seen TCP packets from $A to $B"
echo "the wire namespace saw $seen TCP packets $A -> $B"

mac_b=$(topo_ip b -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
neigh=$(topo_ip a neigh show "$B" | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')
[ -n "$mac_b" ] && [ "$neigh" = "$mac_b" ] ||
	fail "a resolves $B to '$neigh', b's eth0 is '$mac_b' (not one L2 segment?)"
topo_ip a route show | grep -q via && fail "a has a gateway route in the flat layout"
echo "one segment: a resolves $B to b's MAC $mac_b"

wire_link down
pod_reaches a b && fail "a reaches b with the wire unplugged"
wire_link up
wait_until 5 pod_reaches a b || fail "a does not reach b once the wire is back"
echo "wire unplugged: a and b apart"
echo PASS
