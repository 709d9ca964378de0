#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine's scheduling knob (limit rt_priority, eng_rt_prio.h; issue
# 14): with rt_priority=3 its loop thread (the main thread) runs
# SCHED_FIFO at priority 3 while every other thread it started is back
# in the normal scheduler (SCHED_RESET_ON_FORK), it still keeps only
# CAP_SYS_ADMIN, and a pod's ib_write_lat runs over it; started without
# CAP_SYS_NICE it warns, stays in the normal scheduler and serves.  The
# default (0) leaves it in the normal scheduler.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd chrt
need_cmd setpriv
need_cmd ib_write_lat
FAILED=""

# policy TID: "SCHED_x prio" of that thread as chrt -p reports it.
policy() {
	chrt -p "$1" | awk -F': *' '/policy/ { p = $2 } /priority/ { q = $2 }
		END { print p, q }'
}

check_threads() {
	_want_main=$1
	for t in /proc/"$ENGINE_PID"/task/*; do
		tid=${t##*/}
		got=$(policy "$tid" 2>/dev/null)
		# A short-lived helper thread (netns work) may be gone.
		[ -n "${got% }" ] || continue
		want="SCHED_OTHER 0"
		[ "$tid" = "$ENGINE_PID" ] && want=$_want_main
		echo "thread $tid ($(cat "$t/comm" 2>/dev/null)): $got"
		case $got in
		"$want"*) ;;
		*) echo "FAIL: thread $tid runs $got, want $want"
		   FAILED="$FAILED $tid" ;;
		esac
	done
}

# 1. Asked for, with the capability (the test runs as root).
PODS_ENGINE_ARGS="--limit rt_priority=3"
pods_up
check_threads "SCHED_FIFO|SCHED_RESET_ON_FORK 3"
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$ENGINE_PID/status")
[ "$eff" = 0000000000200000 ] || { echo "FAIL: CapEff $eff"; FAILED="$FAILED caps"; }
grep -q "SCHED_FIFO at 3" "$ENGINE_LOG" || { echo "FAIL: no log line"; FAILED="$FAILED log"; }
if pair_case ib_write_lat 30 "ib_write_lat -d $POD_DEV -F -n 2000" \
	"ib_write_lat -d $POD_DEV -F -n 2000"; then
	grep -E '^ *2 +2000 ' "$TMP/ib_write_lat.cli"
else
	FAILED="$FAILED write_lat"
fi
stop_engine

# 2. Asked for, without CAP_SYS_NICE: a warning, the normal scheduler.
_eng_real=$PV_BUILD/bin/podverbsd
start_engine_nonice() {
	ENGINE_LOG=$TOPO_TMP/engine-nonice.log
	ENGINE_SOCK=$TOPO_TMP/engine-nonice.sock
	ENGINE_ADMIN_SOCK=$TOPO_TMP-admin2/admin.sock
	setpriv --bounding-set -sys_nice --inh-caps -sys_nice \
		"$_eng_real" --socket "$ENGINE_SOCK" \
		--admin-socket "$ENGINE_ADMIN_SOCK" --foreground \
		--limit rt_priority=3 >"$ENGINE_LOG" 2>&1 &
	ENGINE_PID=$!
	wait_until 5 "$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" \
		stats || { tail -20 "$ENGINE_LOG"; fail "engine without CAP_SYS_NICE did not come up"; }
}
start_engine_nonice
check_threads "SCHED_OTHER 0"
grep -q "rt_priority 3: .*normal scheduler instead" "$ENGINE_LOG" ||
	{ echo "FAIL: no warning"; cat "$ENGINE_LOG"; FAILED="$FAILED warn"; }
stop_engine

# 3. The default: the normal scheduler.
start_engine
check_threads "SCHED_OTHER 0"
stop_engine
[ -z "$FAILED" ] || { echo "FAIL:$FAILED"; exit 1; }
echo PASS
