#!/bin/sh
# SPDX-License-Identifier: MIT
# Unmodified iperf3 and sockperf over rsockets: Debian's preload library
# (librspreload.so, librdmacm1) maps their socket calls onto the r*
# calls of our librdmacm.so.1, between two pods.  The engine's byte
# counter must grow by what iperf3 reports (the preload falls back to
# TCP silently when rsockets fail, so that is what proves the path).
set -u
. "$PV_ROOT/tests/lib/pods.sh"
PRE=/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so
[ -f "$PRE" ] || skip "Debian's librspreload.so (librdmacm1) not installed"
# After whatever the runner preloads already (the sanitizer tier's
# libasan must come first).
PRE_ENV="${LD_PRELOAD:+$LD_PRELOAD }$PRE"
need_cmd iperf3
need_cmd sockperf
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up
. "$PV_ROOT/tests/compat/rdmacm_common.inc"

dp_bytes() { pvctl stats | awk '$1 == "dp_bytes" { print $2 }'; }

# pre_server NAME SECS CMD...: CMD in pod b under the preload, once it
# maps our librdmacm and listened (the engine counted an rdma_listen).
pre_server() {
	_pn=$1 _ps=$2
	shift 2
	_pl0=$(cm_listens)
	in_pod b env LD_PRELOAD="$PRE_ENV" timeout "$_ps" "$@" >"$TMP/$_pn.srv" 2>&1 &
	PRE_PID=$!
	wait_until 10 listened_since "$_pl0"
	PRE_TOOL=$(pair_tool "$PRE_PID" "$1")
	[ -n "$PRE_TOOL" ] && rdmacm_loaded "$PRE_TOOL"
}

b0=$(dp_bytes)
if pre_server iperf3 40 iperf3 -s -1 -p 7490; then
	in_pod a env LD_PRELOAD="$PRE_ENV" timeout 30 iperf3 -c "$POD_B_IP" \
		-p 7490 -t 2 -f m >"$TMP/iperf3.cli" 2>&1
	rc=$?
	wait "$PRE_PID"
	b1=$(dp_bytes)
	mb=$(awk '/receiver$/ { print $5; exit }' "$TMP/iperf3.cli")
	rate=$(awk '/receiver$/ { print $7 " " $8; exit }' "$TMP/iperf3.cli")
	moved=$(( (b1 - b0) / 1000000 ))
	if [ "$rc" = 0 ] && [ -n "$mb" ] && [ "$moved" -ge "${mb%.*}" ]; then
		case_ok "iperf3 over rsockets: $rate ($mb MBytes; the engine moved $moved MB)"
	else
		case_fail iperf3 "exit $rc; iperf3 says '$mb' MBytes, the engine moved $moved MB (fell back to TCP?)"
	fi
else
	stop_pid "$PRE_PID"
	case_fail iperf3 "server did not map $PV_LIB/librdmacm.so.1 or listen"
fi

# sockperf's server never exits by itself.
if pre_server sockperf 40 sockperf sr --tcp -p 7491; then
	in_pod a env LD_PRELOAD="$PRE_ENV" timeout 30 sockperf pp --tcp \
		-i "$POD_B_IP" -p 7491 -t 2 >"$TMP/sockperf.cli" 2>&1
	rc=$?
	kill "$PRE_TOOL"
	stop_pid "$PRE_PID"
	lat=$(sed -n 's/.*Summary: Latency is \([0-9.]*\) usec.*/\1/p' \
		"$TMP/sockperf.cli")
	if [ "$rc" = 0 ] && [ -n "$lat" ]; then
		case_ok "sockperf ping-pong over rsockets: $lat us average latency"
	else
		case_fail sockperf "exit $rc, no latency line"
	fi
else
	stop_pid "$PRE_PID"
	case_fail sockperf "server did not map $PV_LIB/librdmacm.so.1 or listen"
fi
pairs_done
