#!/bin/sh
# SPDX-License-Identifier: MIT
# pv-impair at 0 % impairment is not what limits a link: iperf3 (TCP, one
# stream, 3 s) between pods on two nodes through the wire's plain bridge
# and then through pv-impair, both with the nodes' uplink offloads off
# (frames of at most the MTU on the wire, as pv-impair needs).  Prints both
# figures; pv-impair must forward every frame it received (none dropped by
# the kernel for want of room, none failed to send) and carry a usable
# rate; the figures depend on the machine's load (reported, not asserted
# beyond a floor).
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd iperf3 ethtool

NODES_NO_ENGINE=1 nodes_up 2 routed "${NODES_MTU:-1500}"
node_pod_add 1 a
node_pod_add 2 b
B=$(node_pod_ip b)
PORT=$((24000 + $$ % 1000))

# mbps: one iperf3 run a -> b; prints the receiver's Mbit/s.
mbps() {
	topo_exec_bg b timeout 20 iperf3 -s -1 -p "$PORT" >/dev/null 2>&1 &
	_mb_pid=$!
	wait_until 5 tcp_port_listening b "$PORT" || fail "iperf3 server"
	topo_exec a timeout 20 iperf3 -c "$B" -p "$PORT" -t 3 -f m >"$TMP/iperf.out" 2>&1
	wait "$_mb_pid"
	sed -n 's/.* \([0-9.]*\) Mbits\/sec.*receiver.*/\1/p' "$TMP/iperf.out"
}

wire_offload off
bridge=$(mbps)
[ -n "$bridge" ] || fail "iperf3 through the bridge: $(cat "$TMP/iperf.out")"
wire_impair
impair=$(mbps)
[ -n "$impair" ] || fail "iperf3 through pv-impair: $(cat "$TMP/iperf.out")"
st=$(wire_stats)
echo "$st"
get() { echo "$st" | grep "^pv-impair $1 " | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }
for d in ab ba; do
	[ "$(get $d kdrop)" = 0 ] && [ "$(get $d txerr)" = 0 ] &&
		[ "$(get $d trunc)" = 0 ] && [ "$(get $d rx)" = "$(get $d tx)" ] ||
		fail "pv-impair $d did not forward every frame: $(get $d rx) in, $(get $d tx) out"
done
pct=$(awk -v a="$impair" -v b="$bridge" 'BEGIN { printf "%.0f", 100 * a / b }')
echo "TCP one stream, MTU $NODES_MTU, offloads off: bridge $bridge Mbit/s, pv-impair $impair Mbit/s ($pct % of the bridge; load $(cut -d' ' -f1 /proc/loadavg))"
awk -v a="$impair" 'BEGIN { exit !(a >= 100) }' ||
	fail "pv-impair carried only $impair Mbit/s"
echo PASS
