#!/bin/sh
# SPDX-License-Identifier: MIT
# A real container runtime drives the CNI plugin: podman 4.3 with its CNI
# backend (private CONTAINERS_CONF, storage and network folders) runs two
# containers on a bridge + host-local network whose conflist chains
# podverbs.  In each container ibv_devinfo (Debian's binary over our
# libibverbs) shows exactly its own device with GID[0] = its IP; after
# `podman rm` the engine has no device and the state folder is empty; a
# failing ADD (podman then calls DEL) leaves nothing.
# Setup and cleanup: tests/lib/podman.sh.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"
. "$PV_ROOT/tests/lib/podman.sh"

topo_init
need_cmd ibv_devinfo
podman_up ', "deviceName": "rdma0", "pkey": "0x8001"'

run_pod "pvt$$-a" "$NET" >/dev/null || fail "podman run a"
run_pod "pvt$$-b" "$NET" >/dev/null || fail "podman run b"

for p in a b; do
	ip=$(pod_ip "pvt$$-$p")
	[ -n "$ip" ] || fail "no IP for $p"
	out=$(pod_exec "pvt$$-$p" ibv_devinfo -v 2>&1) ||
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
