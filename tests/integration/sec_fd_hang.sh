#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 3: a client-supplied fd must never block the engine's
# loop.  The attacker (tests/integration/sec/sec_attack.c) passes a TCP
# socket whose close() lingers for an hour (SO_LINGER {1, 3600}, send
# queue full, its peer in a private netns that never reads):
#   op      with DEV_LIST, an op that takes no fd
#   mr      as MR_REG's "memfd", from a pod with a device
#   queued  still queued in a connection that then hangs up
# Each time another client must get answers within 100 ms, the fd must
# have been refused (msgs_fds_refused) where a request carried it, and
# SIGTERM must stop the engine within 3 s.
. "$PV_ROOT/tests/lib/pods.sh"
topo_init
ATTACK=$PV_BUILD/tests/bin/sec-attack
[ -x "$ATTACK" ] || skip "sec-attack not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
topo_ns a
topo_ip a link add eth0 type veth peer name eth1 || fail "veth eth0"
topo_ip a link set eth1 up
topo_ip a addr add 10.79.0.1/24 dev eth0
topo_ip a link set eth0 up
FAILED=""

stat_of() {
	pvctl stats | awk -v n="$1" '$1 == n { print $2 }'
}

# run_case NAME EXPECT_REFUSED ATTACK-ARGS...
run_case() {
	_name=$1 _want_refused=$2
	shift 2
	_ok=yes
	_out=$TMP/$_name.out
	_before=$(stat_of msgs_fds_refused)
	rm -f "$TMP/go"
	topo_exec_bg a env PODVERBS_ENGINE="$ENGINE_SOCK" SEC_GO="$TMP/go" \
		"$ATTACK" "$@" >"$_out" 2>&1 &
	_apid=$!
	topo_track_pid "$_apid"
	wait_until 10 grep -q '^ready$' "$_out" || {
		cat "$_out"
		fail "$_name: attacker did not get ready"
	}
	# Stopped while the attacker sends and drops its own copy: the
	# engine then holds the socket's last reference.
	kill -STOP "$ENGINE_PID"
	touch "$TMP/go"
	wait_until 10 grep -q '^sent$' "$_out"
	_sent=$?
	kill -CONT "$ENGINE_PID"
	[ "$_sent" = 0 ] || { cat "$_out"; fail "$_name: attacker did not send"; }
	sleep 0.5
	if "$ATTACK" probe 100 >"$TMP/$_name.probe" 2>&1; then
		echo "$_name: another client answered: $(cat "$TMP/$_name.probe")"
	else
		echo "$_name: FAIL: engine stuck: $(cat "$TMP/$_name.probe")"
		_ok=no
	fi
	if [ "$_want_refused" = yes ] && [ "$_ok" = yes ]; then
		_after=$(stat_of msgs_fds_refused)
		if [ "${_after:-0}" -gt "${_before:-0}" ]; then
			echo "$_name: fd refused (msgs_fds_refused $_before -> $_after)"
		else
			echo "$_name: FAIL: msgs_fds_refused stayed ${_before:-?}"
			_ok=no
		fi
	fi
	_t0=$(date +%s)
	kill -TERM "$ENGINE_PID"
	if wait_until 3 pid_gone "$ENGINE_PID"; then
		echo "$_name: SIGTERM stopped the engine in $(( $(date +%s) - _t0 )) s"
	else
		echo "$_name: FAIL: engine still running 3 s after SIGTERM"
		_ok=no
	fi
	if grep -q "fd reaper did not finish" "$ENGINE_LOG"; then
		echo "$_name: FAIL: a close outlived the reaper's bound"
		_ok=no
	fi
	stop_engine
	stop_pid "$_apid"
	[ "$_ok" = yes ] || FAILED="$FAILED $_name"
}

start_engine
run_case op yes linger-op

start_engine
pod_dev_add a
run_case mr yes linger-mr "$POD_DEV"

start_engine --limit max_msgs_per_wakeup=1
run_case queued no linger-queued

if [ -n "$FAILED" ]; then
	echo "FAIL:$FAILED"
	tail -5 "$ENGINE_LOG" 2>/dev/null
	exit 1
fi
echo "PASS"
