#!/bin/sh
# SPDX-License-Identifier: MIT
# A real container runtime drives the CNI plugin: podman 4.3 with its CNI
# backend (private CONTAINERS_CONF, storage and network folders) runs two
# containers on a bridge + host-local network whose conflist chains
# podverbs.  In each container ibv_devinfo (Debian's binary over our
# libibverbs) shows exactly its own device with GID[0] = its IP; after
# `podman rm` the engine has no device and the state folder is empty; a
# failing ADD (podman then calls DEL) leaves nothing.
#
# Podman, its bridge and the engine all run inside a throw-away "node"
# namespace (nsenter --net, so mounts such as podman's /run/netns/* are
# seen by everyone), never in the host's.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
need_cmd podman runc conmon nsenter ibv_devinfo
[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] ||
	skip "needs containernetworking-plugins (bridge, host-local)"
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs not built"
[ -x "$PV_BUILD/bin/podverbsd" ] || skip "podverbsd not built"
topo_ns node
NODE=$(topo_path node)
STATE=$TMP/state
NET=pvt$$
SUBNET=10.89.$(( $$ % 200 + 20 ))
mkdir -p "$TMP/plugins" "$TMP/netconf" "$TMP/eng" "$TMP/rootfs"
ln -s "$PLUGIN" "$TMP/plugins/podverbs"

# node: run a command in the node namespace (network only).
node() {
	nsenter --net="$NODE" "$@"
}

# The engine, inside the node namespace, on a socket the containers get.
ENGINE_SOCK=$TMP/eng/engine.sock
# Not through node(): a backgrounded function is a subshell, and $! must
# be the engine itself so cleanup can stop it.
nsenter --net="$NODE" "$PV_BUILD/bin/podverbsd" --socket "$ENGINE_SOCK" --foreground \
	>"$TMP/engine.log" 2>&1 &
ENGINE_PID=$!
topo_track_pid "$ENGINE_PID"
wait_until 5 test -S "$ENGINE_SOCK" || fail "engine did not start"
export PODVERBS_ENGINE=$ENGINE_SOCK
PVCTL_PREFIX="nsenter --net=$NODE"

conflist() {	# NAME ENGINE-SOCKET EXTRA-PODVERBS-KEYS
	cat <<EOC
{
  "cniVersion": "1.0.0",
  "name": "$1",
  "plugins": [
    { "type": "bridge", "bridge": "pvbr$$", "isGateway": true,
      "ipMasq": false, "hairpinMode": false,
      "ipam": { "type": "host-local", "dataDir": "$TMP/ipam",
                "ranges": [[{ "subnet": "$SUBNET.0/24" }]],
                "routes": [{ "dst": "0.0.0.0/0" }] } },
    { "type": "podverbs", "stateDir": "$STATE",
      "engineSocket": "$2"$3 }
  ]
}
EOC
}
conflist "$NET" "$ENGINE_SOCK" ', "deviceName": "rdma0", "pkey": "0x8001"' \
	>"$TMP/netconf/$NET.conflist"
# No engine behind this socket: ADD fails.
conflist "${NET}bad" "$TMP/no-engine.sock" >"$TMP/netconf/${NET}bad.conflist"

cat >"$TMP/containers.conf" <<EOC
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$TMP/events.log"
[network]
network_backend = "cni"
cni_plugin_dirs = ["/usr/lib/cni", "$TMP/plugins"]
network_config_dir = "$TMP/netconf"
EOC
export CONTAINERS_CONF=$TMP/containers.conf
PODMAN="podman --root $TMP/storage --runroot $TMP/run --storage-driver vfs \
	--tmpdir $TMP/ptmp --network-config-dir $TMP/netconf"

# An image whose /usr is the host's (merged-/usr Debian): ibv_devinfo and
# its libraries come from the host, our libibverbs from /pvlib.
( cd "$TMP/rootfs" && mkdir -p usr etc proc sys dev tmp run/podverbs pvlib &&
  ln -s usr/bin bin && ln -s usr/lib lib && ln -s usr/sbin sbin &&
  { [ ! -d /usr/lib64 ] || ln -s usr/lib64 lib64; } )
tar -C "$TMP/rootfs" -c . | node $PODMAN import - "pvt$$-img" >/dev/null ||
	fail "podman import"

run_pod() {	# NAME NETWORK
	node $PODMAN run -d --name "$1" --network "$2" \
		-v /usr:/usr:ro -v "$PV_BUILD/lib:/pvlib:ro" \
		-v "$TMP/eng:/run/podverbs" \
		-e LD_LIBRARY_PATH=/pvlib -e PODVERBS_ENGINE=/run/podverbs/engine.sock \
		"pvt$$-img" /usr/bin/sleep 300
}

cleanup_podman() {
	node $PODMAN rm -f -t 0 "pvt$$-a" "pvt$$-b" "pvt$$-c" >/dev/null 2>&1
	node $PODMAN rmi -f "pvt$$-img" >/dev/null 2>&1
	rm -rf "$TMP/storage" 2>/dev/null
}
trap 'cleanup_podman; topo_cleanup' EXIT

run_pod "pvt$$-a" "$NET" >/dev/null || fail "podman run a"
run_pod "pvt$$-b" "$NET" >/dev/null || fail "podman run b"

for p in a b; do
	ip=$(node $PODMAN inspect -f "{{(index .NetworkSettings.Networks \"$NET\").IPAddress}}" "pvt$$-$p")
	[ -n "$ip" ] || fail "no IP for $p"
	out=$(node $PODMAN exec "pvt$$-$p" ibv_devinfo -v 2>&1) ||
		fail "ibv_devinfo in $p: $out"
	n=$(echo "$out" | grep -c 'hca_id:')
	[ "$n" = 1 ] || fail "$p sees $n devices: $out"
	echo "$out" | grep -q 'hca_id:[[:space:]]*rdma0' ||
		fail "$p does not see rdma0: $out"
	echo "$out" | grep -q "GID\[  0\]:[[:space:]]*::ffff:$ip," ||
		fail "$p: GID[0] is not ::ffff:$ip: $(echo "$out" | grep GID)"
	echo "ok: container $p sees rdma0 with GID[0] ::ffff:$ip"
done
[ "$(engine_count)" = 2 ] || fail "engine has $(engine_count) devices, not 2"

node $PODMAN rm -f -t 0 "pvt$$-a" "pvt$$-b" >/dev/null || fail "podman rm"
[ "$(engine_count)" = 0 ] || fail "engine has $(engine_count) devices after rm"
[ "$(state_count)" = 0 ] || fail "state left after rm: $(ls "$STATE")"
echo "ok: podman rm leaves no device and no state"

# A failing ADD (engine unreachable): podman reports it and calls DEL.
if run_pod "pvt$$-c" "${NET}bad" >"$TMP/bad.log" 2>&1; then
	fail "podman run on the failing network succeeded"
fi
grep -q "unreachable" "$TMP/bad.log" ||
	fail "podman did not report our message: $(cat "$TMP/bad.log")"
node $PODMAN rm -f -t 0 "pvt$$-c" >/dev/null 2>&1
[ "$(engine_count)" = 0 ] || fail "devices after failing ADD"
[ "$(state_count)" = 0 ] || fail "state left after failing ADD: $(ls "$STATE")"
echo "ok: failing ADD leaves nothing"
echo PASS
