#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified perftest connecting through the RDMA CM (-R) between
# two pods, over our librdmacm.so.1: ib_{send,write,read}_{bw,lat} and
# ib_atomic_bw, each server in pod b, its client in pod a.  Same-node on
# one engine; in the cross pass (tests/cross.list) across two nodes, the
# CM's exchange as MADs on QP1 and the RC traffic on the wire.  Nothing
# of the CM is left on either engine afterwards.
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ib_send_bw
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up
. "$PV_ROOT/tests/compat/rdmacm_common.inc"

# perftest -R makes two CM connections: its handshake's, then the
# test's, for which the server listens again once the handshake is done;
# nothing makes the client wait for that second rdma_listen.  A client
# that is faster gets REJECTED 8 (no listener), as it would from a
# kernel's CM; seen under load, same-node too, about one run in four.
# (perftest's own retry of that connect ends with the client killed by
# SIGSEGV here: not yet known whether in perftest's retry path or ours.)
# pt_run NAME TOOL ARGS: one server (pod b) / client (pod a) run; returns
# 0 when both exit 0, 2 for that race (the server is stopped at once),
# else 1.
pt_run() {
	_pu_name=$1 _pu_t=$2
	shift 2
	_pu_l0=$(cm_listens)
	in_pod b timeout 60 "$_pu_t" -R -d "$POD_DEV" "$@" >"$TMP/$_pu_name.srv" 2>&1 &
	_pu_spid=$!
	wait_until 10 listened_since "$_pu_l0"
	in_pod a timeout 60 "$_pu_t" -R -d "$POD_DEV" "$@" "$POD_B_IP" \
		>"$TMP/$_pu_name.cli" 2>&1
	_pu_crc=$?
	if [ "$_pu_crc" != 0 ] &&
	   grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$TMP/$_pu_name.cli"; then
		_pu_tool=$(pair_tool "$_pu_spid" "$_pu_t")
		[ -n "$_pu_tool" ] && kill "$_pu_tool" 2>/dev/null
		stop_pid "$_pu_spid"
		# The next server binds the same port: once the engine has
		# seen this one go (its ids, and across nodes its wire
		# connections out of timewait).
		wait_until 10 cm_none_left
		return 2
	fi
	wait "$_pu_spid"
	_pu_src=$?
	[ "$_pu_crc" = 0 ] && [ "$_pu_src" = 0 ] && return 0
	echo "    exit codes: server $_pu_src, client $_pu_crc (124 = timeout)"
	return 1
}

# pt_r TOOL SIZE COLUMN UNIT: TOOL -R with 1000 iterations (run again,
# said so, after the race above; at most 5 runs); its result row is the
# one of SIZE bytes (bw: the 65536-byte default, lat: 2, atomic: 8),
# COLUMN the figure reported (bw: BW average; lat: t_typical).
pt_r() {
	_pr_t=$1 _pr_size=$2 _pr_col=$3 _pr_unit=$4 _pr_n=1
	command -v "$_pr_t" >/dev/null || { echo "note $_pr_t not installed"; return; }
	while :; do
		pt_run "$_pr_t-R" "$_pr_t" -n 1000
		_pr_rc=$?
		[ "$_pr_rc" = 2 ] && [ "$_pr_n" -lt 5 ] || break
		echo "note $_pr_t -R: the client's second connect came before the server's second listen (REJECTED 8); run again"
		_pr_n=$((_pr_n + 1))
	done
	if [ "$_pr_rc" != 0 ]; then
		case_fail "$_pr_t-R" "run $_pr_n failed"
		return
	fi
	_pr_v=$(awk -v s="$_pr_size" -v c="$_pr_col" \
		'$1 == s && $2 == 1000 { print $c }' "$TMP/$_pr_t-R.cli")
	if [ -n "$_pr_v" ]; then
		case_ok "$_pr_t -R: $_pr_v $_pr_unit"
	else
		case_fail "$_pr_t-R" "no result row of $_pr_size bytes, 1000 iterations"
	fi
}

pt_r ib_send_bw 65536 4 "MB/s average"
pt_r ib_write_bw 65536 4 "MB/s average"
pt_r ib_read_bw 65536 4 "MB/s average"
pt_r ib_atomic_bw 8 4 "MB/s average"
pt_r ib_send_lat 2 5 "us typical"
pt_r ib_write_lat 2 5 "us typical"
pt_r ib_read_lat 2 5 "us typical"
cm_check_left
pairs_done
