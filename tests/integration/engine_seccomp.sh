#!/bin/sh
# SPDX-License-Identifier: MIT
# podverbsd confines itself: the filter is on in every engine thread
# (/proc/PID/status "Seccomp: 2", no_new_privs), and with it on the engine
# still serves devices (add, GIDs following addresses, port state, delete),
# objects and the data path (eng-dp-loop's error semantics, RC ops, UD,
# ibv_rc_pingpong) -- all under `strace -f`, where no engine system call
# may fail with EPERM.  --no-seccomp and PODVERBS_NO_SECCOMP=1 turn it off.
# That refused calls really are refused (execve, ptrace, unshare, ...) is
# tests/unit/engine/test_eng_seccomp.c: the engine cannot be made to try.
. "$PV_ROOT/tests/lib/pods.sh"
topo_init
# Every check below runs or the whole script skips: strace and
# ibv_rc_pingpong come from mk/deps.sh, eng-dp-loop from make.
need_cmd strace ibv_rc_pingpong python3
[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
LOOP="$PV_BUILD/tests/bin/eng-dp-loop"
[ -x "$LOOP" ] || skip "eng-dp-loop not built"
unset PODVERBS_NO_SECCOMP

# status_field PID FIELD: a field of /proc/PID/status.
status_field() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# check_confined PID: every thread of PID (the fd reaper included) runs
# under a filter, holding CAP_SYS_ADMIN only (eng_caps.h), bounding set
# included.
check_confined() {
	for _t in /proc/"$1"/task/*; do
		[ "$(status_field "$1/task/${_t##*/}" Seccomp)" = 2 ] ||
			fail "thread ${_t##*/} of $1 is not under seccomp"
		[ "$(status_field "$1/task/${_t##*/}" NoNewPrivs)" = 1 ] ||
			fail "thread ${_t##*/} of $1 lacks no_new_privs"
		for _f in CapEff CapPrm CapBnd; do
			[ "$(status_field "$1/task/${_t##*/}" $_f)" = 0000000000200000 ] ||
				fail "thread ${_t##*/} of $1: $_f $(status_field "$1/task/${_t##*/}" $_f), not CAP_SYS_ADMIN alone"
		done
	done
}

echo "== off when asked"
# off_engine NAME [ENV] ARGS...: an engine that must run unconfined.
off_engine() {
	_oe=$1
	shift
	env "$@" --socket "$TMP/$_oe.sock" --foreground \
		>"$TMP/$_oe.log" 2>&1 &
	_oe_pid=$!
	topo_track_pid "$_oe_pid"
	wait_until 5 test -S "$TMP/$_oe.sock" || fail "$_oe: no socket"
	wait_until 5 grep -q 'seccomp: off' "$TMP/$_oe.log" ||
		fail "$_oe: no 'seccomp: off' in its log: $(cat "$TMP/$_oe.log")"
	[ "$(status_field "$_oe_pid" Seccomp)" = 0 ] ||
		fail "$_oe: engine confined"
	grep 'seccomp' "$TMP/$_oe.log"
	stop_pid "$_oe_pid"
}
off_engine opt "$PV_BUILD/bin/podverbsd" --no-seccomp
off_engine env PODVERBS_NO_SECCOMP=1 "$PV_BUILD/bin/podverbsd"

echo "== on by default"
topo_ns a
topo_ns b
topo_veth a b "$POD_A_IP/24" "$POD_B_IP/24" eth0 eth0
start_engine
grep 'seccomp: on' "$ENGINE_LOG" || fail "no 'seccomp: on' in the log"
check_confined "$ENGINE_PID"
grep -E '^(Seccomp|Seccomp_filters|NoNewPrivs):' "/proc/$ENGINE_PID/status"

# From here on every engine call is traced (threads included).
strace -f -qq -o "$TMP/trace" -p "$ENGINE_PID" &
STRACE=$!
topo_track_pid "$STRACE"
wait_until 5 sh -c "[ \"\$(awk '\$1 == \"TracerPid:\" { print \$2 }' \
	/proc/$ENGINE_PID/status)\" != 0 ]" || fail "strace did not attach"

echo "== devices"
pod_dev_add a
pod_dev_add b
pvctl dev list
pvctl dev list | grep -q 0a4e:0001 || fail "no GID from pod a's address"
topo_ip a addr add 10.79.0.1/24 dev eth0
wait_until 5 sh -c "'$PV_BUILD/bin/pvctl' --socket '$ENGINE_SOCK' dev list |
	grep -q 0a4f:0001" || fail "GID table did not follow a new address"
topo_ip a link set eth0 down
ports_down() {
	[ "$(pvctl --json dev list | json_count 'd["port_state"] == "DOWN"')" -ge 1 ]
}
wait_until 5 ports_down ||
	fail "port did not go down"
topo_ip a link set eth0 up
topo_ip b link set eth0 up
topo_wait_dad a
topo_wait_dad b

echo "== objects and data path"
in_pod a timeout 120 "$LOOP" || fail "eng-dp-loop under seccomp"
dpt_run dpt_rc_ops || fail "dpt_rc_ops under seccomp"
dpt_run dpt_ud || fail "dpt_ud under seccomp"
pair_case rc_pingpong 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 200" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 200" ||
	fail "ibv_rc_pingpong under seccomp"
echo "ok: ibv_rc_pingpong"
pvctl obj list
wait_until 5 no_objs || fail "objects left"
pvctl dev del "$POD_DEV" --netns "$(topo_path b)" || fail "dev del"
[ "$(pvctl dev list | grep -c "$POD_DEV")" = 1 ] || fail "device not deleted"
check_confined "$ENGINE_PID"

echo "== nothing refused"
stop_engine
wait_until 10 pid_gone "$STRACE" || fail "strace still running"
wait "$STRACE" 2>/dev/null
[ -s "$TMP/trace" ] || fail "empty trace"
echo "$(wc -l <"$TMP/trace") engine system calls traced"
if grep 'EPERM' "$TMP/trace"; then
	fail "the engine was refused a system call (above)"
fi
# Threads (netns_run) go through glibc's clone fallback.
n3=$(grep -c 'clone3(.*ENOSYS' "$TMP/trace")
nc=$(grep -c 'clone(.*CLONE_THREAD' "$TMP/trace")
echo "clone3 -> ENOSYS: $n3, threads started through clone: $nc"
[ "$n3" -gt 0 ] && [ "$nc" -gt 0 ] ||
	fail "expected namespace threads through the clone fallback"
echo PASS
