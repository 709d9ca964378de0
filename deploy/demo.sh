#!/bin/sh
# The main job: an engine, two pods (network namespaces joined by a veth
# pair), each with its soft RDMA device, Debian's unmodified verbs tools in
# each, and a verbs benchmark beside TCP between the same two namespaces.
# usage: demo.sh BUILD_DIR          (root; cleans up after itself)
set -u
BUILD=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: needs root (namespaces)"; exit 1; }

P=pvdemo-$$
A=$P-a B=$P-b
TMP=$(mktemp -d /tmp/pvdemo.XXXXXX)
SOCK=$TMP/engine.sock
ENGINE_PID=""

cleanup() {
	[ -n "$ENGINE_PID" ] && kill "$ENGINE_PID" 2>/dev/null && wait "$ENGINE_PID" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

step() { printf '\n== %s\n' "$*"; }
in_ns() { ns=$1; shift; ip netns exec "$ns" env LD_LIBRARY_PATH="$BUILD/lib" PODVERBS_ENGINE="$SOCK" "$@"; }

step "two pods: $A (10.77.0.1) and $B (10.77.0.2), joined by a veth pair"
ip netns add "$A" && ip netns add "$B" || exit 1
ip link add "$P-va" netns "$A" type veth peer name "$P-vb" netns "$B"
ip -n "$A" link set "$P-va" name eth0
ip -n "$B" link set "$P-vb" name eth0
ip -n "$A" addr add 10.77.0.1/24 dev eth0
ip -n "$B" addr add 10.77.0.2/24 dev eth0
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; ip -n "$ns" link set eth0 up; done

step "engine: $BUILD/bin/podverbsd --socket $SOCK"
"$BUILD/bin/podverbsd" --socket "$SOCK" --foreground 2>"$TMP/engine.log" &
ENGINE_PID=$!
i=0
until "$BUILD/bin/pvctl" --socket "$SOCK" stats >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -gt 50 ] && { echo "engine did not start"; cat "$TMP/engine.log"; exit 1; }
	sleep 0.1
done

step "a soft RDMA device per pod (what the CNI plugin does on ADD)"
"$BUILD/bin/pvctl" --socket "$SOCK" dev add --netns "/var/run/netns/$A" --ifname eth0 --name rdma0 || exit 1
"$BUILD/bin/pvctl" --socket "$SOCK" dev add --netns "/var/run/netns/$B" --ifname eth0 --name rdma0 || exit 1
"$BUILD/bin/pvctl" --socket "$SOCK" dev list

for ns in "$A" "$B"; do
	step "inside $ns: ibv_devices and ibv_devinfo -v (Debian's binaries, our library)"
	in_ns "$ns" ibv_devices
	in_ns "$ns" ibv_devinfo -v | grep -E 'hca_id|vendor_id|state|link_layer|active_mtu|GID\['
done

step "a verbs ping-pong between the pods (ibv_rc_pingpong, RC, data checked)"
in_ns "$B" timeout 30 ibv_rc_pingpong -d rdma0 -g 0 -n 1000 -c >"$TMP/pp-server.log" 2>&1 &
srv=$!
i=0
until [ -n "$(ip netns exec "$B" ss -Hltn 'sport = :18515')" ]; do
	i=$((i + 1)); [ $i -gt 50 ] && break
	kill -0 "$srv" 2>/dev/null || break
	sleep 0.1
done
if in_ns "$A" timeout 30 ibv_rc_pingpong -d rdma0 -g 0 -n 1000 -c 10.77.0.2 >"$TMP/pp-client.log" 2>&1; then
	grep -E 'bytes in|iters in' "$TMP/pp-client.log"
else
	echo "ibv_rc_pingpong did not complete:"
	tail -5 "$TMP/pp-client.log" "$TMP/pp-server.log"
fi
wait "$srv" 2>/dev/null

step "benchmark: perftest vs TCP between the same pods (bench/run.sh; about 1.5 min)"
BENCH_NS_A=$A BENCH_NS_B=$B BENCH_IP_B=10.77.0.2 BENCH_DEV=rdma0 \
	PODVERBS_ENGINE=$SOCK BENCH_ENGINE_PID=$ENGINE_PID \
	sh "$ROOT/bench/run.sh" "$BUILD"

step "engine objects after the tools exited (expect none)"
"$BUILD/bin/pvctl" --socket "$SOCK" obj list
echo
echo "demo: done"
