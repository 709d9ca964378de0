#!/bin/sh
# SPDX-License-Identifier: MIT
# pv-impair on the wire between two simulated nodes, at the rates issue 10's
# fault tests use (loss 3 %, reorder 5 %, duplicate 1 %, corrupt 0.1 %):
# over 20000 UDP datagrams from a pod on node 1 to a pod on node 2 its
# counters show those rates, and the receiver sees the same thing from its
# side (datagrams missing, repeated, out of order; corrupted ones dropped
# by the kernel's UDP checksum: UdpInCsumErrors).  A TCP transfer through
# the same impaired link still arrives whole; a delay shows in the RTT;
# the link unplugged and plugged back carries traffic again.
. "$PV_ROOT/tests/lib/nodes.sh"
topo_init
need_cmd /usr/bin/python3 busybox

NODES_NO_ENGINE=1 nodes_up 2 routed
node_pod_add 1 a
node_pod_add 2 b
B=$(node_pod_ip b)
PORT=$((23000 + $$ % 1000))
N=20000

# udp_csum_errors NS: the UDP InCsumErrors counter of NS (/proc/net/snmp).
udp_csum_errors() {
	topo_exec "$1" awk '$1 == "Udp:" && !h { for (i = 2; i <= NF; i++)
		if ($i == "InCsumErrors") c = i; h = 1; next }
		$1 == "Udp:" { print $c }' /proc/net/snmp
}

# between X LO HI: LO <= X <= HI (integers).
between() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

WIRE_SEED=7 wire_impair loss=3 reorder=5 dup=1 corrupt=0.1
csum0=$(udp_csum_errors b)

# The receiver counts datagrams, distinct sequence numbers, repeats and
# those arriving after a later one; it stops 1.5 s after the last.
topo_exec b timeout 40 /usr/bin/python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)	# SO_RCVBUFFORCE
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(10)
seen, total, dups, late, top = set(), 0, 0, 0, -1
while True:
    try:
        d = s.recv(2048)
    except socket.timeout:
        break
    s.settimeout(1.5)
    q = struct.unpack("!I", d[:4])[0]
    total += 1
    if q in seen:
        dups += 1
    seen.add(q)
    if q < top:
        late += 1
    top = max(top, q)
print(total, len(seen), dups, late)' "$B" "$PORT" >"$TMP/udp.recv" 2>&1 &
rpid=$!
sleep 0.5
topo_exec a /usr/bin/python3 -c '
import os, socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pad = os.urandom(996)
for q in range(int(sys.argv[3])):
    s.sendto(struct.pack("!I", q) + pad, (sys.argv[1], int(sys.argv[2])))
    if q % 50 == 49:
        time.sleep(0.001)' "$B" "$PORT" "$N" || fail "sender"
wait "$rpid"
read -r total uniq dups late <"$TMP/udp.recv" || fail "receiver: $(cat "$TMP/udp.recv")"
csum=$(( $(udp_csum_errors b) - csum0 ))
st=$(wire_stats ab)
echo "wire: $st"
echo "receiver: $total datagrams, $uniq distinct of $N, $dups repeated, $late late; UdpInCsumErrors +$csum"
get() { echo "$st" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
rx=$(get rx) tx=$(get tx) drop=$(get drop) reorder=$(get reorder)
dup=$(get dup) corrupt=$(get corrupt) kdrop=$(get kdrop) txerr=$(get txerr)

[ "$kdrop" = 0 ] && [ "$txerr" = 0 ] ||
	fail "pv-impair lost frames of its own (kdrop $kdrop, txerr $txerr)"
between "$rx" "$N" $((N + 50)) || fail "pv-impair received $rx frames for $N datagrams"
# Loss applies to every frame; the others to those it let through.
kept=$((rx - drop))
between "$drop" $((rx * 3 * 80 / 10000)) $((rx * 3 * 120 / 10000)) ||
	fail "loss: $drop of $rx, not 3 % +- 20 %"
between "$reorder" $((kept * 5 * 80 / 10000)) $((kept * 5 * 120 / 10000)) ||
	fail "reorder: $reorder of $kept, not 5 % +- 20 %"
between "$dup" $((kept * 65 / 10000)) $((kept * 135 / 10000)) ||
	fail "dup: $dup of $kept, not 1 % +- 35 %"
between "$corrupt" $((kept * 2 / 10000)) $((kept * 20 / 10000)) ||
	fail "corrupt: $corrupt of $kept, not 0.1 % (0.02..0.2 %)"
[ "$tx" = $((kept + dup)) ] || fail "tx $tx != received $rx - dropped $drop + duplicated $dup"
echo "rates: loss $drop/$rx, reorder $reorder/$kept, dup $dup/$kept, corrupt $corrupt/$kept"

# The receiver's view: every corrupted copy fails the UDP checksum; the
# rest arrive, repeats and late ones included.
between "$csum" "$corrupt" $((corrupt + dup)) ||
	fail "UdpInCsumErrors +$csum for $corrupt corrupted frames"
between "$total" $((tx - csum - 20)) $((tx - csum)) ||
	fail "receiver got $total datagrams, pv-impair sent $tx ($csum bad checksums)"
[ "$dups" -gt 0 ] && [ "$dups" -le "$dup" ] || fail "receiver saw $dups repeats for $dup duplicated"
[ "$late" -gt $((reorder / 2)) ] || fail "receiver saw $late late datagrams for $reorder held back"
# (Frames other than the datagrams, ARP and the like, may be among those
# dropped or not: 20 of slack.)
between $((N - uniq)) $((drop - 20)) $((drop + csum + 20)) ||
	fail "$((N - uniq)) datagrams never arrived; $drop dropped, $csum bad checksums"
echo "receiver agrees: $((N - uniq)) missing, $dups repeated, $late late, $csum bad checksums"

# TCP recovers from all of it.
out=$(pod_tcp_transfer a b 4) || fail "TCP through the impaired link: $out"
echo "TCP a -> b, impaired: $out"
out=$(pod_tcp_transfer b a 4) || fail "TCP b -> a through the impaired link: $out"
echo "TCP b -> a, impaired: $out"

# A delay of 20 ms each way.
wire_impair delay=20000
rtt=$(topo_exec a busybox ping -c 3 -W 2 "$B" | sed -n 's/.*min\/avg\/max = \([0-9.]*\)\/.*/\1/p')
[ -n "$rtt" ] || fail "no ping reply through a delayed link"
awk -v r="$rtt" 'BEGIN { exit !(r >= 40 && r < 400) }' ||
	fail "RTT min $rtt ms through a link delayed 20 ms each way"
echo "delay=20000 each way: ping RTT min $rtt ms"

# Unplugged and plugged back, the link carries traffic again.
wire_link down
pod_reaches a b && fail "a reaches b with the wire unplugged"
wire_link up
wait_until 5 pod_reaches a b || fail "a does not reach b once the wire is back"
pid_alive "$(wire_impair_pid)" || fail "pv-impair did not survive the unplugged link"
echo "unplugged and back: pv-impair forwards again ($(wire_stats ba txerr) frames could not go to the unplugged end)"
echo PASS
