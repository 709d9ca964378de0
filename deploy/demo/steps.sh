# SPDX-License-Identifier: MIT
# The demo's steps (POSIX sh; sourced by deploy/demo.sh after
# tests/lib/nodes.sh, whose pods, engines and wire capture they use).

step() { printf '\n== %s\n' "$*"; }

# DEMO_FAILED: the steps that must work and did not (the demo's status).
DEMO_FAILED=""
must() { DEMO_FAILED="$DEMO_FAILED $1"; }

# show_node K: node K's engine, its devices, and its side of the wire
# (its UDP 4791 sockets and what went through them).
show_node() {
	echo "node $1: podverbsd pid $(node_engine_pid "$1") in netns $(topo_name "n$1"), log $(node_engine_log "$1")"
	node_pvctl "$1" dev list
	# The wire state of each device (its UDP 4791 sockets), from --json.
	node_pvctl "$1" --json dev list | /usr/bin/python3 -c '
import json, sys
for d in json.load(sys.stdin):
    print("wire: %s in %s: UDP 4791 socket IPv4 %s, IPv6 %s" % (d.get("name"),
          str(d.get("netns", "")).rsplit("/", 1)[-1], d.get("wire_ipv4", "-"),
          d.get("wire_ipv6", "-")))' 2>/dev/null
	node_pvctl "$1" stats | awk '
		/^net_(sockets_live|tx_pkts|rx_pkts|rx_unclaimed|tx_errors) / { w = w " " $1 "=" $2 }
		END { print "wire (UDP 4791):" w }'
}

# show_pod POD: Debian's ibv_devices and ibv_devinfo inside POD.
show_pod() {
	echo "-- in pod $1 (node $(node_of "$1"), $(node_pod_ip "$1")):"
	in_node_pod "$1" ibv_devices
	in_node_pod "$1" ibv_devinfo -v | grep -E 'hca_id|state|active_mtu|link_layer|GID\['
}

# first_error FILE...: the first line that says why a tool failed (its
# tables and banners left out), else its last line.
first_error() {
	_fe=$(grep -hiE 'error|fail|couldn|unable|exceeded|not supported|invalid|timed out' "$@" 2>/dev/null |
		sed 's/^ *//' | head -1)
	[ -n "$_fe" ] || _fe=$(cat "$@" 2>/dev/null | grep -v '^ *$' | tail -1)
	echo "${_fe:-no output}"
}

# pair TAG SECS SERVER_POD CLIENT_POD TOOL ARGS...: TOOL ARGS in
# SERVER_POD, then in CLIENT_POD with the server pod's address appended,
# both bounded by SECS; outputs in $TMP/TAG.srv and $TMP/TAG.cli.
# Returns 0 when both sides exited 0.  PAIR_PORT: the TCP port the server
# listens on before the client starts (default 18515).
pair() {
	_p_tag=$1 _p_secs=$2 _p_srv=$3 _p_cli=$4
	shift 4
	# Not through in_node_pod: $! must be the server's timeout itself (a
	# backgrounded function is a subshell), so that it can be stopped.
	ip netns exec "$(topo_name "$_p_srv")" env LD_LIBRARY_PATH="$PV_LIB" \
		PODVERBS_ENGINE="$(node_engine_sock "$(node_of "$_p_srv")")" \
		timeout "$_p_secs" "$@" >"$TMP/$_p_tag.srv" 2>&1 &
	_p_pid=$!
	wait_until 10 tcp_port_listening "$_p_srv" "${PAIR_PORT:-18515}"
	in_node_pod "$_p_cli" timeout "$_p_secs" "$@" "$(node_pod_ip "$_p_srv")" \
		>"$TMP/$_p_tag.cli" 2>&1
	_p_rc=$?
	# A client that failed leaves its server waiting for it: stopped now
	# rather than at its timeout.
	[ "$_p_rc" = 0 ] || { sleep 1; stop_pid "$_p_pid"; }
	wait "$_p_pid"
	_p_src=$?
	[ "$_p_rc" = 124 ] && echo "(client timed out after $_p_secs s)" >>"$TMP/$_p_tag.cli"
	[ "$_p_src" = 124 ] && echo "(server timed out after $_p_secs s)" >>"$TMP/$_p_tag.srv"
	[ "$_p_rc" = 0 ] && [ "$_p_src" = 0 ]
}

# pingpong KIND TAG SERVER CLIENT TOOL ARGS...: a ping-pong step.  Same
# node (KIND same) it must pass; across nodes (KIND cross) its result is
# printed as it is: figures when the engine carries it over the wire,
# "not yet supported by this engine" with the tool's own error otherwise.
pingpong() {
	_pp_kind=$1 _pp_tag=$2 _pp_name=$3
	shift 3
	if pair "$_pp_tag" 20 "$@"; then
		grep -hE 'bytes in|iters in' "$TMP/$_pp_tag.cli"
		return 0
	fi
	if [ "$_pp_kind" = cross ]; then
		echo "cross-node $_pp_name: not yet supported by this engine: $(first_error "$TMP/$_pp_tag.cli" "$TMP/$_pp_tag.srv")"
		return 0
	fi
	echo "$_pp_name did not complete:"
	tail -5 "$TMP/$_pp_tag.cli" "$TMP/$_pp_tag.srv"
	must "$_pp_tag"
	return 1
}

# capture_summary PCAP: what crossed the wire: tshark's count of RoCEv2
# packets by opcode, and tests/lib/roce_check.py's independent check of
# every packet's headers and ICRC.
capture_summary() {
	_cs_n=$(tshark -r "$1" -Y infiniband 2>/dev/null | wc -l)
	echo "tcpdump on the wire (node 1's link): $(tshark -r "$1" 2>/dev/null | wc -l) frames, $_cs_n decoded by tshark as RoCEv2 (infiniband over UDP 4791)"
	if [ "$_cs_n" -gt 0 ]; then
		tshark -r "$1" -Y infiniband -T fields -e infiniband.bth.opcode 2>/dev/null |
			sort | uniq -c | sort -rn | head -8 |
			awk '{ printf "  %6d packets of BTH opcode %3s %s\n", $1, $2, opname($2) }
			# IBA Vol. 1 table 38: the transport in the top 3 bits.
			function opname(o,   t, n, k) {
				split("SEND_FIRST SEND_MIDDLE SEND_LAST SEND_LAST_IMM SEND_ONLY SEND_ONLY_IMM WRITE_FIRST WRITE_MIDDLE WRITE_LAST WRITE_LAST_IMM WRITE_ONLY WRITE_ONLY_IMM READ_REQUEST READ_RESPONSE_FIRST READ_RESPONSE_MIDDLE READ_RESPONSE_LAST READ_RESPONSE_ONLY ACK ATOMIC_ACK CMP_SWAP FETCH_ADD", n, " ")
				t = int(o / 32); k = o % 32
				if (o == 100) return "UD SEND_ONLY"
				if (o == 101) return "UD SEND_ONLY_IMM"
				return (t == 0 ? "RC " : t == 1 ? "UC " : "") ((k + 1) in n ? n[k + 1] : "")
			}'
		/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min 1 "$1" \
			>"$TMP/roce_check.out" 2>&1 || must roce-check
		tail -3 "$TMP/roce_check.out"
	else
		echo "  no RoCEv2 packet crossed the wire: this engine does not carry that traffic between nodes yet"
	fi
}

# cm_listens K: node K's engine's count of rdma_listen calls so far.
cm_listens() {
	node_pvctl "$1" stats | awk '$1 == "cm_listens" { print $2 }'
}

listened_since() {
	[ "$(cm_listens "$1")" -gt "$2" ]
}

# rping_step KIND SERVER CLIENT: Debian's rping (rdmacm-utils) over our
# librdmacm: the server in SERVER, started first (it opens no TCP port:
# the step waits until SERVER's engine counted its rdma_listen), then 10
# verified pings from CLIENT.  KIND same must pass; cross prints what
# happened as it is (see pingpong).
rping_step() {
	_rs_kind=$1 _rs_srv=$2 _rs_cli=$3 _rs_ip=$(node_pod_ip "$2")
	_rs_k=$(node_of "$_rs_srv") _rs_tag=rping-$1
	_rs_l0=$(cm_listens "$_rs_k")
	ip netns exec "$(topo_name "$_rs_srv")" env LD_LIBRARY_PATH="$PV_LIB" \
		PODVERBS_ENGINE="$(node_engine_sock "$_rs_k")" \
		timeout 20 rping -s -a "$_rs_ip" -C 10 -v >"$TMP/$_rs_tag.srv" 2>&1 &
	_rs_pid=$!
	wait_until 10 listened_since "$_rs_k" "${_rs_l0:-0}"
	in_node_pod "$_rs_cli" timeout 20 rping -c -a "$_rs_ip" -C 10 -v \
		>"$TMP/$_rs_tag.cli" 2>&1
	_rs_rc=$?
	[ "$_rs_rc" = 0 ] || { sleep 1; stop_pid "$_rs_pid"; }
	wait "$_rs_pid"
	_rs_src=$?
	_rs_n=$(grep -c 'ping data: rdma-ping-' "$TMP/$_rs_tag.cli")
	if [ "$_rs_rc" = 0 ] && [ "$_rs_src" = 0 ] && [ "$_rs_n" = 10 ]; then
		grep 'ping data: rdma-ping-' "$TMP/$_rs_tag.cli" | sed -n '1p;$p'
		echo "rping: $_rs_n pings, each verified by both sides ($_rs_cli -> $_rs_srv)"
		return 0
	fi
	[ "$_rs_rc" = 124 ] && echo "(client timed out after 20 s)" >>"$TMP/$_rs_tag.cli"
	if [ "$_rs_kind" = cross ]; then
		echo "cross-node CM (rping): not yet supported by this engine: $(first_error "$TMP/$_rs_tag.cli" "$TMP/$_rs_tag.srv")"
		return 0
	fi
	echo "rping did not complete (client rc $_rs_rc, server rc $_rs_src, $_rs_n verified pings):"
	tail -5 "$TMP/$_rs_tag.cli" "$TMP/$_rs_tag.srv"
	must "$_rs_tag"
	return 1
}
