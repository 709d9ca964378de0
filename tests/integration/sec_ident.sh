#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 4: privilege and namespace must not follow a pid.
# A pod process connects and exits before the engine accepts (the engine
# is stopped meanwhile); a holder it forked keeps the connection.  Its pid
# is then taken, deterministically (ns_last_pid of a private pid
# namespace that the engine and the test share), by
#   admin  a root process in the engine's own network namespace: the
#          holder must not get admin (ADM_DEV_LIST, ADM_DEV_DEL of the
#          other pod's device)
#   pod    a process in pod b: the holder must not see b's device
# Then: admin requests on the pod socket fail EPERM and are counted, and
# the admin socket sits outside the pod socket's folder, in a 0700 folder.
if [ -z "$SEC_IN_PIDNS" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
	command -v unshare >/dev/null || { echo "SKIP: needs unshare"; exit 77; }
	SEC_IN_PIDNS=$$ exec unshare --pid --fork --mount-proc \
		sh "$0" "$@"
fi
. "$PV_ROOT/tests/lib/pods.sh"
topo_init
# Our $$ is 1 here: name the namespaces after the outer pid instead.
TOPO_PREFIX="pvt-$SEC_IN_PIDNS-"
ATTACK=$PV_BUILD/tests/bin/sec-attack
[ -x "$ATTACK" ] || skip "sec-attack not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
[ -w /proc/sys/kernel/ns_last_pid ] || skip "ns_last_pid not writable"
topo_ns a
topo_ns b
topo_veth a b 10.77.0.1/24 10.77.0.2/24 eth0 eth0
start_engine
pvctl dev add --netns "$(topo_path a)" --ifname eth0 --name devA \
	>/dev/null || fail "dev add a"
pvctl dev add --netns "$(topo_path b)" --ifname eth0 --name devB \
	>/dev/null || fail "dev add b"
FAILED=""

# attack NAME DELNAME CMD...: the pod-a holder, its pid then taken by
# CMD (run in the background); leaves the holder's report in $TMP/NAME.
attack() {
	_n=$1 _del=$2
	shift 2
	rm -f "$TMP/go.$_n"
	kill -STOP "$ENGINE_PID"
	topo_exec a env PODVERBS_ENGINE="$ENGINE_SOCK" "$ATTACK" hold \
		"$TMP/go.$_n" $_del >"$TMP/$_n" 2>&1
	_p=$(head -1 "$TMP/$_n")
	case $_p in ''|*[!0-9]*) kill -CONT "$ENGINE_PID"; cat "$TMP/$_n"
		fail "$_n: no pid from the attacker" ;; esac
	wait_until 5 pid_gone "$_p" || fail "$_n: pid $_p still alive"
	echo $((_p - 1)) >/proc/sys/kernel/ns_last_pid
	"$@" &
	_taker=$!
	topo_track_pid "$_taker"
	# The taker must be what it will be (exec'd, in its namespace)
	# before the engine looks.
	wait_until 5 sh -c "[ \"\$(cat /proc/$_taker/comm)\" = sleep ]"
	kill -CONT "$ENGINE_PID"
	[ "$_taker" = "$_p" ] ||
		skip "$_n: pid $_p went to someone else ($_taker)"
	echo "$_n: pod process $_p connected and exited; pid $_p is now: $*"
	sleep 0.5	# the engine accepts now
	touch "$TMP/go.$_n"
	wait_until 10 grep -q '^DEV_LIST' "$TMP/$_n" || {
		cat "$TMP/$_n"; fail "$_n: holder did not report"; }
	[ -z "$_del" ] || wait_until 10 grep -q '^ADM_DEV_DEL' "$TMP/$_n" || {
		cat "$TMP/$_n"; fail "$_n: holder did not try ADM_DEV_DEL"; }
	sed 's/^/    holder: /' "$TMP/$_n" | tail -n +2
}

attack admin devB sleep 60
if grep -q '^ADM_DEV_LIST: ok' "$TMP/admin"; then
	echo "admin: FAIL: the holder got admin through the reused pid"
	FAILED="$FAILED admin"
fi
if pvctl dev list | grep -q devB; then
	echo "admin: pod b's device is still there"
else
	echo "admin: FAIL: pod b's device was deleted by pod a"
	FAILED="$FAILED admin-del"
	pvctl dev add --netns "$(topo_path b)" --ifname eth0 --name devB \
		>/dev/null || fail "dev add b again"
fi

attack pod "" ip netns exec "$(topo_name b)" sleep 60
if grep '^DEV_LIST' "$TMP/pod" | grep -q devB; then
	echo "pod: FAIL: pod a sees pod b's device"
	FAILED="$FAILED pod"
else
	echo "pod: pod b's device stays invisible to pod a"
fi

# The admin socket, as the tools find it from the pod socket.
ADMIN=$("$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" --print-admin-socket \
	2>/dev/null)
if [ -z "$ADMIN" ] || [ ! -S "$ADMIN" ]; then
	echo "admin socket: FAIL: none next to the pod socket's folder"
	FAILED="$FAILED admin-socket"
else
	_dir=$(dirname "$ADMIN")
	case $_dir/ in "$(dirname "$ENGINE_SOCK")"/*)
		echo "admin socket: FAIL: $ADMIN is inside the pod socket's folder"
		FAILED="$FAILED admin-socket-dir" ;;
	esac
	_mode=$(stat -c '%a %u' "$_dir")
	if [ "$_mode" = "700 0" ]; then
		echo "admin socket: $ADMIN, folder mode 0700, owner root"
	else
		echo "admin socket: FAIL: folder $_dir is '$_mode', not '700 0'"
		FAILED="$FAILED admin-socket-mode"
	fi
fi
_before=$(pvctl stats | awk '$1 == "admin_denied" { print $2 }')
"$ATTACK" hold "$TMP/go.direct" >"$TMP/direct" 2>&1
touch "$TMP/go.direct"
wait_until 10 grep -q '^DEV_LIST' "$TMP/direct"
_after=$(pvctl stats | awk '$1 == "admin_denied" { print $2 }')
if grep -q '^ADM_DEV_LIST: Operation not permitted' "$TMP/direct" &&
   [ "${_after:-0}" -gt "${_before:-0}" ]; then
	echo "pod socket: root's ADM_DEV_LIST refused EPERM (admin_denied $_before -> $_after)"
else
	echo "pod socket: FAIL: $(grep ADM_DEV_LIST "$TMP/direct"), admin_denied ${_before:-?} -> ${_after:-?}"
	FAILED="$FAILED pod-socket"
fi

# The honest view: a HELLO proving its namespace sees its own device only.
CLIENT=$PV_BUILD/tests/bin/eng-client
for _ns in a b; do
	_own=dev$(echo "$_ns" | tr ab AB)
	_seen=$(topo_exec "$_ns" env PODVERBS_ENGINE="$ENGINE_SOCK" "$CLIENT" \
		list 2>&1 | awk '{ print $2 }' | tr '\n' ' ')
	if [ "$_seen" = "$_own " ]; then
		echo "proven: pod $_ns sees $_seen"
	else
		echo "proven: FAIL: pod $_ns sees '$_seen', not '$_own'"
		FAILED="$FAILED proven-$_ns"
	fi
done

[ -z "$FAILED" ] || { echo "FAIL:$FAILED"; exit 1; }
echo PASS
