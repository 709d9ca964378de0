#!/bin/sh
# SPDX-License-Identifier: MIT
# netns library against the kernel: link info and addresses read from a
# throw-away namespace (compared with `ip`), the GID table after address
# changes, and errors (not crashes) for missing interfaces and namespaces.
. "${PV_ROOT:-.}/tests/lib/topo.sh"
PROBE=$PV_BUILD/tests/bin/netns-probe

topo_init
[ -x "$PROBE" ] || skip "netns-probe not built (make)"
need_cmd /usr/bin/python3

# probe_field NS IF KEY: one "KEY value" line of `netns-probe link`.
probe_field() {
	"$PROBE" link "$(topo_path "$1")" "$2" | sed -n "s/^$3 //p"
}

expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# The GID text of an address, computed independently of the library.
gid_of() {
	/usr/bin/python3 -c '
import ipaddress, sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.IPv6Address("::ffff:" + str(a))
print(a.exploded)' "$1"
}

# Expected table from `ip -o addr` (its order is the kernel's): primary
# global non-secondary IPv4, other IPv4, global IPv6, link-local IPv6;
# tentative and dadfailed left out.
expected_gids() {
	topo_ip "$1" -o addr show dev "$2" | awk '
	/ tentative| dadfailed/ { next }
	$3 == "inet" {
		split($4, p, "/")
		if (!prim && $0 ~ / scope global/ && $0 !~ / secondary/) {
			prim = p[1]; next
		}
		v4[++n4] = p[1]; next
	}
	$3 == "inet6" {
		split($4, p, "/")
		if (p[1] ~ /^fe[89ab]/) ll[++nl] = p[1]; else g6[++n6] = p[1]
	}
	END {
		if (prim) print prim
		for (i = 1; i <= n4; i++) print v4[i]
		for (i = 1; i <= n6; i++) print g6[i]
		for (i = 1; i <= nl; i++) print ll[i]
	}' | while read -r a; do gid_of "$a"; done
}

check_gids() {
	_want=$(expected_gids "$1" "$2")
	_got=$("$PROBE" gids "$(topo_path "$1")" "$2" | cut -d' ' -f2)
	[ "$_got" = "$_want" ] || {
		topo_ip "$1" addr show dev "$2"
		fail "GID table of $1/$2:
got:
$_got
want:
$_want"
	}
	echo "ok: GID table of $1/$2 ($(echo "$_got" | wc -l) entries) $3"
}

topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0

# -- link info matches ip's view
expect_eq "name" "$(probe_field a eth0 name)" eth0
expect_eq "ifindex" "$(probe_field a eth0 ifindex)" \
	"$(topo_ip a -o link show eth0 | cut -d: -f1)"
expect_eq "mac" "$(probe_field a eth0 mac)" \
	"$(topo_ip a -br link show eth0 | awk '{print $3}')"
expect_eq "mtu" "$(probe_field a eth0 mtu)" 1500
topo_ip a link set eth0 mtu 4200
expect_eq "mtu after change" "$(probe_field a eth0 mtu)" 4200
expect_eq "up" "$(probe_field a eth0 up)" 1
expect_eq "running" "$(probe_field a eth0 running)" 1
expect_eq "lo running" "$(probe_field a lo running)" 1
# Peer down: still administratively up here, but no carrier.
topo_ip b link set eth0 down
expect_eq "up, peer down" "$(probe_field a eth0 up)" 1
expect_eq "running, peer down" "$(probe_field a eth0 running)" 0
topo_ip b link set eth0 up
topo_ip a link set eth0 down
expect_eq "up after down" "$(probe_field a eth0 up)" 0
expect_eq "running after down" "$(probe_field a eth0 running)" 0
topo_ip a link set eth0 up
wait_until 5 sh -c "[ \"\$('$PROBE' link '$(topo_path a)' eth0 |
	sed -n 's/^running //p')\" = 1 ]" || fail "eth0 not running again"

# -- addresses: same set and order as ip shows
topo_ip a addr add 10.9.0.5/24 dev eth0            # secondary
topo_ip a addr add 192.168.7.1/24 dev eth0         # second primary
topo_ip a addr add fd00:9::1/64 dev eth0 nodad
topo_wait_dad a
got=$("$PROBE" link "$(topo_path a)" eth0 | sed -n 's/^addr [a-z0-9]* //p' |
	cut -d' ' -f1)
want=$(topo_ip a -o addr show dev eth0 | awk '{print $4}')
[ "$got" = "$want" ] || fail "addresses: got
$got
want
$want"
echo "ok: addresses in kernel order ($(echo "$got" | wc -l))"
"$PROBE" link "$(topo_path a)" eth0 |
	grep -q '^addr inet 10.9.0.5/24 scope 0 flags 0x81$' ||
	fail "secondary flag not reported"
echo "ok: secondary flag"

# -- GID table
expect_eq "GID 0" "$("$PROBE" gids "$(topo_path a)" eth0 | sed -n 's/^0 //p')" \
	0000:0000:0000:0000:0000:ffff:0a09:0001
check_gids a eth0 "(v4 primary, secondary, v6, link-local)"
# A tentative address is not a GID until DAD finishes.
topo_ip a addr add fd00:9::2/64 dev eth0
# DAD takes a second at least: the address is tentative here, and if it
# is not, the check below could not run -- a failure, not a silent pass.
topo_ip a addr show dev eth0 | grep -q 'fd00:9::2/64.*tentative' ||
	fail "fd00:9::2 not tentative right after it was added: cannot check"
"$PROBE" gids "$(topo_path a)" eth0 | grep -q "$(gid_of fd00:9::2)" &&
	fail "tentative address listed as a GID"
echo "ok: tentative address left out"
topo_wait_dad a
"$PROBE" gids "$(topo_path a)" eth0 | grep -q "$(gid_of fd00:9::2)" ||
	fail "address missing after DAD"
check_gids a eth0 "(after DAD)"
# Deleting the primary promotes the next one (kernel promote_secondaries
# may be off: then its secondaries go too); the table follows either way.
topo_ip a addr del 10.9.0.1/24 dev eth0
check_gids a eth0 "(primary deleted)"
topo_ip a addr flush dev eth0
expect_eq "GIDs after flush" \
	"$("$PROBE" gids "$(topo_path a)" eth0 | wc -l)" 0

# -- errors, not crashes
out=$("$PROBE" link "$(topo_path a)" nosuch0 2>&1); rc=$?
expect_eq "missing interface rc" "$rc" 1
case $out in *"No such device"*) echo "ok: ENODEV" ;;
	*) fail "missing interface: $out" ;; esac
out=$("$PROBE" link "$(topo_path gone)" lo 2>&1); rc=$?
expect_eq "missing namespace rc" "$rc" 1
case $out in *"No such file"*) echo "ok: ENOENT" ;;
	*) fail "missing namespace: $out" ;; esac
# A namespace known by a process that has exited.
ip netns exec "$(topo_name b)" sleep 30 &
spid=$!
topo_track_pid "$spid"
wait_until 5 sh -c "[ \"\$(readlink /proc/$spid/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
	fail "sleeper did not enter b"
"$PROBE" link "/proc/$spid/ns/net" eth0 | grep -q '^name eth0$' ||
	fail "link by /proc/PID/ns/net"
echo "ok: read through /proc/PID/ns/net"
stop_pid "$spid"
out=$("$PROBE" link "/proc/$spid/ns/net" eth0 2>&1); rc=$?
expect_eq "exited process rc" "$rc" 1
echo "ok: $out"
# A namespace deleted by name after the interface's peer went with it.
topo_ns c
topo_veth a c - - va vc
ip netns del "$(topo_name c)"
wait_until 5 sh -c "! ip -n '$(topo_name a)' link show va" ||
	fail "veth end did not vanish with its peer namespace"
out=$("$PROBE" link "$(topo_path a)" va 2>&1); rc=$?
expect_eq "interface gone with peer ns rc" "$rc" 1
echo "all ok"
