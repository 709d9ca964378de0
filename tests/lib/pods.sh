# SPDX-License-Identifier: MIT
# Two "pods" on one engine, for data-path tests (POSIX sh; sourced):
#
#   . "$PV_ROOT/tests/lib/pods.sh"      # also sources topo.sh
#   pods_up                             # pods a (10.78.0.1) and b (10.78.0.2),
#                                       # a veth between them, an engine, a
#                                       # soft device rdma0 in each
#   in_pod a ibv_devinfo                # our libibverbs, the test's engine
#   pair_case NAME SECS "SERVER CMD" "CLIENT CMD"
#                                       # server in b, client in a (b's IP
#                                       # appended); both bounded by timeout
#   pairs_done                          # exit 0 if every case passed, else 1
#
# PKEY_A / PKEY_B (optional) give the devices a P_Key.  PODS_ENGINE_ARGS:
# extra podverbsd arguments (same-node; NODES_ENGINE_ARGS across nodes).  PAIR_PORT is the TCP
# port the server listens on before the client starts (default 18515, what
# the pingpongs and perftest use).  Every case runs even after a failure;
# a failed case prints both sides' output and the engine log's tail.
#
# PV_TOPO=cross (the runner's cross pass, tests/cross.list) puts pod a on
# node 1 and pod b on node 2 of tests/lib/nodes.sh's routed layout, each
# node with its own engine, so the same script runs across the wire:
# POD_A_IP/POD_B_IP are then 10.80.1.10/10.80.2.10, in_pod and dpt_run use
# each pod's own node's engine, ENGINE_SOCK/ENGINE_ADMIN_SOCK/ENGINE_PID/
# ENGINE_LOG and pvctl are node 1's (`pvctl --pod b ...` or
# `pvctl_node 2 ...` for node 2's), ENGINE_LOG_B is node 2's log.
. "$PV_ROOT/tests/lib/topo.sh"
[ "${PV_TOPO:-}" = cross ] && . "$PV_ROOT/tests/lib/nodes.sh"

POD_A_IP=10.78.0.1
POD_B_IP=10.78.0.2
POD_DEV=rdma0
PV_LIB=$PV_BUILD/lib
PAIRS_FAILED=""
PAIRS_PASSED=0

pods_up() {
	[ "${PV_TOPO:-}" = cross ] && { pods_up_cross; return; }
	topo_init
	[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
	topo_ns a
	topo_ns b
	topo_veth a b "$POD_A_IP/24" "$POD_B_IP/24" eth0 eth0
	# shellcheck disable=SC2086
	start_engine ${PODS_ENGINE_ARGS:-}
	pod_dev_add a ${PKEY_A:+--pkey "$PKEY_A"}
	pod_dev_add b ${PKEY_B:+--pkey "$PKEY_B"}
}

# pods_up_cross: pods_up for PV_TOPO=cross (see the top of this file).
pods_up_cross() {
	topo_init
	[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
	NODES_DEV=$POD_DEV
	nodes_up 2 routed
	node_pod_add 1 a - ${PKEY_A:+--pkey "$PKEY_A"}
	node_pod_add 2 b - ${PKEY_B:+--pkey "$PKEY_B"}
	POD_A_IP=$(node_pod_ip a)
	POD_B_IP=$(node_pod_ip b)
	ENGINE_SOCK=$(node_engine_sock 1)
	ENGINE_ADMIN_SOCK=$(node_engine_admin 1)
	ENGINE_LOG=$(node_engine_log 1)
	ENGINE_LOG_B=$(node_engine_log 2)
	ENGINE_PID=$(node_engine_pid 1)
	PODVERBS_ENGINE=$ENGINE_SOCK
	export POD_A_IP POD_B_IP ENGINE_SOCK ENGINE_ADMIN_SOCK ENGINE_LOG \
		ENGINE_LOG_B ENGINE_PID PODVERBS_ENGINE
}

# pod_engine_sock NS: the engine socket pod NS talks to.
pod_engine_sock() {
	if [ "${PV_TOPO:-}" = cross ] && [ -n "$(node_of "$1")" ]; then
		node_engine_sock "$(node_of "$1")"
	else
		echo "$ENGINE_SOCK"
	fi
}

# pvctl_node N ARGS...: pvctl on node N's engine (the only engine, same-node).
pvctl_node() {
	_pn_n=$1
	shift
	if [ "${PV_TOPO:-}" = cross ]; then
		node_pvctl "$_pn_n" "$@"
	else
		pvctl "$@"
	fi
}

# pod_dev_add NS [ARGS...]: soft device rdma0 on eth0 of NS.
pod_dev_add() {
	_pd_ns=$1
	shift
	if [ "${PV_TOPO:-}" = cross ] && [ -n "$(node_of "$_pd_ns")" ]; then
		pvctl_node "$(node_of "$_pd_ns")" dev add \
			--netns "$(topo_path "$_pd_ns")" --ifname eth0 \
			--name "$POD_DEV" "$@" >/dev/null ||
			fail "dev add in $_pd_ns"
		return 0
	fi
	pvctl dev add --netns "$(topo_path "$_pd_ns")" --ifname eth0 \
		--name "$POD_DEV" "$@" >/dev/null || fail "dev add in $_pd_ns"
}

# pvctl ARGS...: the test engine's admin socket (admin requests are
# served there only).  Cross-node: node 1's, or with --pod NS first, the
# engine of NS's node.
pvctl() {
	if [ "${PV_TOPO:-}" = cross ] && [ "${1:-}" = --pod ]; then
		_pv_pod=$2
		shift 2
		node_pvctl "$(node_of "$_pv_pod")" "$@"
		return
	fi
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" "$@"
}

# in_pod NS CMD...: CMD in pod NS with our library and this test's engine.
in_pod() {
	_ip_ns=$1
	shift
	topo_exec "$_ip_ns" env PODVERBS_ENGINE="$(pod_engine_sock "$_ip_ns")" \
		LD_LIBRARY_PATH="$PV_LIB" "$@"
}

# tcp_listening NS PORT: something listens on TCP PORT in NS.
tcp_listening() {
	[ -n "$(topo_exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ]
}

# listening_or_gone PID NS PORT: PORT listens in NS, or PID has exited.
listening_or_gone() {
	tcp_listening "$2" "$3" || ! pid_alive "$1"
}

# ours_loaded PID: PID has our libibverbs.so.1 mapped (not Debian's).
ours_loaded() {
	grep -q " $PV_LIB/libibverbs.so.1\$" "/proc/$1/maps" 2>/dev/null &&
		! grep -q '/usr/lib/.*/libibverbs.so' "/proc/$1/maps"
}

# pair_tool PID COMM: the descendant of PID named COMM (the tool that
# the backgrounded in_pod/timeout chain runs), or nothing.
pair_tool() {
	_pt_todo=$1
	_pt_comm=$(printf '%s' "${2##*/}" | cut -c1-15)
	while [ -n "$_pt_todo" ]; do
		_pt_next=""
		for _p in $_pt_todo; do
			if [ "$(cat "/proc/$_p/comm" 2>/dev/null)" = "$_pt_comm" ]; then
				echo "$_p"
				return 0
			fi
			_pt_next="$_pt_next $(cat /proc/"$_p"/task/*/children 2>/dev/null)"
		done
		_pt_todo=$(echo $_pt_next)
	done
}

# case_fail NAME WHY: records a failed case and prints its evidence.
case_fail() {
	PAIRS_FAILED="$PAIRS_FAILED $1"
	echo "FAIL $1: $2"
	for _f in "$TMP/$1".*; do
		[ -f "$_f" ] || continue
		echo "---- ${_f##*/}"
		tail -40 "$_f"
	done
	echo "---- engine log (tail)"
	tail -15 "$ENGINE_LOG"
	if [ -n "${ENGINE_LOG_B:-}" ]; then
		echo "---- node 2's engine log (tail)"
		tail -15 "$ENGINE_LOG_B"
	fi
	pods_wire_stats
	echo
	echo "----"
}

# pods_wire_stats: the wire's non-zero counters of both engines
# (cross-node only), so a failure says what the transport saw: drops,
# retransmissions, timeouts, NAKs, socket overflows.
pods_wire_stats() {
	[ "${PV_TOPO:-}" = cross ] || return 0
	for _ws_n in 1 2; do
		echo "---- node $_ws_n's wire counters (since its engine started)"
		pvctl_node "$_ws_n" stats 2>/dev/null |
			awk '$1 ~ /^(wire_|net_|dp_rnr)/ && $2 != 0' | paste - - -
	done
}

# pair_case NAME SECS "SERVER CMD" "CLIENT CMD": runs both sides, checks
# exit codes, that our library was loaded, and leaves the outputs in
# $TMP/NAME.srv and $TMP/NAME.cli for further checks.  Returns 1 on failure
# (already reported).
pair_case() {
	_pc_name=$1 _pc_secs=$2 _pc_srv=$3 _pc_cli=$4
	_pc_port=${PAIR_PORT:-18515}
	# shellcheck disable=SC2086
	in_pod b timeout "$_pc_secs" $_pc_srv >"$TMP/$_pc_name.srv" 2>&1 &
	_pc_spid=$!
	if ! wait_until 10 listening_or_gone "$_pc_spid" b "$_pc_port" ||
	   ! tcp_listening b "$_pc_port"; then
		stop_pid "$_pc_spid"
		case_fail "$_pc_name" "server did not listen on $_pc_port"
		return 1
	fi
	set -- $_pc_srv
	_pc_tool=$(pair_tool "$_pc_spid" "$1")
	_pc_ours=yes
	ours_loaded "$_pc_tool" || _pc_ours=no
	# shellcheck disable=SC2086
	in_pod a timeout "$_pc_secs" $_pc_cli "$POD_B_IP" \
		>"$TMP/$_pc_name.cli" 2>&1
	_pc_crc=$?
	wait "$_pc_spid"
	_pc_src=$?
	if [ "$_pc_ours" = no ]; then
		case_fail "$_pc_name" "server (pid $_pc_tool) did not map $PV_LIB/libibverbs.so.1"
		return 1
	fi
	if [ "$_pc_crc" != 0 ] || [ "$_pc_src" != 0 ]; then
		case_fail "$_pc_name" "exit codes: server $_pc_src, client $_pc_crc (124 = timeout)"
		return 1
	fi
	return 0
}

# case_ok NAME: records a passed case.
case_ok() {
	PAIRS_PASSED=$((PAIRS_PASSED + 1))
	echo "ok   $1"
}

# pairs_done: the script's verdict.
pairs_done() {
	if [ -n "$PAIRS_FAILED" ]; then
		echo "failed cases:$PAIRS_FAILED ($PAIRS_PASSED passed)"
		exit 1
	fi
	echo "PASS ($PAIRS_PASSED cases)"
	exit 0
}

# dpt_run PROG [ARGS...]: runs a two-sided verbs program of
# tests/integration/datapath (side A in pod a, side B in pod b); prints its
# output, and the engine log's tail when it fails.  Returns its status.
dpt_run() {
	_dr_prog=$PV_BUILD/tests/integration/$1
	shift
	[ -x "$_dr_prog" ] || skip "${_dr_prog##*/} not built"
	# PODVERBS_ENGINE_B: side B's engine (dpt.c), another node's in the
	# cross-node pass.
	timeout 120 env PODVERBS_ENGINE="$ENGINE_SOCK" LD_LIBRARY_PATH="$PV_LIB" \
		PODVERBS_ENGINE_B="$(pod_engine_sock b)" \
		"$_dr_prog" "$(topo_path a)" "$(topo_path b)" "$@" \
		>"$TMP/dpt.out" 2>&1
	_dr_rc=$?
	cat "$TMP/dpt.out"
	if [ "$_dr_rc" != 0 ]; then
		echo "---- ${_dr_prog##*/} exited $_dr_rc (124 = timeout); engine log (tail):"
		tail -15 "$ENGINE_LOG"
		[ -n "${ENGINE_LOG_B:-}" ] && tail -15 "$ENGINE_LOG_B"
		pods_wire_stats
		echo
	fi
	return "$_dr_rc"
}
