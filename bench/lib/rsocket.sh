# SPDX-License-Identifier: MIT
# The rsockets rows of `make bench` (POSIX sh; sourced by bench/run.sh
# after bench/lib/measure.sh): unmodified iperf3 and sockperf between the
# two pods with Debian's preload library (librspreload.so, librdmacm1)
# on top of our librdmacm.so.1, beside the same tools over plain TCP
# (TCP_BW, TCP_LAT of the same run); then Debian's rstream over our
# librdmacm beside rstream -T s (its TCP sockets).  Issue 13's targets:
# bandwidth >= 2x TCP, latency < TCP (the row's test; 0.5x is the goal).  The preload's
# servers listen through the CM, not a TCP port: the client starts after
# RS_SETTLE seconds and is retried once.
RS_PRELOAD=${RS_PRELOAD:-/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so}
RS_SETTLE=${RS_SETTLE:-1.5}

# rs_env SIDE CMD...: CMD in pod SIDE over rsockets (our libraries).
rs_env() {
	_rs=$1
	shift
	verbs "$_rs" env LD_PRELOAD="$RS_PRELOAD" "$@"
}

rs_bw() {
	for _r in $(seq "$REPS"); do
		bg_server rs_iperf3 b env LD_LIBRARY_PATH="$LIB" \
			PODVERBS_ENGINE="$ENG_B" LD_PRELOAD="$RS_PRELOAD" \
			iperf3 -s -1 -p 5301
		sleep "$RS_SETTLE"
		for _try in 1 2; do
			_v=$(rs_env a timeout 60 iperf3 -c "$IP_B" -p 5301 \
				-t "$SECS" -f m 2>&1 |
				awk '/receiver/ { for (i = 1; i < NF; i++)
					if ($(i + 1) == "Mbits/sec") print $i / 1000 }')
			[ -n "$_v" ] && { echo "$_v"; break; }
			sleep 1
		done
		stop_server rs_iperf3
	done | median
}

rs_lat() {
	bg_server rs_sockperf b env LD_LIBRARY_PATH="$LIB" \
		PODVERBS_ENGINE="$ENG_B" LD_PRELOAD="$RS_PRELOAD" \
		sockperf server --tcp -i "$IP_B" -p 11311
	sleep "$RS_SETTLE"
	for _r in $(seq "$REPS"); do
		rs_env a timeout 60 sockperf ping-pong --tcp -i "$IP_B" \
			-p 11311 -t "$SECS" -m 14 2>&1 |
			awk '/percentile 50.000 =/ { print $NF }'
	done | median
	stop_server rs_sockperf
}

# rs_stream [-T s]: Debian's rstream, 1 MiB transfers each way (a ping-pong
# of RS_STREAM_ITERS round trips, both directions counted), median Gb/s;
# over rsockets (our librdmacm, no preload), or with -T s over plain TCP
# sockets between the same pods (its baseline).
RS_STREAM_ITERS=${RS_STREAM_ITERS:-1000}
rs_stream() {
	for _r in $(seq "$REPS"); do
		bg_server rs_rstream b env LD_LIBRARY_PATH="$LIB" \
			PODVERBS_ENGINE="$ENG_B" rstream "$@" -S 1048576 \
			-C "$RS_STREAM_ITERS"
		if [ "${1:-}" = -T ]; then
			wait_listen 7471 "$SRV_PID"
		else
			sleep "$RS_SETTLE"
		fi
		verbs a timeout 60 rstream "$@" -S 1048576 -C "$RS_STREAM_ITERS" \
			-s "$IP_B" 2>&1 | awk '$1 == "custom" { print $7 }'
		sleep 0.5
		stop_server rs_rstream
	done | median
}

# rs_rows: the rows (or one line saying why there are none).
rs_rows() {
	if [ ! -f "$RS_PRELOAD" ] || ! command -v iperf3 >/dev/null 2>&1 ||
	   ! command -v sockperf >/dev/null 2>&1; then
		echo "(no rsocket rows: needs $RS_PRELOAD, iperf3, sockperf)"
		return 0
	fi
	_rb=$(rs_bw)
	row "rsocket iperf3" "$_rb" Gb/s "$TCP_BW" bw "" 2
	_rl=$(rs_lat)
	row "rsocket sockperf" "$_rl" us "$TCP_LAT" lat
	command -v rstream >/dev/null 2>&1 || return 0
	_rt=$(rs_stream -T s)
	_rr=$(rs_stream)
	row "rstream 1M" "$_rr" Gb/s "$_rt" bw "" 2
}
