# SPDX-License-Identifier: MIT
# Throw-away network topologies for integration tests (POSIX sh; sourced):
#
#   . "$PV_ROOT/tests/lib/topo.sh"
#   topo_init                       # root check, unique prefix, cleanup trap
#   topo_ns a; topo_ns b            # namespaces pvt-<pid>-a, pvt-<pid>-b
#   topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
#   topo_exec a ping -c1 10.9.0.2
#   start_engine; ...; stop_engine  # optional, cleanup stops it too
#
# Everything made is recorded under $TOPO_TMP and deleted by name on exit
# (topo_cleanup).  Nothing here creates, moves or changes an interface in
# the caller's (host) namespace: veth pairs are created inside one test
# namespace with the peer placed straight into the other.
#
# Short names (a, node1) are what tests pass around; topo_name/topo_path
# give the real namespace name and its bind-mount path.

PV_ROOT=${PV_ROOT:-$(pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
TOPO_NETNS_DIR=/var/run/netns

# skip MSG...: the test cannot run here; exit 77 (cleanup still runs).
skip() {
	echo "SKIP: $*"
	exit 77
}

# fail MSG...: the test failed.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# need_cmd CMD...: skip unless every command is on PATH.
need_cmd() {
	for _c in "$@"; do
		command -v "$_c" >/dev/null 2>&1 || skip "needs $_c"
	done
}

# wait_until SECS CMD...: polls CMD every 0.1 s until it succeeds; returns
# 1 when SECS run out.
wait_until() {
	_wu_end=$(( $(date +%s) + $1 ))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_wu_end" ] && return 1
		sleep 0.1
	done
	return 0
}

# Namespaces of runs whose process is gone (a killed test left them).
topo_sweep_stale() {
	# Only from the host's pid namespace: inside `unshare --pid` (some
	# attacker tests) every other run's pid looks dead.
	[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || return 0
	for _f in "$TOPO_NETNS_DIR"/pvt-*; do
		[ -e "$_f" ] || continue
		_n=${_f##*/}
		_p=${_n#pvt-}
		_p=${_p%%-*}
		case $_p in ''|*[!0-9]*) continue ;; esac
		[ -d "/proc/$_p" ] && continue
		ip netns del "$_n" 2>/dev/null
	done
}

# topo_init: must run first.  Sets TOPO_PREFIX (pvt-<pid>-), TOPO_TMP and
# TMP (a private temp folder), and traps EXIT for topo_cleanup.
topo_init() {
	need_root
	need_cmd ip
	TOPO_PREFIX="pvt-$$-"
	TOPO_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pvt-$$.XXXXXX") ||
		fail "mktemp"
	TMP=$TOPO_TMP
	: >"$TOPO_TMP/netns.list"
	: >"$TOPO_TMP/pids.list"
	export TOPO_PREFIX TOPO_TMP TMP PV_ROOT PV_BUILD
	trap 'topo_cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	topo_sweep_stale
	# Probe once: a machine without netns support skips, never fails.
	ip netns add "${TOPO_PREFIX}probe" 2>/dev/null ||
		skip "cannot create network namespaces"
	ip netns del "${TOPO_PREFIX}probe"
}

topo_name() {
	echo "${TOPO_PREFIX}$1"
}

topo_path() {
	echo "$TOPO_NETNS_DIR/${TOPO_PREFIX}$1"
}

topo_has_ns() {
	[ -e "$TOPO_NETNS_DIR/${TOPO_PREFIX}$1" ]
}

# topo_exec NS CMD...: runs CMD inside namespace NS.
topo_exec() {
	_te_ns=$1
	shift
	ip netns exec "${TOPO_PREFIX}$_te_ns" "$@"
}

# topo_exec_bg NS CMD... &: topo_exec for the background only.  The
# subshell that `&` makes of a function execs, so $! is CMD's own pid and
# stop_pid/topo_track_pid stop CMD itself (with topo_exec, $! is that
# subshell: killing it leaves CMD running after the test).
topo_exec_bg() {
	_te_ns=$1
	shift
	exec ip netns exec "${TOPO_PREFIX}$_te_ns" "$@"
}

# topo_ip NS ARGS...: `ip` inside namespace NS.
topo_ip() {
	_ti_ns=$1
	shift
	ip -n "${TOPO_PREFIX}$_ti_ns" "$@"
}

# topo_ns NAME: a new namespace with lo up.
topo_ns() {
	[ -n "$TOPO_PREFIX" ] || fail "topo_init not called"
	ip netns add "${TOPO_PREFIX}$1" || fail "ip netns add ${TOPO_PREFIX}$1"
	echo "${TOPO_PREFIX}$1" >>"$TOPO_TMP/netns.list"
	ip -n "${TOPO_PREFIX}$1" link set lo up
}

# Adds ADDR (unless "-" or empty) to IF in NS.
topo_addr() {
	case $3 in ''|-) return 0 ;; esac
	topo_ip "$1" addr add "$3" dev "$2" || fail "addr $3 on $1/$2"
}

# topo_veth NSA NSB IPA IPB [IFA [IFB]]: a veth pair between two existing
# namespaces, both ends up with their addresses ("-" for none).  Interface
# names default to to-NSB in NSA and to-NSA in NSB (cut to 15 characters).
topo_veth() {
	_va=$1 _vb=$2
	_ifa=${5:-$(printf 'to-%s' "$_vb" | cut -c1-15)}
	_ifb=${6:-$(printf 'to-%s' "$_va" | cut -c1-15)}
	topo_ip "$_va" link add "$_ifa" type veth peer name "$_ifb" \
		netns "${TOPO_PREFIX}$_vb" ||
		fail "veth $_va/$_ifa - $_vb/$_ifb"
	topo_addr "$_va" "$_ifa" "$3"
	topo_addr "$_vb" "$_ifb" "$4"
	topo_ip "$_va" link set "$_ifa" up
	topo_ip "$_vb" link set "$_ifb" up
}

# topo_bridge NODE BRIP POD IP [POD IP]...: simulates a node.  NODE (made
# if missing) gets bridge br0 with address BRIP ("-" for none) and IP
# forwarding on; each POD (made if missing) gets interface $TOPO_POD_IF
# (default eth0) with address IP, joined to br0 by a veth whose node end is
# "v-POD".  With an IPv4 BRIP the pods route by default through it.
topo_bridge() {
	_bn=$1 _bip=$2
	shift 2
	topo_has_ns "$_bn" || topo_ns "$_bn"
	topo_ip "$_bn" link add br0 type bridge || fail "bridge in $_bn"
	topo_addr "$_bn" br0 "$_bip"
	topo_ip "$_bn" link set br0 up
	topo_exec "$_bn" sysctl -qw net.ipv4.ip_forward=1
	while [ $# -ge 2 ]; do
		_bp=$1 _pip=$2
		shift 2
		topo_has_ns "$_bp" || topo_ns "$_bp"
		_bif=$(printf 'v-%s' "$_bp" | cut -c1-15)
		topo_veth "$_bn" "$_bp" - "$_pip" "$_bif" "${TOPO_POD_IF:-eth0}"
		topo_ip "$_bn" link set "$_bif" master br0 ||
			fail "enslave $_bif"
		case $_bip in
		*.*.*.*) topo_ip "$_bp" route add default via "${_bip%/*}" ||
				fail "default route in $_bp" ;;
		esac
	done
}

# topo_wait_dad NS [SECS]: waits until no address in NS is tentative.
topo_wait_dad() {
	wait_until "${2:-5}" topo_no_tentative "$1" ||
		fail "DAD did not finish in $1"
}

topo_no_tentative() {
	! topo_ip "$1" addr show | grep -q tentative
}

# pid_alive PID: running (a zombie, exited but not yet reaped, is not).
pid_alive() {
	case $1 in ''|*[!0-9]*) return 1 ;; esac
	[ -r "/proc/$1/stat" ] || return 1
	_pa_state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$_pa_state" ] && [ "$_pa_state" != Z ]
}

pid_gone() {
	! pid_alive "$1"
}

# pid_is_child PID: PID is alive and a child of this shell (so a reaped
# PID that the kernel reused for someone else is never signalled).
pid_is_child() {
	pid_alive "$1" || return 1
	_pc_ppid=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2)
	[ "$_pc_ppid" = "$$" ]
}

# stop_pid PID: SIGTERM, SIGKILL after 5 s, then reap.  PID must be a
# child of the test shell (started with &); anything else is left alone.
stop_pid() {
	pid_is_child "$1" || { wait "$1" 2>/dev/null; return 0; }
	kill "$1" 2>/dev/null
	wait_until 5 pid_gone "$1" || kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# topo_track_pid PID: stop PID (a child of the test shell) on cleanup.
topo_track_pid() {
	echo "$1" >>"$TOPO_TMP/pids.list"
}

# topo_cleanup: stops what was started, deletes what was made, by name.
# Runs on EXIT; safe to call twice.
topo_cleanup() {
	_rc=$?
	[ -n "$TOPO_TMP" ] && [ -d "$TOPO_TMP" ] || return "$_rc"
	stop_engine
	for _pid in $(cat "$TOPO_TMP/pids.list"); do
		stop_pid "$_pid"
	done
	while read -r _n; do
		ip netns del "$_n" 2>/dev/null
	done <"$TOPO_TMP/netns.list"
	rm -rf "$TOPO_TMP"
	TOPO_TMP=
	return "$_rc"
}

# start_engine [ARGS...]: starts podverbsd in the foreground on a private
# socket ($TOPO_TMP/engine.sock; extra ARGS go to podverbsd) with its
# admin socket outside that folder ($TOPO_TMP-admin/admin.sock, root's,
# 0700), waits up to 5 s until `pvctl --admin-socket ... stats` answers,
# exports PODVERBS_ENGINE, ENGINE_SOCK, ENGINE_ADMIN_SOCK, ENGINE_PID and
# ENGINE_LOG (its stdout+stderr).  Skips if podverbsd is not built; fails
# if it does not come up.
start_engine() {
	_eng=$PV_BUILD/bin/podverbsd
	_ctl=$PV_BUILD/bin/pvctl
	[ -x "$_eng" ] || skip "podverbsd not built"
	ENGINE_SOCK=$TOPO_TMP/engine.sock
	ENGINE_ADMIN_SOCK=$TOPO_TMP-admin/admin.sock
	ENGINE_LOG=$TOPO_TMP/engine.log
	# The engine detaches by default; keep it our child so it can be
	# stopped by PID.
	_fg=
	"$_eng" --help 2>/dev/null | grep -q -- --foreground && _fg=--foreground
	"$_eng" --socket "$ENGINE_SOCK" --admin-socket "$ENGINE_ADMIN_SOCK" \
		$_fg "$@" >"$ENGINE_LOG" 2>&1 &
	ENGINE_PID=$!
	PODVERBS_ENGINE=$ENGINE_SOCK
	export PODVERBS_ENGINE ENGINE_SOCK ENGINE_ADMIN_SOCK ENGINE_PID \
		ENGINE_LOG
	if [ -x "$_ctl" ]; then
		wait_until 5 "$_ctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats
	else
		wait_until 5 test -S "$ENGINE_SOCK"
	fi || {
		tail -20 "$ENGINE_LOG" >&2
		fail "engine did not answer on $ENGINE_SOCK within 5 s"
	}
	pid_alive "$ENGINE_PID" || {
		tail -20 "$ENGINE_LOG" >&2
		fail "engine exited"
	}
}

# stop_engine: SIGTERM, then SIGKILL after 5 s; no-op if not running.
stop_engine() {
	[ -n "$ENGINE_PID" ] || return 0
	stop_pid "$ENGINE_PID"
	ENGINE_PID=
	# A killed engine leaves its admin folder (outside $TOPO_TMP).
	if [ -n "${ENGINE_ADMIN_SOCK:-}" ]; then
		rm -f "$ENGINE_ADMIN_SOCK"
		rmdir "${ENGINE_ADMIN_SOCK%/*}" 2>/dev/null
	fi
	return 0
}

# json_count PYEXPR: how many entries d of the JSON list on stdin make
# PYEXPR true (for pvctl --json: parsed, so its whitespace is no contract).
# Prints nothing and fails when stdin is not a JSON list.
json_count() {
	/usr/bin/python3 -c '
import json, sys
print(sum(1 for d in json.load(sys.stdin) if eval(sys.argv[1])))' "$1"
}

# obj_count [DEV]: how many objects (of DEV) `pvctl obj list` shows on the
# test engine.  Prints nothing and fails when pvctl fails, so a count
# compared with an expected one never matches for an engine that did not
# answer (an empty list from a failed pvctl read as "no objects").
obj_count() {
	_oc_out=$("$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" \
		obj list "$@") || return 1
	printf '%s\n' "$_oc_out" | tail -n +2 | grep -c .
	return 0
}

# no_objs [DEV]: pvctl answers and lists no objects (of DEV).
no_objs() {
	[ "$(obj_count "$@")" = 0 ]
}
