# SPDX-License-Identifier: MIT
# The benchmark's UCX rows (POSIX sh; sourced by bench/run.sh and
# bench/cross.sh after bench/lib/measure.sh, whose caller's variables and
# helpers it uses: TMP REPS IP_B DEV PT_TIMEOUT PT_FAIL_FAST, verbs,
# wait_listen, median, pt_failed, give_up, failed, row).
#
# Debian's ucx_perftest between the same two pods, UCP's tag-matching
# tests: over rc_verbs on the pods' soft device (UCX_TLS=rc_v,self: RC
# QPs wired up through ud_verbs, as UCX does) and, in the same run, over
# UCX's own tcp transport on eth0, as the baseline.  tag_lat is UCX's
# ping-pong (it reports half the round trip), tag_bw a one-way stream.
# Knobs: BENCH_UCX_LAT_ITERS (2000), BENCH_UCX_BW_ITERS (2000 messages of
# 64 KiB), BENCH_UCX_PORT (13337, ucx_perftest's own default).

UCX_LAT_ITERS=${BENCH_UCX_LAT_ITERS:-2000}
UCX_BW_ITERS=${BENCH_UCX_BW_ITERS:-2000}
UCX_PORT=${BENCH_UCX_PORT:-13337}

# ucx_once TL FIELD ARGS...: one ucx_perftest server/client run over TL
# (rc or tcp); prints field FIELD of the client's "Final:" line (3: the
# median latency in us, 7: the overall bandwidth in MB/s), or nothing on
# failure (recorded as pt_failed ucx_TL_TEST).
ucx_once() {
	_ut=$1 _uf=$2
	shift 2
	_utls=rc_v,self _udev=$DEV:1
	[ "$_ut" = tcp ] && _utls=tcp,self _udev=eth0
	_uname=ucx_${_ut}_$(echo "$*" | awk '{ for (i = 1; i < NF; i++) if ($i == "-t") print $(i + 1) }')
	verbs b env UCX_TLS="$_utls" UCX_NET_DEVICES="$_udev" \
		timeout "$PT_TIMEOUT" ucx_perftest -p "$UCX_PORT" >"$TMP/usrv.out" 2>&1 &
	_us=$!
	if ! wait_listen "$UCX_PORT" "$_us"; then
		kill "$_us" 2>/dev/null
		wait "$_us" 2>/dev/null
		{ echo "== ucx_perftest server ($_ut)"; tail -5 "$TMP/usrv.out"; } >"$TMP/last-failure"
		pt_failed "$_uname"
		return
	fi
	verbs a env UCX_TLS="$_utls" UCX_NET_DEVICES="$_udev" \
		timeout "$PT_TIMEOUT" ucx_perftest -p "$UCX_PORT" "$@" "$IP_B" \
		>"$TMP/ucli.out" 2>&1
	_urc=$?
	wait "$_us"
	_usrc=$?
	if [ $_urc != 0 ] || [ $_usrc != 0 ]; then
		{ echo "== ucx_perftest $* over $_ut: client rc $_urc, server rc $_usrc (124: timed out after ${PT_TIMEOUT} s)"
		  grep -E 'ERROR|error|failed' "$TMP/ucli.out" | head -3
		  grep -E 'ERROR|error|failed' "$TMP/usrv.out" | head -3; } >"$TMP/last-failure"
		pt_failed "$_uname"
		return
	fi
	awk -v f="$_uf" '$1 == "Final:" { v = $f } END { if (v != "") print v }' "$TMP/ucli.out"
}

# ucx_median TL FIELD ARGS...: the median of REPS ucx_once runs (the first
# failure ends them when PT_FAIL_FAST is set).
ucx_median() {
	_umt=$1
	shift
	_umn=ucx_${_umt}_$(echo "$*" | awk '{ for (i = 1; i < NF; i++) if ($i == "-t") print $(i + 1) }')
	for _r in $(seq "$REPS"); do
		give_up "$_umn" && break
		ucx_once "$_umt" "$@"
	done | median
}

# MB/s as ucx_perftest counts them (2^20 bytes) to Gb/s.
ucx_gbits() {
	awk -v v="$1" 'BEGIN { if (v == "" || v == "-") print "-"; else printf "%.3f\n", v * 1048576 * 8 / 1e9 }'
}

# ucx_rows PREFIX BW_FACTOR: the two rows, each beside UCX over tcp
# measured just before it; PREFIX is printed first on each line (the
# cross-node condition, or nothing).
ucx_rows() {
	_bw_rc=$(ucx_gbits "$(ucx_median rc 7 -t tag_bw -s 65536 -n "$UCX_BW_ITERS" -w 100)")
	_bw_tcp=$(ucx_gbits "$(ucx_median tcp 7 -t tag_bw -s 65536 -n "$UCX_BW_ITERS" -w 100)")
	_lat_rc=$(ucx_median rc 3 -t tag_lat -s 8 -n "$UCX_LAT_ITERS" -w 200)
	_lat_tcp=$(ucx_median tcp 3 -t tag_lat -s 8 -n "$UCX_LAT_ITERS" -w 200)
	printf '%s' "$1"
	row "ucx tag_bw 64K" "$_bw_rc" Gb/s "$_bw_tcp" bw \
		"$(failed ucx_rc_tag_bw)$(failed ucx_tcp_tag_bw)" "$2"
	printf '%s' "$1"
	row "ucx tag_lat 8B" "$_lat_rc" us "$_lat_tcp" lat \
		"$(failed ucx_rc_tag_lat)$(failed ucx_tcp_tag_lat)" "$2"
}
