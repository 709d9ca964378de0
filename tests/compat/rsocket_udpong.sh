#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified udpong (rdmacm-utils) between two pods over our
# librdmacm.so.1 and libibverbs.so.1: datagram rsockets (SOCK_DGRAM,
# rsendto/rrecvfrom/rpoll), rdma-core's protocol -- the first datagrams
# over each rsocket's UDP socket, then UD once the peers learned each
# other's QPN.  Non-blocking (udpong's default), blocking (-T b) and
# poll-driven (-T a); echo (latency: the server sends every datagram
# back) and one-way (bandwidth: the server counts what arrived and the
# client prints that count: losses are reported, not failed); several
# sizes up to the largest a 2048-byte UD slot carries.  The server runs
# in pod b (bound to its address; udpong's server never exits: stopped
# after each case), the client in pod a.  udpong's -T s is plain UDP,
# not ours.
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd udpong
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

. "$PV_ROOT/tests/compat/rdmacm_common.inc"

PORT=7174
udp_bound() { [ -n "$(topo_exec b ss -Hlun "sport = :$PORT" 2>/dev/null)" ]; }

# up_case NAME "SERVER OPTIONS" "CLIENT OPTIONS" SIZE COUNT ECHO: one
# udpong run; the client's result line must show SIZE and, one-way,
# COUNT datagrams received by the server (echo: twice COUNT, each way).
# udpong's client resends whatever is not answered within 1 ms, so a
# blocking echo server woken late on a loaded host builds a backlog of
# stale answers that the client drains one per resend (correct, but it
# may take minutes): the echo cases keep udpong's spinning server.
up_case() {
	_un=$1 _uso=$2 _uo=$3 _usz=$4 _uc=$5 _ue=$6
	# shellcheck disable=SC2086
	in_pod b timeout 90 stdbuf -oL udpong $_uso -b "$POD_B_IP" -p $PORT \
		>"$TMP/$_un.srv" 2>&1 &
	_us=$!
	wait_until 10 udp_bound
	_ut=$(pair_tool "$_us" udpong)
	if [ -z "$_ut" ] || ! rdmacm_loaded "$_ut"; then
		stop_pid "$_us"
		case_fail "$_un" "server did not map $PV_LIB/librdmacm.so.1"
		return
	fi
	# shellcheck disable=SC2086
	in_pod a timeout 60 stdbuf -oL udpong $_uo -S "$_usz" -C "$_uc" -p $PORT \
		-s "$POD_B_IP" >"$TMP/$_un.cli" 2>&1
	_urc=$?
	kill "$_ut" 2>/dev/null
	stop_pid "$_us"
	# name bytes xfers total time Gb/sec usec/xfer
	_ul=$(awk '$1 == "custom" { print }' "$TMP/$_un.cli")
	_want=$_uc
	[ "$_ue" = echo ] && _want=$((2 * _uc))
	_ux=$(echo "$_ul" | awk '{ print $3 }')
	# udpong prints counts over 1000 as "1k", "2k"... (cnt_str).
	case $_want in
	*000) _wantp="$((_want / 1000))k" ;;
	*) _wantp=$_want ;;
	esac
	if [ "$_urc" != 0 ]; then
		case_fail "$_un" "client exit $_urc (124 = timeout)"
	elif [ -z "$_ul" ] || grep -qiE 'fail|error|rsend|rrecv|rconnect' \
	     "$TMP/$_un.cli" "$TMP/$_un.srv"; then
		case_fail "$_un" "no result line, or an error printed"
	elif [ "$_ux" != "$_wantp" ] && { [ "$_ue" = echo ] ||
	     [ "${_ux:-0}" = 0 ]; }; then
		case_fail "$_un" "transfers $_ux, expected $_wantp (datagrams lost)"
	elif ! grep -q "client login from $POD_A_IP" "$TMP/$_un.srv"; then
		case_fail "$_un" "the server did not see pod a's login"
	else
		# A one-way burst may lose datagrams, as UD and UDP may (a
		# server woken late overflows its UDP socket, the wire drops):
		# reported, not failed; an echo case resends, so it must be
		# exact.
		_ulost=""
		[ "$_ux" != "$_wantp" ] && _ulost=" ($_ux of $_wantp arrived)"
		case_ok "$_un: $(echo "$_ul" | awk '{ print $2 " x " $3 ": " $6 " Gb/s, " $7 " us/xfer" }')$_ulost"
	fi
}

up_case udpong-nonblock-echo-64 "" "-T e" 64 500 echo
up_case udpong-nonblock-echo-1k "" "-T e" 1024 500 echo
up_case udpong-block-echo-1000 "" "-T b -T e" 1000 500 echo
up_case udpong-async-echo-512 "-T a" "-T a -T e" 512 500 echo
up_case udpong-async-echo-2040 "-T a" "-T a -T e" 2040 300 echo
up_case udpong-block-bw-1k "-T b" "-T b" 1024 100 oneway
up_case udpong-async-bw-256 "-T a" "-T a" 256 300 oneway
# Past the path MTU a datagram goes over UDP (100: what the UDP socket's
# buffer holds if the server is slow to read; beyond, UDP may drop).
up_case udpong-nonblock-bw-1500 "" "" 1500 100 oneway

# The calls udpong does not make, through ctypes in pod b: SO_TYPE,
# EAGAIN, rpoll and rselect, the sender's address, MSG_TRUNC, EMSGSIZE,
# a datagram past the MTU, rclose with datagrams pending.
if in_pod b timeout 60 python3 "$PV_ROOT/tests/compat/rsocket_dgram_peer.py" \
	"$POD_B_IP" >"$TMP/rs-dgram.out" 2>&1; then
	case_ok "ctypes: $(grep -c '^ok' "$TMP/rs-dgram.out") checks (SO_TYPE, EAGAIN, rpoll, rselect, source address, MSG_TRUNC, EMSGSIZE, rclose pending)"
else
	case_fail rs-dgram "$(grep '^FAIL' "$TMP/rs-dgram.out" | head -3)"
fi
pairs_done
