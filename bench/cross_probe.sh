#!/bin/sh
# SPDX-License-Identifier: MIT
# Where a cross-node perftest's time goes (issue 10, item 3; findings in
# bench/README.md, "cross-node: where the time goes"): PV_TOPO=cross pods
# of tests/lib/pods.sh (pod a on node 1, pod b on node 2, an engine each),
# one perftest a -> b, and beside it the two engines' `pvctl stats` deltas
# (the changed counters), their CPU, the machine's idle share, and
# optionally a 1 s capture on the wire (packets/s each way, inter-packet
# gaps) and a 2 s `perf record -g` of each engine.  Root; a probe, not a
# test: nothing fails on a figure.
#
# usage: sh bench/cross_probe.sh [BUILD]
# Knobs: PROBE_TOOL (ib_write_bw), PROBE_SIZE (65536), PROBE_SECS (5),
#   PROBE_LIMITS ("name=value ..." for both engines' -L), NODES_MTU (1500),
#   PROBE_PCAP=1 (capture), PROBE_PERF=1 (perf), PROBE_OUT (a new
#   directory under /tmp: kept, with the outputs, stats and perf data).
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PV_BUILD=$(cd "${1:-${PV_BUILD:-$PV_ROOT/build}}" && pwd)
PV_TOPO=cross
export PV_ROOT PV_BUILD PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
TOOL=${PROBE_TOOL:-ib_write_bw}
SIZE=${PROBE_SIZE:-65536}
SECS=${PROBE_SECS:-5}
OUT=${PROBE_OUT:-$(mktemp -d /tmp/pv-cross-probe.XXXXXX)}
mkdir -p "$OUT" || exit 1
command -v "$TOOL" >/dev/null 2>&1 || { echo "cross_probe: needs $TOOL"; exit 1; }
for l in ${PROBE_LIMITS:-}; do
	NODES_ENGINE_ARGS="${NODES_ENGINE_ARGS:-} -L $l"
done
export NODES_ENGINE_ARGS
pods_up
PA=$(node_engine_pid 1) PB=$(node_engine_pid 2)

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# idle_total: "IDLE TOTAL" jiffies of the whole machine.
idle_total() {
	awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i
		print $5 + $6, t }' /proc/stat
}
# delta N: node N's counters that changed over the run.
delta() {
	sort "$OUT/stats$1.0" >"$OUT/stats$1.0s"
	sort "$OUT/stats$1.1" >"$OUT/stats$1.1s"
	join "$OUT/stats$1.0s" "$OUT/stats$1.1s" |
		awk '$3 != $2 { printf " %s=%d", $1, $3 - $2 } END { print "" }'
}

pvctl_node 1 stats >"$OUT/stats1.0"
pvctl_node 2 stats >"$OUT/stats2.0"
in_pod b timeout $((SECS + 20)) "$TOOL" -d "$POD_DEV" -F -s "$SIZE" -D "$SECS" \
	>"$OUT/server.out" 2>&1 &
SRV=$!
for _i in $(seq 50); do
	tcp_listening b 18515 && break
	sleep 0.1
done
set -- $(idle_total)
I0=$1 T0=$2 A0=$(ticks "$PA") B0=$(ticks "$PB")
in_pod a timeout $((SECS + 20)) "$TOOL" -d "$POD_DEV" -F -s "$SIZE" -D "$SECS" \
	"$POD_B_IP" >"$OUT/client.out" 2>&1 &
CLI=$!
# Mid-run: the run's first second is connection setup and ramp.
sleep $((SECS / 2 + 1))
if [ "${PROBE_PERF:-0}" = 1 ] && command -v perf >/dev/null 2>&1; then
	perf record -q -g -o "$OUT/perf1.data" -p "$PA" -- sleep 2 >/dev/null 2>&1 &
	perf record -q -g -o "$OUT/perf2.data" -p "$PB" -- sleep 2 >/dev/null 2>&1 &
fi
if [ "${PROBE_PCAP:-0}" = 1 ] && command -v tcpdump >/dev/null 2>&1; then
	topo_exec wire timeout 1 tcpdump -i n1 -nn -w "$OUT/wire.pcap" \
		udp port 4791 >/dev/null 2>&1
fi
wait "$CLI"
RC=$?
A1=$(ticks "$PA") B1=$(ticks "$PB")
set -- $(idle_total)
I1=$1 T1=$2
wait "$SRV"
sleep 2	# perf's 2 s
pvctl_node 1 stats >"$OUT/stats1.1"
pvctl_node 2 stats >"$OUT/stats2.1"

echo "$TOOL -s $SIZE -D $SECS, pod a (node 1) -> pod b (node 2), MTU ${NODES_MTU:-1500}${PROBE_LIMITS:+, limits $PROBE_LIMITS} (rc $RC)"
awk '/^ *#bytes/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+/ { print "  result:", $0 }' \
	"$OUT/client.out"
printf '  engine CPU (s) over the client'"'"'s run: node 1 %d.%02d, node 2 %d.%02d; machine idle %d%%\n' \
	$(((A1 - A0) / 100)) $(((A1 - A0) % 100)) $(((B1 - B0) / 100)) \
	$(((B1 - B0) % 100)) $((100 * (I1 - I0) / (T1 - T0)))
echo "  node 1 counters:$(delta 1)"
echo "  node 2 counters:$(delta 2)"
if [ -s "$OUT/wire.pcap" ] && command -v tshark >/dev/null 2>&1; then
	tshark -r "$OUT/wire.pcap" -T fields -e frame.time_relative -e ip.src \
		-e udp.length 2>/dev/null | awk -v a="$POD_A_IP" '
		$2 == a { n++; if (p != "") { g = ($1 - p) * 1e6
			if (g < 20) b0++; else if (g < 100) b1++
			else if (g < 500) b2++; else if (g < 2000) b3++; else b4++
			if (g >= 100) big += g }
			p = $1; next }
		{ r++ }
		END { printf "  wire, 1 s: %d packets a->b, %d b->a; a->b gaps <20us %d, 20-100us %d, 100-500us %d, 0.5-2ms %d, >=2ms %d (the >=100us ones add up to %.1f ms)\n",
			n, r, b0, b1, b2, b3, b4, big / 1000 }'
fi
for n in 1 2; do
	[ -s "$OUT/perf$n.data" ] || continue
	echo "  node $n engine, perf (top symbols, self):"
	perf report -i "$OUT/perf$n.data" --no-children --sort dso,sym --stdio \
		2>/dev/null | grep -E '^ +[0-9.]+%' | head -8 | sed 's/^ */    /'
done
echo "  outputs in $OUT"
