#!/bin/sh
# SPDX-License-Identifier: MIT
# Micro-benchmark of the wire's system calls (issue 10, item 3): UDP 4791
# packets/s between two namespaces over a veth, sendmmsg -> recvmmsg with
# batches of 1 and 64, the receiver with and without UDP_GRO (veth GRO
# on), at interface MTU 1500 (RoCE path MTU 1024: 1040-byte packets) and
# 9000 (path MTU 4096: 4112-byte packets).  Root; not part of make check.
#   sh bench/net_mmsg.sh [BUILD] (NET_BENCH_SECS, default 2)
set -u
BUILD=${1:-$(dirname "$0")/../build}
BLAST=$BUILD/tests/bin/net-blast
SECS=${NET_BENCH_SECS:-2}
P=netbench-$$-
V=nb$$
[ -x "$BLAST" ] || { echo "SKIP: $BLAST not built"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
cleanup() { ip netns del ${P}s 2>/dev/null; ip netns del ${P}r 2>/dev/null; }
trap cleanup EXIT INT TERM
ip netns add ${P}s && ip netns add ${P}r || exit 1
ip link add ${V}a netns ${P}s type veth peer name ${V}b netns ${P}r
ip -n ${P}s addr add 10.79.0.1/24 dev ${V}a
ip -n ${P}r addr add 10.79.0.2/24 dev ${V}b
ip -n ${P}s link set ${V}a up
ip -n ${P}r link set ${V}b up

run() {	# MTU SIZE BATCH GRO
	ip -n ${P}s link set ${V}a mtu "$1"
	ip -n ${P}r link set ${V}b mtu "$1"
	_g=off
	[ "$4" = gro ] && _g=on
	ip netns exec ${P}r ethtool -K ${V}b gro "$_g" >/dev/null 2>&1
	ip netns exec ${P}r "$BLAST" recv 10.79.0.2 "$2" "$SECS" "$3" \
		${4#-} >/tmp/${P}recv &
	_r=$!
	sleep 0.3
	_s=$(ip netns exec ${P}s "$BLAST" send 10.79.0.2 "$2" "$SECS" "$3")
	wait $_r
	printf '%-5s %-5s %-5s %-4s %-28s %s\n' "$1" "$2" "$3" "$4" "$_s" \
		"$(cat /tmp/${P}recv | grep recv)"
	rm -f /tmp/${P}recv
}
printf '%-5s %-5s %-5s %-4s %-28s %s\n' MTU SIZE BATCH GRO SENDER RECEIVER
for m in "1500 1040" "9000 4112"; do
	set -- $m
	run "$1" "$2" 1 -
	run "$1" "$2" 64 -
	run "$1" "$2" 64 gro
done
