#!/bin/sh
# SPDX-License-Identifier: MIT
# podverbsd + pvctl: devices in two throw-away namespaces with the same
# name, GIDs from addresses, GID and port updates from link changes,
# per-namespace visibility, delete by name/namespace/id.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
need_cmd python3
CTL="$PV_BUILD/bin/pvctl"
CLIENT="$PV_BUILD/tests/bin/eng-client"
[ -x "$CTL" ] && [ -x "$CLIENT" ] || skip "pvctl/eng-client not built"

topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
start_engine --log-level debug

# dev_field NAME NETNS_PATH FIELD: a field of the device from --json.
dev_json() {
	"$CTL" --json dev list
}
# devs_are PYEXPR N: N devices d in --json dev list make PYEXPR true.
devs_are() {
	[ "$(dev_json | json_count "$1")" = "$2" ]
}
dev_field() {
	dev_json | /usr/bin/python3 -c '
import json, sys
for d in json.load(sys.stdin):
    if d["name"] == sys.argv[1] and d["netns"] == sys.argv[2]:
        v = d[sys.argv[3]]
        print(" ".join(v) if isinstance(v, list) else v)' "$1" "$2" "$3"
}

A=$(topo_path a) B=$(topo_path b)
"$CTL" dev add --netns "$A" --ifname eth0 --name rdma0 || fail "dev add a"
"$CTL" dev add --netns "$B" --ifname eth0 --name rdma0 --pkey 0x8001 ||
	fail "dev add b (same name, other namespace)"
"$CTL" dev list
devs_are 'd["name"] == "rdma0"' 2 || fail "two devices"

GA=$(dev_field rdma0 "$A" gids | cut -d' ' -f1)
GB=$(dev_field rdma0 "$B" gids | cut -d' ' -f1)
[ "$GA" = 0000:0000:0000:0000:0000:ffff:0a09:0001 ] || fail "GID a: $GA"
[ "$GB" = 0000:0000:0000:0000:0000:ffff:0a09:0002 ] || fail "GID b: $GB"
[ "$(dev_field rdma0 "$B" pkey)" = 32769 ] || fail "pkey b"
[ "$(dev_field rdma0 "$A" port_state)" = ACTIVE ] || fail "port a active"
[ "$(dev_field rdma0 "$A" mtu)" = 1500 ] || fail "mtu a"
[ "$(dev_field rdma0 "$A" active_mtu)" = 1024 ] || fail "active mtu a"

# Same name, same namespace: refused; a missing interface: clear error.
"$CTL" dev add --netns "$A" --ifname lo --name rdma0 2>&1 &&
	fail "duplicate name accepted"
out=$("$CTL" dev add --netns "$A" --ifname eth9 2>&1) && fail "eth9 added"
echo "$out"
echo "$out" | grep -q "interface eth9 not found in $A" || fail "message: $out"
out=$("$CTL" dev add --netns /nonexistent/ns --ifname eth0 2>&1) &&
	fail "bad netns accepted"
echo "$out"

# Address added: the GID table follows (index 0 stays the primary).
topo_ip a addr add 10.9.1.1/24 dev eth0
wait_until 5 sh -c "\"$CTL\" dev list | grep rdma0 | grep -q 0a09:0101" ||
	fail "new address not in GID table"
[ "$(dev_field rdma0 "$A" gids | cut -d' ' -f1)" = "$GA" ] ||
	fail "GID 0 moved"
topo_ip a addr del 10.9.1.1/24 dev eth0
# gid_gone: pvctl answers and no device lists 10.9.1.1's GID.
gid_gone() {
	_l=$("$CTL" dev list) || return 1
	! printf '%s\n' "$_l" | grep -q 0a09:0101
}
wait_until 5 gid_gone ||
	fail "removed address still in GID table"

# MTU and link state follow the interface.
topo_ip a link set eth0 mtu 9000
wait_until 5 devs_are 'd["active_mtu"] == 4096' 1 ||
	fail "MTU 9000 not seen"
# A context in namespace a receives the port events.
ip netns exec "$(topo_name a)" "$CLIENT" hold rdma0 >"$TMP/client.out" 2>&1 &
CPID=$!
topo_track_pid "$CPID"
wait_until 5 grep -q ready "$TMP/client.out" || fail "client not ready"
topo_ip a link set eth0 down
wait_until 5 devs_are 'd["port_state"] == "DOWN"' 1 ||
	fail "port not DOWN after link down"
wait_until 5 grep -q "event 10" "$TMP/client.out" || fail "no PORT_ERR event"
topo_ip a link set eth0 up
wait_until 5 grep -q "event 9" "$TMP/client.out" || fail "no PORT_ACTIVE event"
topo_ip a addr add 10.9.2.1/24 dev eth0
wait_until 5 grep -q "event 18" "$TMP/client.out" || fail "no GID_CHANGE event"
cat "$TMP/client.out"

# Visibility: each namespace sees only its own device; another pod's id
# looks like no device at all.
IDA=$(dev_field rdma0 "$A" id) IDB=$(dev_field rdma0 "$B" id)
[ "$(topo_exec a "$CLIENT" list | cut -d' ' -f1)" = "$IDA" ] || fail "list a"
[ "$(topo_exec b "$CLIENT" list | cut -d' ' -f1)" = "$IDB" ] || fail "list b"
_hl=$("$CLIENT" list) || fail "eng-client list on the host"
[ -z "$_hl" ] || fail "host sees pod devices: $_hl"
out=$(topo_exec b "$CLIENT" open rdma0 "$IDA") && fail "b opened a's device"
echo "$out" | grep -q "No such device" || fail "cross-ns open: $out"
chmod 755 "$TOPO_TMP"	# mktemp made it 0700: let others reach the socket
topo_exec b setpriv --reuid 65534 --regid 65534 --clear-groups \
	"$CLIENT" open rdma0 || fail "non-root pod app cannot open its device"

# The vanished interface: port DOWN, device stays.
topo_ip b link del eth0 2>/dev/null || topo_ip a link del eth0
wait_until 5 devs_are 'd["port_state"] == "DOWN"' 2 ||
	fail "ports not DOWN after veth deleted"
devs_are 'd["name"] == "rdma0"' 2 || fail "devices gone"

# Delete: ambiguous by name; by name + namespace; by id.  The holder of
# a context gets DEVICE_FATAL.
out=$("$CTL" dev del rdma0 2>&1) && fail "ambiguous delete accepted"
echo "$out" | grep -q "several namespaces" || fail "message: $out"
"$CTL" dev del rdma0 --netns "$A" || fail "del by netns"
wait_until 5 grep -q "event 8" "$TMP/client.out" || fail "no DEVICE_FATAL"
"$CTL" dev del "$IDB" || fail "del by id"
"$CTL" dev del "$IDB" 2>/dev/null && fail "double delete accepted"
devs_are True 0 || fail "devices left"
"$CTL" stats | grep -E "devices_|link_events|gid_changes|port_state"
pid_alive "$ENGINE_PID" || fail "engine died"
echo PASS
