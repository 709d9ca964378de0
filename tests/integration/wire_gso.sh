#!/bin/sh
# SPDX-License-Identifier: MIT
# UDP GSO on the wire (issue 10, eng_net_tx.c): pod a on node 1, pod b on
# node 2, an engine each; ibv_rc_pingpong with data validation (-c) at
# 64 KiB (64 packets a message at path MTU 1024), twice:
#   1. the path as built (veths and bridges with GSO): the engine's runs
#      of packets must cross node 1's routing, the wire bridge and node 2's
#      routing as one skb each, so the capture on the wire shows frames
#      longer than the MTU, node 1 counts GSO sends, node 2 GRO trains;
#   2. the uplinks' GSO off (as a physical link's frames): the kernel cuts
#      each message at the uplink, every captured frame fits the MTU, the
#      IPv4 IDs count up 0, 1, 2, ... within a message, and every
#      packet's ICRC is right for the header it really has, by scapy's
#      computation (roce_check.py), not ours.
# The fallback (UDP_SEGMENT refused: one datagram per packet, ID 0) is
# test_eng_net's send_gso.
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_rc_pingpong
need_cmd tcpdump
need_cmd tshark
need_cmd ethtool
[ -x /usr/bin/python3 ] || skip "python3 not installed"
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy not installed"

pods_up

# stat K NAME: node K's engine counter.
stat() {
	node_pvctl "$1" stats | awk -v n="$2" '$1 == n { print $2 }'
}

# pp NAME ARGS...: one validated pingpong; fails the test on any error.
pp() {
	_n=$1
	shift
	in_pod b timeout 60 ibv_rc_pingpong -d "$POD_DEV" -g 0 "$@" \
		>"$TMP/$_n.srv" 2>&1 &
	_spid=$!
	wait_until 30 tcp_listening b 18515 || {
		stop_pid "$_spid"
		fail "$_n: server did not listen: $(tail -5 "$TMP/$_n.srv")"
	}
	in_pod a timeout 60 ibv_rc_pingpong -d "$POD_DEV" -g 0 "$@" \
		"$POD_B_IP" >"$TMP/$_n.cli" 2>&1
	_crc=$?
	wait "$_spid"
	_src=$?
	if [ "$_crc" != 0 ] || [ "$_src" != 0 ] ||
	   grep -qi 'invalid data' "$TMP/$_n".*; then
		cat "$TMP/$_n.srv" "$TMP/$_n.cli" >&2
		fail "$_n: client $_crc server $_src (124 = timeout)"
	fi
	echo "$_n: $(grep -E 'usec/iter' "$TMP/$_n.cli" | head -1)"
}

# 1. Offloads on: super-packets on the wire.
G0=$(stat 1 net_tx_gso_sends) T0=$(stat 2 net_rx_gro_trains)
wire_capture start "$TMP/gso.pcap" 'udp port 4791'
pp gso-64k -n 50 -s 65536 -c
wire_capture stop
G1=$(stat 1 net_tx_gso_sends) T1=$(stat 2 net_rx_gro_trains)
S1=$(stat 1 net_tx_gso_segs)
tshark -r "$TMP/gso.pcap" -T fields -e frame.len >"$TMP/gso.len" 2>"$TMP/tshark.err" ||
	fail "tshark: $(cat "$TMP/tshark.err")"
BIG=$(awk '$1 > 1514' "$TMP/gso.len" | wc -l)
ALL=$(wc -l <"$TMP/gso.len")
MAXLEN=$(sort -n "$TMP/gso.len" | tail -1)
echo "offloads on: node 1 GSO sends $((G1 - G0)) ($S1 segments so far)," \
	"node 2 GRO trains $((T1 - T0)); on the wire $ALL frames, $BIG" \
	"longer than the MTU (largest $MAXLEN bytes)"
[ $((G1 - G0)) -ge 50 ] || fail "node 1 sent $((G1 - G0)) GSO messages"
[ "$BIG" -ge 50 ] ||
	fail "GSO messages were cut before the wire: $BIG frames > MTU"
[ $((T1 - T0)) -ge 50 ] ||
	fail "node 2's socket saw $((T1 - T0)) GRO trains"

# 2. Offloads off on the uplinks: real frames, real IDs, right ICRCs.
wire_offload off
wire_capture start "$TMP/seg.pcap" 'udp port 4791'
pp seg-64k -n 50 -s 65536 -c
wire_capture stop
tshark -r "$TMP/seg.pcap" -T fields -e frame.len -e ip.id \
	>"$TMP/seg.fields" 2>"$TMP/tshark.err" ||
	fail "tshark: $(cat "$TMP/tshark.err")"
BIG=$(awk '$1 > 1514' "$TMP/seg.fields" | wc -l)
MAXID=$(awk '{ print $2 }' "$TMP/seg.fields" | sort -u | while read -r _id; do
	printf '%d\n' "$_id"; done | sort -n | tail -1)
[ "$BIG" = 0 ] || {
	awk '$1 > 1514' "$TMP/seg.fields" | head -5 >&2
	fail "offloads off: $BIG frames longer than the MTU"
}
# Segment k has ID k; how many a message holds depends on the turn's
# budget and the socket buffer on a loaded machine (31 and 61 seen).
[ "${MAXID:-0}" -ge 8 ] ||
	fail "IPv4 IDs up to ${MAXID:-none}: the messages were not GSO sends"
/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min 1000 \
	"$TMP/seg.pcap" >"$TMP/roce_check" 2>&1
_rc=$?
grep -v '^frame' "$TMP/roce_check"
[ "$_rc" = 0 ] || fail "roce_check: $(head -20 "$TMP/roce_check")"
echo "offloads off: $(wc -l <"$TMP/seg.fields") frames, none over the MTU," \
	"IPv4 IDs 0..$MAXID"

echo "PASS: wire_gso"
