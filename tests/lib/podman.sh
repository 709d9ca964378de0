# SPDX-License-Identifier: MIT
# podman (CNI backend) driving our CNI plugin, for tests/integration/
# podman_*.sh (POSIX sh; sourced after topo.sh and cni.sh):
#
#   podman_up 'EXTRA-PODVERBS-KEYS'   # node namespace, engine, network $NET
#                                     # (bridge + host-local, chained
#                                     # podverbs with the extra keys), a
#                                     # network ${NET}bad whose engine is
#                                     # missing, private podman config, an
#                                     # image; cleanup trap set
#   run_pod NAME NETWORK              # a container sleeping 300 s
#   pod_exec NAME CMD...              # CMD in it (our libibverbs, engine)
#   pod_ip NAME / pod_netns NAME      # its IP on $NET / its netns path
#
# Podman, its bridge and the engine all run inside a throw-away "node"
# namespace (nsenter --net, so mounts such as podman's /run/netns/* are
# seen by everyone), never in the host's.  Cleanup (on EXIT, also after a
# failure): containers and the image removed through podman, podman's
# storage deleted, the engine stopped, the node namespace (with the bridge)
# deleted by topo_cleanup.

podman_need() {
	need_cmd podman runc conmon nsenter
	[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] ||
		skip "needs containernetworking-plugins (bridge, host-local)"
	[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
	[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs not built"
	[ -x "$PV_BUILD/bin/podverbsd" ] || skip "podverbsd not built"
}

# node CMD...: CMD in the node namespace (network only).
node() {
	nsenter --net="$NODE" "$@"
}

podman_conflist() {	# NAME ENGINE-SOCKET EXTRA-PODVERBS-KEYS
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

podman_start_engine() {
	ENGINE_SOCK=$TMP/eng/engine.sock
	ENGINE_LOG=$TMP/engine.log
	# Not through node(): a backgrounded function is a subshell, and $!
	# must be the engine itself so cleanup can stop it.
	nsenter --net="$NODE" "$PV_BUILD/bin/podverbsd" --socket "$ENGINE_SOCK" \
		--foreground >"$ENGINE_LOG" 2>&1 &
	ENGINE_PID=$!
	topo_track_pid "$ENGINE_PID"
	wait_until 5 test -S "$ENGINE_SOCK" || fail "engine did not start"
	export PODVERBS_ENGINE=$ENGINE_SOCK
	PVCTL_PREFIX="nsenter --net=$NODE"
}

podman_write_conf() {
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
}

# An image whose /usr is the host's (merged-/usr Debian): Debian's tools
# and their libraries come from the host, our libibverbs from /pvlib.
podman_image() {
	IMAGE=pvt$$-img
	( cd "$TMP/rootfs" && mkdir -p usr etc proc sys dev tmp run/podverbs pvlib &&
	  ln -s usr/bin bin && ln -s usr/lib lib && ln -s usr/sbin sbin &&
	  { [ ! -d /usr/lib64 ] || ln -s usr/lib64 lib64; } )
	tar -C "$TMP/rootfs" -c . | node $PODMAN import -q - "$IMAGE" >/dev/null ||
		fail "podman import"
}

PODS=""

podman_cleanup() {
	[ -n "$PODMAN" ] || return 0
	# shellcheck disable=SC2086
	[ -z "$PODS" ] || node $PODMAN rm -f -t 0 $PODS >/dev/null 2>&1
	node $PODMAN rmi -f "$IMAGE" >/dev/null 2>&1
	rm -rf "$TMP/storage" 2>/dev/null
	PODMAN=
}

podman_up() {
	podman_need
	topo_ns node
	NODE=$(topo_path node)
	STATE=$TMP/state
	NET=pvt$$
	SUBNET=10.89.$(( $$ % 200 + 20 ))
	mkdir -p "$TMP/plugins" "$TMP/netconf" "$TMP/eng" "$TMP/rootfs"
	ln -s "$PLUGIN" "$TMP/plugins/podverbs"
	podman_start_engine
	podman_conflist "$NET" "$ENGINE_SOCK" "$1" >"$TMP/netconf/$NET.conflist"
	# No engine behind this socket: ADD fails.
	podman_conflist "${NET}bad" "$TMP/no-engine.sock" \
		>"$TMP/netconf/${NET}bad.conflist"
	podman_write_conf
	trap 'podman_cleanup; topo_cleanup' EXIT
	podman_image
}

run_pod() {	# NAME NETWORK
	PODS="$PODS $1"
	node $PODMAN run -d --name "$1" --network "$2" \
		-v /usr:/usr:ro -v "$PV_BUILD/lib:/pvlib:ro" \
		-v "$TMP/eng:/run/podverbs" \
		-e LD_LIBRARY_PATH=/pvlib -e PODVERBS_ENGINE=/run/podverbs/engine.sock \
		"$IMAGE" /usr/bin/sleep 300
}

pod_exec() {	# NAME CMD...
	_pe_name=$1
	shift
	node $PODMAN exec "$_pe_name" "$@"
}

pod_ip() {
	node $PODMAN inspect -f "{{(index .NetworkSettings.Networks \"$NET\").IPAddress}}" "$1"
}

pod_netns() {
	node $PODMAN inspect -f '{{.NetworkSettings.SandboxKey}}' "$1"
}
