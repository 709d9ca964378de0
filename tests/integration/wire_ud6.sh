#!/bin/sh
# SPDX-License-Identifier: MIT
# UD across the wire over IPv6 (issue 10): pods a (node 1) and b (node 2)
# get global IPv6 addresses, the nodes route them; Debian's
# ibv_ud_pingpong on their IPv6 GIDs, data validated (-c).  The capture in
# the wire namespace decodes in tshark and every IPv6 ICRC is right by
# roce_check.py's own computation (traffic class, flow label and hop
# limit masked, as the engine reconstructs them from the socket).
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_ud_pingpong
need_cmd tcpdump
need_cmd tshark
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy is not installed"
ITERS=200

pods_up
for k in 1 2; do
	topo_exec "n$k" sysctl -qw net.ipv6.conf.all.forwarding=1 ||
		fail "IPv6 forwarding in n$k"
	topo_ip "n$k" addr add "fd00:80:$k::1/64" dev br0 nodad
	topo_ip "n$k" addr add "fd00:79::$k/64" dev uplink nodad
done
topo_ip n1 route add fd00:80:2::/64 via fd00:79::2 || fail "route in n1"
topo_ip n2 route add fd00:80:1::/64 via fd00:79::1 || fail "route in n2"
topo_ip a addr add fd00:80:1::10/64 dev eth0 nodad
topo_ip b addr add fd00:80:2::10/64 dev eth0 nodad
topo_ip a route add default via fd00:80:1::1 || fail "route in a"
topo_ip b route add default via fd00:80:2::1 || fail "route in b"

# gid_index POD: the index of the pod's fd00: GID (once the engine has it).
gid_index() {
	in_pod "$1" ibv_devinfo -v | grep 'GID\[' |
		sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*fd00:.*/\1/p' | head -1
}
wait_until 10 sh -c "[ -n \"\$(PODVERBS_ENGINE=$(node_engine_sock 1) ip netns exec $(topo_name a) env LD_LIBRARY_PATH=$PV_LIB ibv_devinfo -v | grep 'fd00:')\" ]" ||
	fail "pod a's device has no IPv6 GID"
wait_until 10 sh -c "[ -n \"\$(PODVERBS_ENGINE=$(node_engine_sock 2) ip netns exec $(topo_name b) env LD_LIBRARY_PATH=$PV_LIB ibv_devinfo -v | grep 'fd00:')\" ]" ||
	fail "pod b's device has no IPv6 GID"
GA=$(gid_index a)
GB=$(gid_index b)
echo "IPv6 GIDs: pod a index $GA, pod b index $GB"

wire_capture start "$TMP/wire6.pcap" 'udp port 4791'
in_pod b timeout 30 ibv_ud_pingpong -d "$POD_DEV" -g "$GB" -n $ITERS \
	-s 512 -c >"$TMP/srv" 2>&1 &
SRV=$!
wait_until 10 sh -c "ip netns exec $(topo_name b) ss -ltn | grep -q ':18515 '" ||
	fail "server did not listen: $(cat "$TMP/srv")"
in_pod a timeout 30 ibv_ud_pingpong -d "$POD_DEV" -g "$GA" -n $ITERS \
	-s 512 -c "$POD_B_IP" >"$TMP/cli" 2>&1
RC_CLI=$?
wait "$SRV"; RC_SRV=$?
wire_capture stop
cat "$TMP/cli"
[ "$RC_CLI" = 0 ] && [ "$RC_SRV" = 0 ] ||
	fail "pingpong over IPv6: client $RC_CLI, server $RC_SRV: $(cat "$TMP/srv")"
grep -q 'GID fd00:80:2::10' "$TMP/cli" || fail "not over the IPv6 GIDs"

_v6=$(tshark -r "$TMP/wire6.pcap" -Y 'ipv6 && infiniband' 2>/dev/null | wc -l)
_malf=$(tshark -r "$TMP/wire6.pcap" -Y '_ws.malformed' 2>/dev/null | wc -l)
echo "tshark: $_v6 RoCEv2 frames over IPv6, $_malf malformed"
[ "$_v6" -ge $((2 * ITERS)) ] && [ "$_malf" = 0 ] ||
	fail "capture: $_v6 IPv6 RoCEv2 frames, $_malf malformed"
/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min $((2 * ITERS)) \
	"$TMP/wire6.pcap" >"$TMP/roce_check" 2>&1 ||
	fail "roce_check: $(cat "$TMP/roce_check")"
cat "$TMP/roce_check"
echo "PASS: UD across nodes over IPv6, ICRCs right"
