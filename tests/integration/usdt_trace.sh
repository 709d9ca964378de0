#!/bin/sh
# SPDX-License-Identifier: MIT
# USDT probes attached for real (issue 15): bpftrace counts our library's
# podverbs:post_send and poll_cq and the engine's podverbsd:wqe_start and
# wqe_complete while ibv_rc_pingpong -n 100 runs between two pods.  A
# pingpong posts one send per iteration on each side, so post_send fires
# at least 100 times in each process (200 in all), the WRs it reports
# posted add up the same, and the engine starts and completes at least as
# many WQEs.  Skips (77) where bpftrace cannot attach uprobes here (no
# bpftrace, no BPF or perf_event permission, no tracefs/uprobes).
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_rc_pingpong readelf
command -v bpftrace >/dev/null 2>&1 || skip "bpftrace not installed (Debian: bpftrace)"
LIB=$PV_LIB/libibverbs.so.1
ENG=$PV_BUILD/bin/podverbsd
[ -e "$LIB" ] || skip "libibverbs.so.1 not built"
readelf -n "$LIB" | grep -q 'Name: post_send' ||
	skip "probes compiled out in this tree (no <sys/sdt.h>: Debian's systemtap-sdt-dev)"
pods_up

# bpftrace is Debian's, not ours: it runs without the SAN tiers'
# preloaded sanitizer.
# Can bpftrace attach a uprobe at all?  A probe on our own library,
# fired by nothing, is enough to find out.
if ! timeout 60 env -u LD_PRELOAD bpftrace -e "usdt:$LIB:podverbs:reg_mr { } interval:ms:100 { exit(); }" \
	>"$TMP/bt-probe.out" 2>&1; then
	cat "$TMP/bt-probe.out"
	skip "bpftrace cannot attach a USDT probe here: $(tail -1 "$TMP/bt-probe.out")"
fi

BT_READY=$TMP/bt.ready
# USR1 ends the trace (bpftrace prints its maps then), no timeout race.
cat >"$TMP/count.bt" <<BT
BEGIN { printf("ready\n"); }
usdt:$LIB:podverbs:post_send { @post_send = count(); @wrs = sum(arg1); }
usdt:$LIB:podverbs:poll_cq /arg1 > 0/ { @polled = sum(arg1); }
usdt:$ENG:podverbsd:wqe_start { @wqe_start = count(); }
usdt:$ENG:podverbsd:wqe_complete /arg3 == 0/ { @wqe_ok = count(); }
usdt:$ENG:podverbsd:wqe_complete /arg3 != 0/ { @wqe_err = count(); }
BT
env -u LD_PRELOAD bpftrace "$TMP/count.bt" >"$TMP/bt.out" 2>"$TMP/bt.err" &
BT_PID=$!
topo_track_pid "$BT_PID"
wait_until 60 grep -q '^ready' "$TMP/bt.out" || {
	cat "$TMP/bt.out"
	fail "bpftrace did not start"
}

PAIR_PORT=18515
pair_case pingpong 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 100" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 100" || pairs_done
kill -INT "$BT_PID"
wait_until 20 pid_gone "$BT_PID" || {
	cat "$TMP/bt.out" "$TMP/bt.err"
	fail "bpftrace did not end on SIGINT"
}
wait "$BT_PID"
cat "$TMP/bt.out"

val() {
	awk -v k="@$1:" '$1 == k { print $2 }' "$TMP/bt.out"
}
ps=$(val post_send) wrs=$(val wrs) polled=$(val polled)
ws=$(val wqe_start) wok=$(val wqe_ok) werr=$(val wqe_err)
echo "post_send ${ps:-0} (WRs ${wrs:-0}), completions polled ${polled:-0}," \
	"engine WQEs started ${ws:-0}, completed ok ${wok:-0}, in error ${werr:-0}"
[ "${ps:-0}" -ge 200 ] || fail "post_send fired ${ps:-0} times, want >= 200 (100 per side)"
[ "${wrs:-0}" -ge 200 ] || fail "post_send reported ${wrs:-0} WRs posted, want >= 200"
[ "${polled:-0}" -ge 200 ] || fail "poll_cq returned ${polled:-0} completions, want >= 200"
[ "${ws:-0}" -ge 200 ] || fail "wqe_start fired ${ws:-0} times, want >= 200"
[ "${wok:-0}" -ge 200 ] || fail "wqe_complete (success) fired ${wok:-0} times, want >= 200"
[ "${werr:-0}" = 0 ] || fail "$werr WQEs completed in error"
case_ok pingpong
pairs_done
