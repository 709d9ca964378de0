#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine's memory per QP and per MR (issue 14): one pod holds
# PV_OBJMEM_QPS RC QPs (default 256) then PV_OBJMEM_MRS MRs of
# PV_OBJMEM_MR_KB KiB (default 256 of 16), via pv-objmem (our
# libibverbs), and the engine's /proc status is read between the stages:
# VmRSS, and its parts RssAnon (the engine's own heap: its objects) and
# RssShmem (the pods' rings and MR pages it maps).  Checks only that every
# object was made and freed and the engine's own memory came back to
# within a bound; the figures are printed for the report.
. "$PV_ROOT/tests/lib/pods.sh"
Q=${PV_OBJMEM_QPS:-256}
M=${PV_OBJMEM_MRS:-256}
KB=${PV_OBJMEM_MR_KB:-16}
PROG=$PV_BUILD/tests/bin/pv-objmem
[ -x "$PROG" ] || skip "pv-objmem not built"
pods_up

# status_kb FIELD: a field of the engine's /proc status, KiB.
status_kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$ENGINE_PID/status"; }
snap() { echo "$(status_kb VmRSS) $(status_kb RssAnon) $(status_kb RssShmem)"; }
# per OLD NEW N: bytes per object of each of the three figures.
per() {
	set -- $1 $2 $3
	_o1=$1 _o2=$2 _o3=$3
	shift 3
	set -- $1 $2 $3
	echo "VmRSS $((($1 - _o1) * 1024 / N)) B, RssAnon" \
		"$((($2 - _o2) * 1024 / N)) B, RssShmem $((($3 - _o3) * 1024 / N)) B"
}

in_pod_bg() { topo_exec_bg "$1" env PODVERBS_ENGINE="$ENGINE_SOCK" \
	LD_LIBRARY_PATH="$PV_LIB" "$PROG" "$POD_DEV" "$Q" "$M" "$KB"; }
# at STAGE: wait for pv-objmem to reach it (it stops there).
at() {
	wait_until 120 grep -q "^stage $1" "$TMP/out" || {
		cat "$TMP/out"
		fail "pv-objmem did not reach stage $1"
	}
}
# run_once: pv-objmem through its stages, the engine's figures in
# $ctx, $qps, $mrs and (objects all gone) $after.
run_once() {
	rm -f "$TMP/ctl"
	mkfifo "$TMP/ctl"
	in_pod_bg a <"$TMP/ctl" >"$TMP/out" 2>&1 &
	_p=$!
	topo_track_pid "$_p"
	exec 3>"$TMP/ctl"
	at ctx
	ctx=$(snap)
	echo go >&3
	at qps
	qps=$(snap)
	echo go >&3
	at mrs
	mrs=$(snap)
	echo go >&3
	exec 3>&-
	wait "$_p" || { cat "$TMP/out"; fail "pv-objmem failed"; }
	wait_until 5 no_objs || fail "objects left after pv-objmem exited"
	after=$(snap)
}

base=$(snap)
run_once
echo "scale_objmem: engine VmRSS/RssAnon/RssShmem KiB: base $base," \
	"one context $ctx, +$Q QPs $qps, +$M MRs of $KB KiB $mrs, after $after"
N=$Q
echo "scale_objmem: per QP (RC, 64+64 WRs, in INIT): $(per "$ctx" "$qps")"
N=$M
echo "scale_objmem: per MR ($KB KiB, written): $(per "$qps" "$mrs")"
# The heap the engine freed stays with malloc (not given back to the
# kernel); a second round must reuse it rather than grow: within 1 KiB
# per object made.
set -- $after
first=$2
run_once
set -- $after
echo "scale_objmem: RssAnon after a second round $2 KiB (first $first KiB)"
# ASan keeps freed memory in quarantine: no reuse to see there.
if grep -q -- -fsanitize= "$PV_BUILD/flags.txt" 2>/dev/null; then
	echo "scale_objmem: sanitizer build, heap reuse not checked"
else
	[ "$2" -le $((first + Q + M)) ] ||
		fail "RssAnon $first -> $2 KiB: the second round grew the heap"
fi
set -- $after
[ "$3" -le 64 ] || fail "RssShmem $3 KiB still mapped after all objects"
echo "PASS"
