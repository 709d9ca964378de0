#!/bin/sh
# SPDX-License-Identifier: MIT
# Multicast across nodes (RoCEv2: a group GID is an IP multicast address).
# tests/lib/nodes.sh's flat layout (one L2 segment over both nodes, which
# carries IP multicast; the routed layout's nodes do no multicast routing,
# as many pod networks do not): Debian's unmodified mckey over our
# librdmacm, the receivers in pod b (node 2) and pod c (node 1, beside the
# sender), the sender in pod a (node 1).  Checked:
# - both receivers get all 10 messages (mckey exits 0 only then);
# - node 2's engine joined the group on b's interface: an IGMP membership
#   report for it from b's address crossed the wire, and it got the
#   datagrams from its group socket (wire_rx_mcast);
# - c got a's datagrams from its own engine once: node 1 delivers none from
#   the wire (the copy that also reaches c's group socket over the bridge
#   is the engine's own, wire_rx_mcast_echo, and dropped);
# - the datagrams on the wire are RoCEv2 to the group's address, DQPN
#   0xFFFFFF, with right ICRCs (tests/lib/roce_check.py);
# - when the receivers exit, their engines leave (net_mcast_leaves).
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd mckey tcpdump tshark
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
GRP=239.1.2.9
N=10

nodes_up 2 flat
# Real frames on the wire: a burst of equal datagrams to the group leaves
# as one UDP GSO message (eng_net_tx.c), which veth and the bridges would
# carry whole; with the uplinks' offloads off the kernel cuts it there.
wire_offload off
# Multicast snooping off on every bridge: a snooping bridge forwards a
# group only to the ports it heard reports on and to router ports, which
# it learns from an IGMP querier; this segment has none (nor has many a
# real one, which then runs with snooping off or a querier).
for ns in wire n1 n2; do
	topo_ip "$ns" link set br0 type bridge mcast_snooping 0 ||
		fail "mcast_snooping off on $ns's br0"
done
node_pod_add 1 a
node_pod_add 2 b
node_pod_add 1 c
A=$(node_pod_ip a) B=$(node_pod_ip b) C=$(node_pod_ip c)

st() { node_pvctl "$1" stats | awk -v n="$2" '$1 == n { print $2 }'; }
joined() { [ "$(st "$1" net_mcast_joins)" -gt "$2" ]; }

j1=$(st 1 net_mcast_joins) j2=$(st 2 net_mcast_joins)
rx2=$(st 2 wire_rx_mcast) echo1=$(st 1 wire_rx_mcast_echo)
tx1=$(st 1 mcast_wire_tx) l2=$(st 2 net_mcast_leaves)
ud1=$(st 1 wire_ud_rx)

# On node 2's side of the wire: b's IGMP reports go towards the
# querier side only (the bridges snoop), a's datagrams cross it to b.
WIRE_CAPTURE_IF=n2 wire_capture start "$TMP/wire.pcap" "igmp or udp port 4791"
in_node_pod b timeout 40 stdbuf -oL mckey -m "$GRP" -b "$B" -C "$N" >"$TMP/b.out" 2>&1 &
PB=$!
in_node_pod c timeout 40 stdbuf -oL mckey -m "$GRP" -b "$C" -C "$N" >"$TMP/c.out" 2>&1 &
PC=$!
wait_until 15 joined 2 "$j2" || fail "node 2 never joined $GRP: $(cat "$TMP/b.out")"
wait_until 15 joined 1 "$j1" || fail "node 1 never joined $GRP for c: $(cat "$TMP/c.out")"
# IGMP reports and the bridges' snooping settle before the first send.
sleep 1
in_node_pod a timeout 40 mckey -m "$GRP" -b "$A" -s -C "$N" >"$TMP/a.out" 2>&1
RA=$?
wait "$PB"; RB=$?
wait "$PC"; RC=$?
wire_capture stop
echo "mckey: sender $RA, receiver b (node 2) $RB, receiver c (node 1) $RC"
if [ "$RB" != 0 ] || [ "$RC" != 0 ]; then
	for k in 1 2; do
		echo "node $k:"; node_pvctl "$k" stats |
			awk '$2 != 0 && $1 ~ /^(mcast|net_mcast|wire_rx|wire_ud|net_rx)/'
	done
	tshark -r "$TMP/wire.pcap" 2>/dev/null | head -30
fi
[ "$RA" = 0 ] || fail "sender: $(cat "$TMP/a.out")"
[ "$RB" = 0 ] && grep -q 'data transfers complete' "$TMP/b.out" ||
	fail "b (node 2) did not get all $N: $(cat "$TMP/b.out")"
[ "$RC" = 0 ] && grep -q 'data transfers complete' "$TMP/c.out" ||
	fail "c (node 1) did not get all $N: $(cat "$TMP/c.out")"

d_tx=$(( $(st 1 mcast_wire_tx) - tx1 ))
d_rx=$(( $(st 2 wire_rx_mcast) - rx2 ))
d_echo=$(( $(st 1 wire_rx_mcast_echo) - echo1 ))
echo "node 1 sent $d_tx datagrams to groups on the wire; node 2 took $d_rx from its group socket; node 1 saw $d_echo of its own come back"
[ "$d_tx" -ge "$N" ] || fail "node 1 sent $d_tx group datagrams on the wire, want >= $N"
[ "$d_rx" -ge "$N" ] || fail "node 2 received $d_rx group datagrams, want >= $N"
# Node 1 delivered nothing from the wire: c's copies came from its engine
# only.  (How many echoes c's group socket read before c's exit closed it
# is a race; any it read were dropped as the engine's own.)
d_ud1=$(( $(st 1 wire_ud_rx) - ud1 ))
[ "$d_ud1" = 0 ] || fail "node 1 delivered $d_ud1 datagrams from the wire: c got a's twice"
wait_until 5 sh -c "[ \$(PV_ROOT=$PV_ROOT; \"$PV_BUILD/bin/pvctl\" --admin-socket \"$(node_engine_admin 2)\" stats | awk '\$1 == \"net_mcast_leaves\" { print \$2 }') -gt $l2 ]" ||
	fail "node 2 did not leave $GRP after b exited"

igmp=$(tshark -r "$TMP/wire.pcap" -Y "igmp && ip.src == $B" -T fields \
	-e igmp.maddr 2>/dev/null | grep -c "$GRP")
echo "IGMP reports for $GRP from b ($B) on the wire: $igmp"
[ "$igmp" -ge 1 ] || fail "no IGMP membership report for $GRP from b's namespace"
roce=$(tshark -r "$TMP/wire.pcap" -Y "ip.dst == $GRP && infiniband.bth.destqp == 0xffffff" \
	2>/dev/null | wc -l)
echo "RoCEv2 datagrams to $GRP, DQPN 0xffffff, on the wire: $roce"
[ "$roce" -ge "$N" ] || fail "$roce RoCEv2 datagrams to $GRP on the wire, want >= $N"
/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min "$N" "$TMP/wire.pcap" \
	>"$TMP/roce_check" 2>&1 || fail "roce_check: $(cat "$TMP/roce_check")"
grep -v '^frame' "$TMP/roce_check"
echo "PASS: a group's datagrams crossed nodes, joined by IGMP, delivered once"
