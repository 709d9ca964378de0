# SPDX-License-Identifier: MIT
# The benchmark's message-rate and large-message rows (POSIX sh; sourced by
# bench/run.sh after bench/lib/measure.sh, whose variables and helpers it
# uses: TMP REPS SECS ENGINE_PID_A, perftest_once, median, engine_ticks,
# cpu_pct, now, give_up, failed).
#
# - 8-byte ib_send_bw / ib_write_bw with -q 4 and post lists of 16
#   (perftest's MsgRate column, Mpps), with the engine's CPU: its ticks over
#   the runs divided by the runs' traffic time (REPS x SECS; the setup's
#   ticks are counted, its time is not, so the rate per engine core, the
#   figure the 5 M/s target speaks of, errs low).
# - 4 MiB ib_write_bw over 16 QPs (64 MiB of buffers on each side, more
#   than this machine's last-level cache) beside memcpy of 64 MiB buffers
#   (`perf bench mem memcpy`, Debian's linux-perf), the physical limit of
#   the one copy the engine makes.
# Knobs: BENCH_RATE_POST_LIST (16), BENCH_RATE_QPS (4), BENCH_BIG_QPS (16).

RATE_POST_LIST=${BENCH_RATE_POST_LIST:-16}
RATE_QPS=${BENCH_RATE_QPS:-4}
BIG_QPS=${BENCH_BIG_QPS:-16}

# rate_one TOOL: median Mpps of 8-byte messages; the engine's ticks and
# the wall time of the runs go to $TMP/rate.TOOL.
rate_one() {
	_r0=$(engine_ticks "$ENGINE_PID_A") _w0=$(now)
	for _r in $(seq "$REPS"); do
		give_up "$1" && break
		perftest_once "$1" 5 -s 8 -q "$RATE_QPS" -l "$RATE_POST_LIST" \
			-D "$SECS"
	done | median
	echo "$(( $(engine_ticks "$ENGINE_PID_A") - _r0 )) $_w0 $(now)" >"$TMP/rate.$1"
	echo "$REPS $SECS" >>"$TMP/rate.$1"
}

# rate_row NAME TOOL: Mpps, engine CPU, Mpps per engine core.
rate_row() {
	_v=$(rate_one "$2")
	_c=$(awk -v hz="$HZ" 'NR == 1 { t = $1 } NR == 2 { s = $1 * $2 }
		END { printf "%.1f", (s > 0 ? 100 * t / hz / s : 0) }' "$TMP/rate.$2" 2>/dev/null)
	awk -v n="$1" -v v="$_v" -v c="${_c:-0}" -v note="$(failed "$2")" 'BEGIN {
		if (v == "" || v == "-") { printf "%-26s %8s%s\n", n, "FAILED", note; exit }
		pc = (c > 0 ? v * 100 / c : 0)
		printf "%-26s %8.2f %8.1f%% %10.2f  %-12s %s%s\n", n, v, c, pc,
			">= 5 M/core", (pc >= 5 ? "PASS" : "MISS"), note
	}'
}

# memcpy_gbs: perf bench's memcpy of 64 MiB buffers in Gb/s ("-" without
# perf).
memcpy_gbs() {
	command -v perf >/dev/null 2>&1 || { echo -; return; }
	perf bench mem memcpy -s 64MB -l 20 -f default 2>/dev/null |
		awk '/GB\/sec/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^GB\/sec/) g = $i }
			/MB\/sec/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^MB\/sec/) g = $i / 1000 }
			END { if (g != "") printf "%.2f\n", g * 8; else print "-" }'
}

big_bw() {
	for _r in $(seq "$REPS"); do
		give_up ib_write_bw_4m && break
		perftest_once ib_write_bw 4 -s 4194304 -q "$BIG_QPS" -D "$SECS" \
			--report_gbits
	done | median
}

# msgrate_rows: the table of this file's rows.
msgrate_rows() {
	printf '%-26s %8s %9s %10s  %-12s %s\n' test Mpps "eng CPU" "Mpps/core" target result
	rate_row "ib_send_bw 8B -q$RATE_QPS -l$RATE_POST_LIST" ib_send_bw
	rate_row "ib_write_bw 8B -q$RATE_QPS -l$RATE_POST_LIST" ib_write_bw
	_b=$(big_bw) _m=$(memcpy_gbs)
	awk -v b="$_b" -v m="$_m" -v q="$BIG_QPS" 'BEGIN {
		printf "%-26s %8s Gb/s   memcpy 64 MiB %s Gb/s  ratio %s\n",
			"ib_write_bw 4M -q" q, (b == "" ? "FAILED" : b), m,
			((b != "" && b != "-" && m != "-" && m > 0) ? sprintf("%.2fx", b / m) : "-")
	}'
}
