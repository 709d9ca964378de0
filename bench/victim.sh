#!/bin/sh
# SPDX-License-Identifier: MIT
# The noisy-neighbour benchmark (issue 8, finding 5): a victim pod pair's
# RC ping-pong RTT (64 B) on one engine, unloaded and while a hostile pod
# pair floods the same engine with (a) 1 GiB RDMA WRITEs (16 in flight
# on each of 4 QPs) and (b) 64-byte RDMA WRITEs (256 in flight on each of
# 8 QPs).  Target per loaded row: p99.9 within 5x the unloaded p99.9 and
# no round trip over 10 ms.  Also ib_write_bw 64K beside iperf3 between
# the victim's pods, as a ratio (a bandwidth sanity row).  Prints figures
# and PASS/MISS; never fails on a miss (a benchmark, not a test: the test
# is tests/integration/datapath_flood.sh).
#
# usage: bench/victim.sh [BUILD]      (root; VICTIM_SECS, default 4)
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PV_BUILD=$(cd "${1:-${PV_BUILD:-$PV_ROOT/build}}" && pwd)
export PV_ROOT PV_BUILD
SECS=${VICTIM_SECS:-4}
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
topo_ns c
topo_ns d
topo_veth c d 10.78.1.1/24 10.78.1.2/24 eth0 eth0
pod_dev_add c
pod_dev_add d
PROG=$PV_BUILD/tests/integration/dpt_flood
[ -x "$PROG" ] || { echo "bench: $PROG not built"; exit 0; }

run() {
	_x=$1 _y=$2
	shift 2
	timeout 120 env PODVERBS_ENGINE="$ENGINE_SOCK" LD_LIBRARY_PATH="$PV_LIB" \
		"$PROG" "$(topo_path "$_x")" "$(topo_path "$_y")" "$@"
}

# victim NAME: one victim run; appends "NAME median p99 p99.9 max" (us).
victim() {
	run a b pingpong "$SECS" >"$TMP/v.$1" 2>&1
	sed -n 's/.*victim: n=\([0-9]*\) median=\([0-9.]*\) p99=\([0-9.]*\) p99.9=\([0-9.]*\) max=\([0-9.]*\).*/\1 \2 \3 \4 \5/p' \
		"$TMP/v.$1" | head -1 | { read -r n med p99 p999 max &&
		echo "$1 $n $med $p99 $p999 $max" >>"$TMP/rows"; }
}

# loaded NAME FLOOD-ARGS...: the victim while a hostile flood runs.
loaded() {
	_name=$1
	shift
	run c d "$@" >"$TMP/f.$_name" 2>&1 &
	_f=$!
	if wait_until 90 grep -q "hostile: flooding" "$TMP/f.$_name"; then
		sleep 0.5
		victim "$_name"
		# A blocked engine serves the victim only once the flood is
		# over: such a row measures nothing.
		grep -q "hostile: [0-9]" "$TMP/f.$_name" &&
			echo "  $_name: the victim only got through after the flood ended (row invalid)"
	else
		echo "bench: flood $_name did not start"
	fi
	wait "$_f"
	grep "hostile: [0-9]" "$TMP/f.$_name" | sed "s/^/  $_name: /"
}

: >"$TMP/rows"
echo "podverbs noisy-neighbour benchmark: victim a<->b, hostile c->d, one engine, ${SECS} s each"
victim unloaded
loaded write_1GiB write 1024 $((SECS + 4)) 16 4
loaded small_64B small $((SECS + 3)) 8

printf '%-12s %8s %9s %9s %9s %10s  %s\n' row n "median" p99 "p99.9" "max" "target (p99.9 <= 5x unloaded, max <= 10 ms)"
awk 'NR == 1 { base = $5 }
{
	res = ""
	if (NR > 1)
		res = ($5 <= 5 * base && $6 <= 10000) ? "PASS" : "MISS"
	printf "%-12s %8d %7.1fus %7.1fus %7.1fus %8.1fus  %s\n", $1, $2, $3, $4, $5, $6, res
}' "$TMP/rows"

# Bandwidth sanity: ib_write_bw 64K and iperf3, same pods, same run.
if command -v ib_write_bw >/dev/null && command -v iperf3 >/dev/null; then
	in_pod b timeout 30 ib_write_bw -d "$POD_DEV" -F -s 65536 -D 3 --report_gbits >"$TMP/bw.srv" 2>&1 &
	_s=$!
	wait_until 10 tcp_listening b 18515
	in_pod a timeout 30 ib_write_bw -d "$POD_DEV" -F -s 65536 -D 3 --report_gbits "$POD_B_IP" >"$TMP/bw.cli" 2>&1
	wait "$_s"
	rdma=$(awk '/^ *#bytes/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ +[0-9.]+/ { v = $4 } END { print v }' "$TMP/bw.cli")
	topo_exec b timeout 30 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	_s=$!
	wait_until 10 tcp_listening b 5201
	tcp=$(topo_exec a timeout 30 iperf3 -c "$POD_B_IP" -p 5201 -t 3 -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i / 1000 }')
	wait "$_s"
	awk -v r="${rdma:-0}" -v t="${tcp:-0}" 'BEGIN {
		printf "ib_write_bw 64K %.2f Gb/s, iperf3 %.2f Gb/s, ratio %.2f\n", r, t, (t > 0 ? r / t : 0) }'
fi
exit 0
