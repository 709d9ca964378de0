#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/lib/nodes.sh at MTU 9000 on every hop: an 8000-byte UDP datagram
# (don't-fragment) crosses from a pod on node 1 to a pod on node 2 in one
# frame, through the wire's bridge and then through pv-impair; one of
# 9001 bytes cannot leave (the MTU is 9000, not more).
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd /usr/bin/python3 tcpdump

NODES_NO_ENGINE=1 nodes_up 2 routed 9000
node_pod_add 1 a
node_pod_add 2 b
B=$(node_pod_ip b)
PORT=$((22000 + $$ % 1000))

for ns in a n1 wire n2 b; do
	topo_ip "$ns" -o link show | grep -v ' lo:' | grep -v 'mtu 9000 ' &&
		fail "an interface in $ns has another MTU"
done

# udp_big SIZE: one datagram of SIZE bytes (DF) from a to b; prints what b
# received ("SIZE DIGEST") or the sender's error.
udp_big() {
	topo_exec b timeout 10 /usr/bin/python3 -c '
import hashlib, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(5)
d = s.recv(65536)
print(len(d), hashlib.sha256(d).hexdigest())' "$B" "$PORT" >"$TMP/udp.recv" 2>&1 &
	_ub_pid=$!
	sleep 0.3
	topo_exec a /usr/bin/python3 -c '
import hashlib, os, socket, sys
n = int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# IP_MTU_DISCOVER = IP_PMTUDISC_DO: never fragment (ip(7)).
s.setsockopt(socket.IPPROTO_IP, 10, 2)
d = os.urandom(n)
try:
    s.sendto(d, (sys.argv[1], int(sys.argv[2])))
except OSError as e:
    print("send:", e.strerror)
    sys.exit(1)
print(n, hashlib.sha256(d).hexdigest())' "$B" "$PORT" "$1" >"$TMP/udp.send" 2>&1
	_ub_rc=$?
	[ "$_ub_rc" = 0 ] || { stop_pid "$_ub_pid"; cat "$TMP/udp.send"; return 1; }
	wait "$_ub_pid"
	cmp -s "$TMP/udp.send" "$TMP/udp.recv" ||
		{ echo "sent $(cat "$TMP/udp.send"), received $(cat "$TMP/udp.recv")"; return 1; }
	echo "$1 bytes arrived intact"
}

# frames_of LEN PCAP: frames of exactly LEN bytes (Ethernet) in PCAP.
frames_of() {
	tcpdump -r "$2" -e -n udp 2>/dev/null | grep -c ", length $1: "
}

wire_capture start "$TMP/bridge.pcap" udp
out=$(udp_big 8000) || fail "8000 bytes through the bridge: $out"
echo "bridge: $out"
wire_capture stop
# 8000 + UDP 8 + IPv4 20 + Ethernet 14: one frame, not fragments.
[ "$(frames_of 8042 "$TMP/bridge.pcap")" = 1 ] ||
	fail "the wire did not see one 8042-byte frame: $(tcpdump -r "$TMP/bridge.pcap" -e -n 2>/dev/null)"

wire_impair
wire_capture start "$TMP/impair.pcap" udp
out=$(udp_big 8000) || fail "8000 bytes through pv-impair: $out"
echo "pv-impair: $out"
wire_capture stop
[ "$(frames_of 8042 "$TMP/impair.pcap")" = 1 ] ||
	fail "the wire did not see one 8042-byte frame through pv-impair"
[ "$(wire_stats ab trunc)" = 0 ] || fail "pv-impair truncated frames: $(wire_stats ab)"
[ "$(wire_stats ab tx)" -ge 1 ] || fail "pv-impair forwarded nothing: $(wire_stats ab)"
echo "pv-impair: $(wire_stats ab)"

out=$(udp_big 9001) && fail "a 9001-byte datagram left with DF set at MTU 9000"
echo "9001 bytes: refused ($out)"
echo PASS
