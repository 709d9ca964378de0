# SPDX-License-Identifier: MIT
# The benchmark's size sweep (POSIX sh; sourced by bench/run.sh after
# bench/lib/measure.sh, whose caller's variables and helpers it uses: TMP
# IP_B DEV LAT_ITERS, perftest_once, bg_server, stop_server, wait_listen,
# ns_exec).  One run per point: the curves for the report's plots
# (bench/lib/report.sh), not figures to compare closely (the table's rows
# are the medians).
#
# Bandwidth: ib_{write,send,read}_bw -D SECS at each size beside iperf3 -l
# SIZE (one stream, receiver Gb/s).  Latency: ib_{write,send,read}_lat
# -n ITERS t_typical beside sockperf ping-pong -m SIZE (median, one way;
# read is a round trip).
# Knobs: BENCH_SWEEP_BW_SIZES, BENCH_SWEEP_LAT_SIZES (bytes), BENCH_SWEEP_SECS
# (1), BENCH_SWEEP_LAT_ITERS (1000).

SWEEP_BW_SIZES=${BENCH_SWEEP_BW_SIZES:-64 1024 4096 16384 65536 262144 1048576 4194304}
SWEEP_LAT_SIZES=${BENCH_SWEEP_LAT_SIZES:-2 64 1024 4096 16384}
SWEEP_SECS=${BENCH_SWEEP_SECS:-1}
SWEEP_LAT_ITERS=${BENCH_SWEEP_LAT_ITERS:-1000}

# sweep_point SERIES SIZE VALUE: one line of $TMP/sweep.tsv ("-" when the
# run gave no figure: the report shows a gap, never a made-up point).
sweep_point() {
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:--}" >>"$TMP/sweep.tsv"
}

# iperf3 writes at most 1 MiB at a time (its own limit): larger sizes are
# measured with 1 MiB writes, which TCP's stream makes no different.
sweep_tcp_bw() {
	_l=$1
	[ "$_l" -gt 1048576 ] && _l=1048576
	bg_server iperf3 b iperf3 -s -1 -p 5201
	if wait_listen 5201 "$SRV_PID"; then
		ns_exec a timeout 30 iperf3 -c "$IP_B" -p 5201 -t "$SWEEP_SECS" \
			-l "$_l" -f m 2>&1 |
			awk '/receiver/ { for (i = 1; i < NF; i++)
				if ($(i + 1) == "Mbits/sec") print $i / 1000 }'
	fi
	stop_server iperf3
}

# sockperf's messages are 14 to 65000 bytes (its header is 14): smaller
# sizes are measured at 14.  Its median is in microseconds, one way.
sweep_tcp_lat() {
	_m=$1
	[ "$_m" -lt 14 ] && _m=14
	[ "$_m" -gt 65000 ] && _m=65000
	ns_exec a timeout 30 sockperf ping-pong --tcp -i "$IP_B" -p 11111 \
		-t "$SWEEP_SECS" -m "$_m" 2>&1 |
		awk '/percentile 50.000 =/ { print $NF }'
}

# sweep_run: fills $TMP/sweep.tsv (series, size in bytes, Gb/s or us).
sweep_run() {
	: >"$TMP/sweep.tsv"
	for s in $SWEEP_BW_SIZES; do
		for t in write send read; do
			sweep_point "ib_${t}_bw" "$s" \
				"$(perftest_once ib_${t}_bw 4 -s "$s" -D "$SWEEP_SECS" --report_gbits)"
		done
		sweep_point tcp_bw "$s" "$(sweep_tcp_bw "$s")"
	done
	for s in $SWEEP_LAT_SIZES; do
		for t in write send read; do
			sweep_point "ib_${t}_lat" "$s" \
				"$(perftest_once ib_${t}_lat 5 -s "$s" -n "$SWEEP_LAT_ITERS")"
		done
	done
	bg_server sockperf b sockperf server --tcp -i "$IP_B" -p 11111
	if wait_listen 11111 "$SRV_PID"; then
		for s in $SWEEP_LAT_SIZES; do
			sweep_point tcp_lat "$s" "$(sweep_tcp_lat "$s")"
		done
	fi
	stop_server sockperf
}
