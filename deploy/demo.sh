#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job: two simulated nodes, each a network namespace with its own
# podverbsd engine and two pods (a1, a2 on node 1; b1, b2 on node 2), a
# "wire" namespace between the nodes, Debian's unmodified verbs and CM
# tools in the pods, ping-pongs on one node and across the wire, a capture
# of what crossed it, and the benchmark beside TCP (same-node rows, then
# cross-node rows).
# usage: demo.sh BUILD_DIR          (root; cleans up after itself)
#
# The nodes, pods, engines and wire capture are tests/lib/nodes.sh's (over
# tests/lib/topo.sh): the demo uses that library as it is, so a change to
# its functions (nodes_up, node_pod_add, in_node_pod, node_pvctl,
# wire_capture) or to its layout (routed: pods 10.80.K.10.., nodes
# 10.79.0.K) is a change to the demo; nodes.sh says so too.
# DEMO_BENCH=0 leaves the benchmark out; BENCH_* go to bench/run.sh and
# bench/cross.sh (the demo's cross rows default to one run each:
# BENCH_X_REPS=1).

PV_BUILD=$(cd "${1:-build}" && pwd)
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PV_ROOT PV_BUILD
[ "$(id -u)" = 0 ] || { echo "demo: needs root (namespaces)"; exit 1; }
for c in ibv_rc_pingpong ibv_ud_pingpong ibv_devinfo rping tcpdump tshark; do
	command -v "$c" >/dev/null 2>&1 || { echo "demo: needs $c (sh mk/deps.sh)"; exit 1; }
done

. "$PV_ROOT/tests/lib/nodes.sh"
. "$PV_ROOT/deploy/demo/steps.sh"

topo_init
step "two simulated nodes (nodes.sh, routed): n1 pods 10.80.1.0/24, n2 pods 10.80.2.0/24, the link through a wire namespace"
nodes_up 2 routed 1500
for p in "1 a1" "1 a2" "2 b1" "2 b2"; do
	node_pod_add $p
done
echo "pods: a1 $(node_pod_ip a1), a2 $(node_pod_ip a2) on node 1; b1 $(node_pod_ip b1), b2 $(node_pod_ip b2) on node 2"
echo "(each pod: a netns whose eth0 is a veth to its node's bridge, and a soft RDMA device rdma0 from its node's engine, as the CNI plugin makes on ADD)"

for k in 1 2; do
	step "node $k: its engine and its devices"
	show_node "$k"
done

step "inside the pods: Debian's ibv_devices and ibv_devinfo -v, our library"
show_pod a1
show_pod b1

step "the pod network across the wire: TCP from a1 to b1 (8 MiB, digests compared)"
pod_tcp_transfer a1 b1 8 || must tcp-cross

step "same node: ibv_rc_pingpong a1 <-> a2 (RC, data checked, node 1's engine)"
pingpong same rc-same RC a2 a1 ibv_rc_pingpong -d rdma0 -g 0 -n 1000 -c

step "same node: rping a1 <-> a2 (Debian's rdmacm-utils over our librdmacm: RDMA CM connect, 10 pings verified)"
rping_step same a2 a1

# While capturing, the uplinks segment in software (offloads off): a
# veth carries a UDP GSO burst as one super-frame, which a capture would
# show as one packet with the next ones' bytes as its payload (and a
# "bad" ICRC); off, each captured frame is one a physical link carries.
wire_offload off
wire_capture start "$TMP/wire.pcap" 'udp port 4791'
step "across the wire: ibv_rc_pingpong a1 <-> b1 (RC, data checked, each pod on its own node's engine)"
pingpong cross rc-cross RC b1 a1 ibv_rc_pingpong -d rdma0 -g 0 -n 1000 -c
step "across the wire: ibv_ud_pingpong a1 <-> b1 (UD)"
pingpong cross ud-cross UD b1 a1 ibv_ud_pingpong -d rdma0 -g 0 -n 1000 -c
step "across the wire: rping a1 -> b1 (RDMA CM between two engines)"
rping_step cross b1 a1
wire_capture stop
wire_offload on
step "what crossed the wire during the cross-node steps"
capture_summary "$TMP/wire.pcap"

if [ "${DEMO_BENCH:-1}" = 1 ]; then
	step "benchmark: perftest vs TCP, same node (a1 -> a2) then across nodes (a1 -> b1) (bench/run.sh, bench/cross.sh; a few minutes)"
	BENCH_NS_A=$(topo_name a1) BENCH_NS_B=$(topo_name a2) \
		BENCH_IP_B=$(node_pod_ip a2) BENCH_DEV=rdma0 \
		PODVERBS_ENGINE=$(node_engine_sock 1) \
		BENCH_ENGINE_PID=$(node_engine_pid 1) \
		BENCH_X_PODS="a1 b1" BENCH_X_REPS=${BENCH_X_REPS:-1} \
		BENCH_SWEEP_BW_SIZES=${BENCH_SWEEP_BW_SIZES:-64 4096 65536 1048576} \
		BENCH_SWEEP_LAT_SIZES=${BENCH_SWEEP_LAT_SIZES:-2 4096} \
		sh "$PV_ROOT/bench/run.sh" "$PV_BUILD" || must bench
fi

for k in 1 2; do
	step "node $k: engine objects after the tools exited (expect none)"
	node_pvctl "$k" obj list
done
echo
if [ -n "$DEMO_FAILED" ]; then
	echo "demo: FAILED:$DEMO_FAILED"
	exit 1
fi
echo "demo: done"
