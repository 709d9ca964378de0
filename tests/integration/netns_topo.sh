#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/lib/topo.sh itself: two simulated nodes (bridges with pods) joined
# by a veth, traffic between pods on one node and across nodes, and
# cleanup that leaves nothing behind, whether the test passes, fails or
# skips.
. "${PV_ROOT:-.}/tests/lib/topo.sh"

topo_init
need_cmd /usr/bin/python3

# udp_ok FROM_NS TO_NS TO_IP: one datagram from a pod to another, echoed.
udp_ok() {
	_port=$(( 20000 + $$ % 10000 ))
	topo_exec "$2" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(5)
d, a = s.recvfrom(100)
s.sendto(d, a)' "$3" "$_port" &
	_spid=$!
	topo_track_pid "$_spid"
	sleep 0.3
	topo_exec "$1" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(b"ping", (sys.argv[1], int(sys.argv[2])))
assert s.recvfrom(100)[0] == b"ping"' "$3" "$_port"
	_r=$?
	wait "$_spid"
	return $_r
}

# Node 1: pods p1, p2 on 10.61.1.0/24; node 2: pod p3 on 10.61.2.0/24;
# nodes joined on 10.61.0.0/24.
topo_bridge n1 10.61.1.1/24 p1 10.61.1.11/24 p2 10.61.1.12/24
topo_bridge n2 10.61.2.1/24 p3 10.61.2.13/24
topo_veth n1 n2 10.61.0.1/24 10.61.0.2/24
topo_ip n1 route add 10.61.2.0/24 via 10.61.0.2
topo_ip n2 route add 10.61.1.0/24 via 10.61.0.1

for n in n1 n2 p1 p2 p3; do
	[ -e "/var/run/netns/pvt-$$-$n" ] || fail "namespace $n missing"
done
[ "$(topo_name p1)" = "pvt-$$-p1" ] || fail "topo_name"
[ "$(topo_path p1)" = "/var/run/netns/pvt-$$-p1" ] || fail "topo_path"
topo_ip p1 -o addr show dev eth0 | grep -q 'inet 10.61.1.11/24' ||
	fail "pod address"
topo_ip n1 -o link show v-p2 | grep -q 'master br0' || fail "bridge port"
echo "ok: layout"

udp_ok p1 p2 10.61.1.12 || fail "pod to pod on one node"
echo "ok: p1 -> p2 (same node)"
udp_ok p1 p3 10.61.2.13 || fail "pod to pod across nodes"
echo "ok: p1 -> p3 (across nodes)"

# Children: cleanup after pass, fail and skip removes all they made.
for how in "exit 0" "fail boom" "skip nope" "kill -TERM \$\$"; do
	out=$(PV_ROOT=$PV_ROOT sh -c '
		. "$PV_ROOT/tests/lib/topo.sh"
		topo_init
		topo_ns x
		topo_bridge n - y 10.62.0.11/24
		echo "$$ $TOPO_TMP"
		'"$how" 2>&1)
	rc=$?
	child=$(echo "$out" | head -1 | cut -d' ' -f1)
	ctmp=$(echo "$out" | head -1 | cut -d' ' -f2)
	left=$(ip netns list | grep -c "^pvt-$child-")
	[ "$left" = 0 ] || fail "'$how' left $left namespaces"
	[ -e "$ctmp" ] && fail "'$how' left $ctmp"
	case $how in
	skip*) [ "$rc" = 77 ] && echo "$out" | grep -q '^SKIP: nope' ||
		fail "skip: rc $rc" ;;
	fail*) [ "$rc" = 1 ] || fail "fail: rc $rc" ;;
	esac
	echo "ok: cleanup after '$how' (rc $rc)"
done
# start_engine / stop_engine: without the engine this check cannot run,
# and the script says so (77) instead of "all ok".
[ -x "$PV_BUILD/bin/podverbsd" ] ||
	skip "podverbsd not built: start_engine/stop_engine not exercised (the rest passed)"
start_engine
[ "$PODVERBS_ENGINE" = "$TOPO_TMP/engine.sock" ] ||
	fail "PODVERBS_ENGINE=$PODVERBS_ENGINE"
pid_is_child "$ENGINE_PID" || fail "engine is not our child"
epid=$ENGINE_PID
stop_engine
pid_alive "$epid" && fail "engine still running after stop_engine"
[ -z "$ENGINE_PID" ] || fail "ENGINE_PID not cleared"
echo "ok: start_engine/stop_engine (pid $epid)"
echo "all ok"
