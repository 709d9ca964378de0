# SPDX-License-Identifier: MIT
# Simulated nodes on one machine, for cross-node tests (POSIX sh; sourced
# after topo.sh, or alone: it sources topo.sh itself):
#
#   . "$PV_ROOT/tests/lib/nodes.sh"
#   topo_init
#   nodes_up 2 routed               # nodes n1, n2 (each a netns with its own
#                                   # engine), a "wire" netns between them
#   node_pod_add 1 a                # pod a on node 1: eth0, soft device rdma0
#   node_pod_add 2 b                #   from node 1's engine; b on node 2
#   in_node_pod a ibv_devinfo       # our library, node 1's engine
#   node_pvctl 2 dev list           # node 2's engine's admin socket
#   wire_impair loss=3 reorder=5    # pv-impair forwards the link, impaired
#   wire_stats ab drop              # one counter (A->B: node 1 -> node 2)
#   wire_capture start "$TMP/x.pcap" 'udp port 4791'; ...; wire_capture stop
#
# A node is a network namespace ("nK": the node's host namespace) holding
# a bridge br0 for its pods and an uplink veth whose other end (nK) is in
# the wire namespace; a podverbsd runs inside the node's namespace (started
# with `ip netns exec`), with its own pod and admin sockets.  A pod is a
# namespace whose eth0 is a veth to the node's br0.  Pods of different
# nodes reach each other only through the wire namespace, where a plain
# bridge (br0) or the impairer forwards frames between the nodes' links and
# tcpdump can listen.
#
# Layouts (NODES_LAYOUT, or nodes_up's second argument):
#   routed  per-node pod subnets 10.80.K.0/24 (br0 10.80.K.1, pods from
#           10.80.K.10, default route via br0); nodes on 10.79.0.0/24
#           (node K is 10.79.0.K on its uplink) with a route to each other
#           node's pod subnet, as a cluster's pod network routes pod IPs.
#   flat    one L2 segment: br0 of every node bridges its pods and its
#           uplink; pods 10.81.K.10... in 10.81.0.0/16.
# NODES_MTU (default 1500; nodes_up's third argument) is set on every hop:
# pods' eth0, both ends of every veth, the bridges.
# NODES_ENGINE_ARGS: extra podverbsd arguments for every node's engine;
# NODES_NO_ENGINE=1: no engines (plain networking tests).
#
# Everything is made with topo.sh's helpers, so topo_cleanup (on exit)
# stops the engines, the impairer and tcpdump and deletes every namespace.
#
# Not only for tests: deploy/demo.sh (make demo) and bench/cross.sh (make
# bench) build their two nodes with these functions and rely on the
# routed layout's names and addresses; change them together.
command -v topo_init >/dev/null 2>&1 || . "$PV_ROOT/tests/lib/topo.sh"

PV_LIB=${PV_LIB:-$PV_BUILD/lib}
NODES_N=0
# Programs started in the background (engines, pv-impair, tcpdump) get
# SIGTERM when the test shell dies, even by SIGKILL, when its EXIT trap
# cannot stop them (prctl PR_SET_PDEATHSIG, kept across exec).
NODES_PDEATH=
setpriv --help 2>/dev/null | grep -q -- --pdeathsig &&
	NODES_PDEATH="setpriv --pdeathsig TERM"
NODES_DEV=${NODES_DEV:-rdma0}

# nodes_dir: where the per-node state lives (pod -> node, engine pids).
nodes_dir() {
	echo "$TOPO_TMP/nodes"
}

# nodes_up N [routed|flat] [MTU]: N nodes (1..9) and the wire between them.
nodes_up() {
	[ -n "$TOPO_TMP" ] || fail "topo_init not called"
	NODES_N=$1
	NODES_LAYOUT=${2:-${NODES_LAYOUT:-routed}}
	NODES_MTU=${3:-${NODES_MTU:-1500}}
	case $NODES_N in [1-9]) ;; *) fail "nodes_up: 1..9 nodes, not $1" ;; esac
	case $NODES_LAYOUT in routed|flat) ;;
	*) fail "nodes_up: layout routed or flat, not $NODES_LAYOUT" ;; esac
	export NODES_N NODES_LAYOUT NODES_MTU
	mkdir -p "$(nodes_dir)"
	topo_ns wire
	# The wire forwards frames and nothing else: no IPv6 autoconfiguration
	# chatter of its own in captures and counters.
	topo_exec wire sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	topo_ip wire link add br0 mtu "$NODES_MTU" type bridge ||
		fail "bridge in wire"
	topo_ip wire link set br0 up
	_nu_k=1
	while [ "$_nu_k" -le "$NODES_N" ]; do
		node_make "$_nu_k"
		_nu_k=$((_nu_k + 1))
	done
	[ "$NODES_LAYOUT" = routed ] && nodes_routes
	[ "${NODES_NO_ENGINE:-0}" = 1 ] && return 0
	_nu_k=1
	while [ "$_nu_k" -le "$NODES_N" ]; do
		node_engine_start "$_nu_k" ${NODES_ENGINE_ARGS:-}
		_nu_k=$((_nu_k + 1))
	done
}

# node_mtu NS IF: IF in NS gets the nodes' MTU.
node_mtu() {
	topo_ip "$1" link set "$2" mtu "$NODES_MTU" ||
		fail "mtu $NODES_MTU on $1/$2"
}

# node_make K: namespace nK, its bridge, its uplink into the wire.
node_make() {
	_nm=n$1
	topo_ns "$_nm"
	topo_exec "$_nm" sysctl -qw net.ipv4.ip_forward=1
	topo_ip "$_nm" link add br0 mtu "$NODES_MTU" type bridge ||
		fail "bridge in $_nm"
	topo_ip "$_nm" link set br0 up
	topo_veth "$_nm" wire - - uplink "$_nm"
	node_mtu "$_nm" uplink
	node_mtu wire "$_nm"
	topo_ip wire link set "$_nm" master br0 || fail "enslave wire/$_nm"
	if [ "$NODES_LAYOUT" = routed ]; then
		topo_addr "$_nm" br0 "10.80.$1.1/24"
		topo_addr "$_nm" uplink "10.79.0.$1/24"
	else
		topo_ip "$_nm" link set uplink master br0 ||
			fail "enslave $_nm/uplink"
	fi
}

# nodes_routes: in each node, a route to every other node's pod subnet.
nodes_routes() {
	_nr_k=1
	while [ "$_nr_k" -le "$NODES_N" ]; do
		_nr_j=1
		while [ "$_nr_j" -le "$NODES_N" ]; do
			[ "$_nr_j" = "$_nr_k" ] ||
				topo_ip "n$_nr_k" route add "10.80.$_nr_j.0/24" \
					via "10.79.0.$_nr_j" ||
				fail "route to node $_nr_j in n$_nr_k"
			_nr_j=$((_nr_j + 1))
		done
		_nr_k=$((_nr_k + 1))
	done
}

# node_engine_sock K / node_engine_admin K / node_engine_log K: node K's
# engine's pod socket, admin socket and log.
node_engine_sock() {
	echo "$TOPO_TMP/n$1/engine.sock"
}

node_engine_admin() {
	echo "$TOPO_TMP/n$1-admin/admin.sock"
}

node_engine_log() {
	echo "$TOPO_TMP/n$1.engine.log"
}

node_engine_pid() {
	cat "$(nodes_dir)/engine.$1.pid" 2>/dev/null
}

# node_pvctl K ARGS...: pvctl on node K's engine's admin socket.
node_pvctl() {
	_np_k=$1
	shift
	"$PV_BUILD/bin/pvctl" --admin-socket "$(node_engine_admin "$_np_k")" "$@"
}

# node_engine_start K [ARGS...]: podverbsd inside node K's namespace, in
# the foreground (a child of the test shell, stopped on cleanup), with
# its sockets in $TOPO_TMP/nK and $TOPO_TMP/nK-admin; waits until it
# answers.  Skips when podverbsd is not built.
node_engine_start() {
	_ne_k=$1
	shift
	[ -x "$PV_BUILD/bin/podverbsd" ] || skip "podverbsd not built"
	[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
	mkdir -p "$TOPO_TMP/n$_ne_k"
	# ip netns exec (and setpriv) exec podverbsd: $! is the engine itself.
	ip netns exec "$(topo_name "n$_ne_k")" $NODES_PDEATH \
		"$PV_BUILD/bin/podverbsd" \
		--socket "$(node_engine_sock "$_ne_k")" \
		--admin-socket "$(node_engine_admin "$_ne_k")" \
		--foreground "$@" >"$(node_engine_log "$_ne_k")" 2>&1 &
	echo $! >"$(nodes_dir)/engine.$_ne_k.pid"
	topo_track_pid $!
	wait_until 5 node_pvctl "$_ne_k" stats || {
		tail -20 "$(node_engine_log "$_ne_k")" >&2
		fail "node $_ne_k's engine did not answer within 5 s"
	}
}

# node_engine_stop K: stops node K's engine (SIGTERM, then SIGKILL).
node_engine_stop() {
	stop_pid "$(node_engine_pid "$1")"
	rm -f "$(nodes_dir)/engine.$1.pid"
}

# node_pod_add K POD [IP|-] [DEV ARGS...]: pod POD on node K: namespace,
# eth0 on the node's br0 (IP: the layout's next address unless given, as
# ADDR/PREFIX), and, unless the node has no engine, soft device
# $NODES_DEV on eth0 from node K's engine (DEV ARGS go to `pvctl dev add`,
# e.g. --pkey 0x8001).
node_pod_add() {
	_pa_k=$1 _pa_pod=$2 _pa_ip=${3:--}
	[ $# -ge 3 ] && shift 3 || shift $#
	topo_has_ns "n$_pa_k" || fail "node_pod_add: no node $_pa_k"
	_pa_cnt=$(($(cat "$(nodes_dir)/count.$_pa_k" 2>/dev/null || echo 0) + 1))
	echo "$_pa_cnt" >"$(nodes_dir)/count.$_pa_k"
	if [ "$_pa_ip" = - ]; then
		case $NODES_LAYOUT in
		routed) _pa_ip=10.80.$_pa_k.$((9 + _pa_cnt))/24 ;;
		flat) _pa_ip=10.81.$_pa_k.$((9 + _pa_cnt))/16 ;;
		esac
	fi
	topo_ns "$_pa_pod"
	_pa_if=$(printf 'v-%s' "$_pa_pod" | cut -c1-15)
	topo_veth "n$_pa_k" "$_pa_pod" - "$_pa_ip" "$_pa_if" eth0
	node_mtu "n$_pa_k" "$_pa_if"
	node_mtu "$_pa_pod" eth0
	topo_ip "n$_pa_k" link set "$_pa_if" master br0 ||
		fail "enslave $_pa_if"
	[ "$NODES_LAYOUT" = routed ] &&
		{ topo_ip "$_pa_pod" route add default via "10.80.$_pa_k.1" ||
			fail "default route in $_pa_pod"; }
	echo "$_pa_k ${_pa_ip%/*}" >"$(nodes_dir)/pod.$_pa_pod"
	[ -n "$(node_engine_pid "$_pa_k")" ] || return 0
	node_pvctl "$_pa_k" dev add --netns "$(topo_path "$_pa_pod")" \
		--ifname eth0 --name "$NODES_DEV" "$@" >/dev/null ||
		fail "dev add in $_pa_pod (node $_pa_k)"
}

# node_of POD / node_pod_ip POD: the pod's node number and IPv4 address.
node_of() {
	cut -d' ' -f1 "$(nodes_dir)/pod.$1" 2>/dev/null
}

node_pod_ip() {
	cut -d' ' -f2 "$(nodes_dir)/pod.$1" 2>/dev/null
}

# in_node_pod POD CMD...: CMD in POD with our library and its node's engine.
in_node_pod() {
	_ip_pod=$1
	shift
	topo_exec "$_ip_pod" env \
		PODVERBS_ENGINE="$(node_engine_sock "$(node_of "$_ip_pod")")" \
		LD_LIBRARY_PATH="$PV_LIB" "$@"
}

# wire_offload on|off: GSO/TSO and checksum offload of every node's
# uplink.  Off, each frame on the wire is a real one (<= MTU, checksum
# filled in) as on a physical link: what the impairer needs.
wire_offload() {
	need_cmd ethtool
	_wo_k=1
	while [ "$_wo_k" -le "$NODES_N" ]; do
		topo_exec "n$_wo_k" ethtool -K uplink tso "$1" gso "$1" \
			tx "$1" >/dev/null 2>&1 ||
			fail "ethtool -K uplink in n$_wo_k"
		_wo_k=$((_wo_k + 1))
	done
}

wire_impair_pid() {
	cat "$(nodes_dir)/impair.pid" 2>/dev/null
}

# wire_impair off | [KEY=VALUE...]: the link between nodes 1 and 2 goes
# through pv-impair (tests/tools/pv-impair; `pv-impair --help` for the
# keys: loss, reorder, hold, holdus, dup, corrupt, delay, ab./ba.
# prefixes); no arguments: forwarding unimpaired.  WIRE_SEED (default 1)
# seeds it.  Replaces a running impairer; "off" goes back to the bridge.
# Needs exactly 2 nodes.
wire_impair() {
	[ "$NODES_N" = 2 ] || fail "wire_impair: needs 2 nodes, have $NODES_N"
	_wi_bin=$PV_BUILD/tests/bin/pv-impair
	[ -x "$_wi_bin" ] || skip "pv-impair not built"
	_wi_pid=$(wire_impair_pid)
	if [ -n "$_wi_pid" ]; then
		stop_pid "$_wi_pid"
		rm -f "$(nodes_dir)/impair.pid"
	fi
	if [ "${1:-}" = off ]; then
		topo_ip wire link set n1 master br0
		topo_ip wire link set n2 master br0
		return 0
	fi
	wire_offload off
	topo_ip wire link set n1 nomaster
	topo_ip wire link set n2 nomaster
	WIRE_STATS=$(nodes_dir)/impair.stats
	rm -f "$WIRE_STATS"
	# Not through topo_exec: a backgrounded function is a subshell, and
	# $! must be the program itself (signalled by pid).
	# Niced up: a wire does not queue behind the tests' own programs for
	# the CPU (WIRE_NICE, default -10).
	ip netns exec "$(topo_name wire)" $NODES_PDEATH \
		nice -n "${WIRE_NICE:--10}" \
		"$_wi_bin" --seed "${WIRE_SEED:-1}" \
		--stats "$WIRE_STATS" n1 n2 "$@" \
		>"$(nodes_dir)/impair.log" 2>&1 &
	echo $! >"$(nodes_dir)/impair.pid"
	topo_track_pid $!
	wait_until 5 test -s "$WIRE_STATS" || {
		cat "$(nodes_dir)/impair.log" >&2
		fail "pv-impair did not start"
	}
}

# wire_stats [DIR [KEY]]: the impairer's counters now (SIGUSR1): both
# lines, DIR's line (ab: node 1 -> node 2, ba), or one number.
wire_stats() {
	_ws_pid=$(wire_impair_pid)
	[ -n "$_ws_pid" ] || return 1
	rm -f "$WIRE_STATS"
	kill -USR1 "$_ws_pid" || return 1
	wait_until 5 test -s "$WIRE_STATS" || return 1
	if [ -z "${1:-}" ]; then
		cat "$WIRE_STATS"
	elif [ -z "${2:-}" ]; then
		grep "^pv-impair $1 " "$WIRE_STATS"
	else
		sed -n "s/^pv-impair $1 .* $2=\([0-9]*\).*/\1/p" "$WIRE_STATS"
	fi
}

# wire_link up|down: plugs or unplugs node 1's link in the wire.
wire_link() {
	topo_ip wire link set n1 "$1" || fail "wire link $1"
}

# wire_capture start FILE [FILTER] | stop: tcpdump in the wire namespace on
# node 1's link (every frame between node 1 and the rest passes there),
# writing FILE (pcap); start returns once tcpdump listens.
wire_capture() {
	case $1 in
	start)
		need_cmd tcpdump
		rm -f "$(nodes_dir)/tcpdump.log"
		# --immediate-mode: each packet is written as it comes, none
		# waits in libpcap's buffer when tcpdump is stopped; -B: 64 MiB
		# of kernel buffer for a busy machine's bursts; -Z root:
		# no change of user, which would clear the parent-death signal.
		ip netns exec "$(topo_name wire)" $NODES_PDEATH tcpdump \
			-i "${WIRE_CAPTURE_IF:-n1}" --immediate-mode -U -n -s 0 -Z root \
			-B 65536 \
			-w "$2" ${3:+"$3"} >"$(nodes_dir)/tcpdump.log" 2>&1 &
		echo $! >"$(nodes_dir)/tcpdump.pid"
		topo_track_pid $!
		wait_until 5 grep -q 'listening on' "$(nodes_dir)/tcpdump.log" ||
			fail "tcpdump did not start: $(cat "$(nodes_dir)/tcpdump.log")"
		;;
	stop)
		_wc_pid=$(cat "$(nodes_dir)/tcpdump.pid" 2>/dev/null)
		sleep 0.2	# frames still on their way through the wire
		# SIGTERM: tcpdump writes what it holds and exits (SIGINT is
		# ignored by background jobs of a non-interactive shell).
		[ -n "$_wc_pid" ] && kill -TERM "$_wc_pid" 2>/dev/null
		wait_until 5 pid_gone "$_wc_pid"
		stop_pid "$_wc_pid"
		rm -f "$(nodes_dir)/tcpdump.pid"
		# Say so when the capture is not the whole traffic.
		grep -E '^[1-9][0-9]* packets? dropped by kernel' \
			"$(nodes_dir)/tcpdump.log" 2>/dev/null | sed 's/^/tcpdump: /'
		;;
	*) fail "wire_capture start FILE [FILTER] | stop" ;;
	esac
}

# pod_tcp_transfer SRC DST MIB [PORT]: MIB MiB of random bytes over TCP
# from pod SRC to pod DST's address (any pods, any nodes); both sides hash
# what they saw (SHA-256).  Prints "MIB MiB in SECS s: digests match", or
# why not; returns 0 only when the receiver got every byte, unchanged.
# Bounded: 40 s.
pod_tcp_transfer() {
	_tt_port=${4:-$((21000 + $$ % 1000))}
	_tt_ip=$(node_pod_ip "$2")
	[ -n "$_tt_ip" ] || _tt_ip=$2
	topo_exec "$2" timeout 40 /usr/bin/python3 -c '
import hashlib, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
s.settimeout(20)
c, _ = s.accept()
c.settimeout(20)
h, n = hashlib.sha256(), 0
while True:
    d = c.recv(1 << 16)
    if not d:
        break
    h.update(d)
    n += len(d)
print(n, h.hexdigest())' "$_tt_ip" "$_tt_port" >"$TOPO_TMP/tt.recv" 2>&1 &
	_tt_pid=$!
	wait_until 5 tcp_port_listening "$2" "$_tt_port"
	_tt_t0=$(date +%s.%N)
	topo_exec "$1" timeout 40 /usr/bin/python3 -c '
import hashlib, os, socket, sys
n = int(sys.argv[3]) << 20
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
h, left = hashlib.sha256(), n
while left:
    d = os.urandom(min(left, 1 << 16))
    c.sendall(d)
    h.update(d)
    left -= len(d)
c.close()
print(n, h.hexdigest())' "$_tt_ip" "$_tt_port" "$3" >"$TOPO_TMP/tt.send" 2>&1
	wait "$_tt_pid"
	_tt_secs=$(echo "$(date +%s.%N) $_tt_t0" | awk '{ printf "%.2f", $1 - $2 }')
	if [ -s "$TOPO_TMP/tt.send" ] &&
	   cmp -s "$TOPO_TMP/tt.send" "$TOPO_TMP/tt.recv"; then
		echo "$3 MiB in $_tt_secs s: digests match"
		return 0
	fi
	echo "TCP transfer $1 -> $2: sent '$(cat "$TOPO_TMP/tt.send")', received '$(cat "$TOPO_TMP/tt.recv")'"
	return 1
}

# tcp_port_listening NS PORT: something listens on TCP PORT in NS.
tcp_port_listening() {
	[ -n "$(topo_exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ]
}

# pod_reaches SRC DST: a TCP connection from pod SRC to pod DST's
# address is answered (accepted or refused) within 2 s.
pod_reaches() {
	topo_exec "$1" /usr/bin/python3 -c '
import errno, socket, sys
try:
    socket.create_connection((sys.argv[1], 9), timeout=2).close()
except ConnectionRefusedError:
    pass
except OSError:
    sys.exit(1)' "$(node_pod_ip "$2")"
}
