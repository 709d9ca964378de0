#!/bin/sh
# SPDX-License-Identifier: MIT
# netns_run / netns_socket against the kernel: work lands in the target
# namespace, concurrent callers into different namespaces don't mix, no
# thread of the caller stays switched, and sockets keep their namespace.
. "${PV_ROOT:-.}/tests/lib/topo.sh"
PROBE=$PV_BUILD/tests/bin/netns-probe

topo_init
[ -x "$PROBE" ] || skip "netns-probe not built (make)"

topo_ns a
topo_ns b
topo_ns c
topo_veth a b 10.7.0.1/24 10.7.0.2/24 eth0 eth0

id_of() {
	"$PROBE" id "$1"
}
host_id=$(id_of self)
ida=$(id_of "$(topo_path a)")
idb=$(id_of "$(topo_path b)")
idc=$(id_of "$(topo_path c)")
[ "$ida" != "$host_id" ] && [ "$ida" != "$idb" ] && [ "$idb" != "$idc" ] ||
	fail "namespace ids not distinct: $host_id $ida $idb $idc"
# The same namespace reached by another path has the same id.
ip netns exec "$(topo_name c)" sleep 30 &
spid=$!
topo_track_pid "$spid"
wait_until 5 sh -c "[ \"\$(readlink /proc/$spid/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
	fail "sleeper did not enter c"
[ "$(id_of "/proc/$spid/ns/net")" = "$idc" ] || fail "id by pid differs"
echo "ok: namespace ids ($ida $idb $idc)"

# Concurrent callers, each into its own namespace (and one into ours).
out=$("$PROBE" run "$(topo_path a)" "$(topo_path b)" "$(topo_path c)" self \
	"$(topo_path a)") || fail "netns-probe run: $out"
want="ok $ida
ok $idb
ok $idc
ok $host_id
ok $ida"
[ "$out" = "$want" ] || fail "run: got
$out
want
$want"
echo "ok: netns_run confined (5 concurrent callers, all threads back home)"

# The shell's own namespace is untouched.
[ "$(id_of self)" = "$host_id" ] || fail "caller namespace changed"

# Sockets made inside stay inside: 10.7.0.1 exists only in a.
"$PROBE" socket "$(topo_path a)" 10.7.0.1 >/dev/null ||
	fail "socket made in a cannot bind a's address"
"$PROBE" socket "$(topo_path b)" 10.7.0.1 2>/dev/null &&
	fail "socket made in b bound a's address"
"$PROBE" socket self 10.7.0.1 2>/dev/null &&
	fail "host socket bound a's address"
echo "ok: netns_socket keeps its namespace"

# A stale path errors cleanly.
out=$("$PROBE" run "$(topo_path nosuch)" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "run into missing namespace: rc $rc $out"
out=$("$PROBE" run /proc/self/ns/uts 2>&1); rc=$?
[ "$rc" = 1 ] || fail "run into a non-net namespace: rc $rc $out"
echo "ok: errors ($out)"
echo "all ok"
