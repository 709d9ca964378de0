#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/lib/report.sh on a known sweep: the report's tables hold the
# points as measured (a gap stays a gap), the plots are SVGs naming every
# series, and the machine section names this machine.  No traffic: the
# figures are made up here, the formatting is what is tested.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
command -v gnuplot >/dev/null 2>&1 ||
	{ echo "SKIP: gnuplot is not installed (mk/deps.sh installs gnuplot-nox)"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
REPS=3
BENCH_OUT=$TMP/out
. "$PV_ROOT/bench/lib/report.sh"
printf '%s\t%s\t%s\n' \
	ib_write_bw 64 0.21 ib_send_bw 64 0.0518 ib_read_bw 64 0.13 tcp_bw 64 0.032 \
	ib_write_bw 65536 38.96 ib_send_bw 65536 44.11 ib_read_bw 65536 - tcp_bw 65536 5.775 \
	ib_write_lat 65536 9.1 ib_write_lat 2 4.82 ib_send_lat 2 18.24 \
	ib_read_lat 2 19.26 tcp_lat 2 7.3 \
	>"$TMP/sweep.tsv"
echo "ib_write_bw 64K  59.83 Gb/s  5.90 Gb/s  10.14x" >"$TMP/table"
echo "ib_send_bw 8B -q4 -l16  0.47" >"$TMP/rate"
report_write "$TMP/table" "$TMP/rate" "" || fail "report_write failed"
R=$BENCH_OUT/report.md
[ -s "$R" ] || fail "no report.md"
grep -q '^| 65536 | 38.96 | 44.11 | - | 5.775 |$' "$R" ||
	fail "bandwidth row at 64 KiB not as measured (read's gap kept): $(grep '65536' "$R")"
grep -q '^| 64 | 0.21 | 0.0518 | 0.13 | 0.032 |$' "$R" || fail "bandwidth row at 64 B"
grep -q '^| 2 | 4.82 | 18.24 | 19.26 | 7.3 |$' "$R" || fail "latency row at 2 B"
# Rows by size, though the bandwidth series saw 64 KiB first.
awk '/^\| 2 \|/ { getline; print; exit }' "$R" | grep -q '^| 65536 | 9.1 |' ||
	fail "latency rows not smallest first: $(grep -E '^\| (2|65536) ' "$R")"
grep -q 'ib_write_bw 64K  59.83' "$R" || fail "the summary table is missing"
grep -q 'ib_send_bw 8B -q4 -l16' "$R" || fail "the message-rate table is missing"
grep -q "$(nproc) cores online" "$R" || fail "the machine section lacks the core count"
for f in bw lat; do
	[ -s "$BENCH_OUT/$f.svg" ] || fail "no $f.svg: $(cat "$TMP/gnuplot.err" 2>/dev/null)"
	grep -q '<svg' "$BENCH_OUT/$f.svg" || fail "$f.svg is no SVG"
	grep -q "($f.svg)" "$R" || fail "the report does not show $f.svg"
done
for s in ib_write_bw ib_send_bw ib_read_bw tcp_bw; do
	grep -q ">$s<" "$BENCH_OUT/bw.svg" || fail "bw.svg lacks the series $s"
done
echo "PASS: the report holds the measured points, gaps as gaps, and both plots"
