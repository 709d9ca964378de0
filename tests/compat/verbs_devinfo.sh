#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_devices / ibv_devinfo -v over our libibverbs.so.1:
# inside a pod namespace they show exactly that namespace's soft device,
# port ACTIVE, link layer Ethernet, GID[0] = ::ffff:<pod IPv4> (RoCE v2);
# the host namespace sees none; the library loaded is ours.
. "$PV_ROOT/tests/lib/topo.sh"

topo_init
need_cmd ibv_devices
need_cmd ibv_devinfo
LIB=$PV_BUILD/lib
[ -e "$LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"

topo_ns a
topo_ns b
topo_veth a b 10.77.1.1/24 10.77.1.2/24 eth0 eth0
start_engine
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev add \
	--netns "$(topo_path a)" --ifname eth0 --name pvdevA ||
	fail "dev add a"
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev add \
	--netns "$(topo_path b)" --ifname eth0 --name pvdevB ||
	fail "dev add b"

in_a() {
	topo_exec a env PODVERBS_ENGINE="$ENGINE_SOCK" LD_LIBRARY_PATH="$LIB" "$@"
}

# Our library is the one loaded.
in_a env LD_DEBUG=libs ibv_devices >"$TMP/ld.txt" 2>&1
grep -q "calling init: $LIB/libibverbs.so.1" "$TMP/ld.txt" ||
	fail "libibverbs.so.1 from $LIB not loaded: $(grep libibverbs "$TMP/ld.txt" | head -3)"

in_a ibv_devices >"$TMP/devices.txt" 2>&1 || fail "ibv_devices failed"
cat "$TMP/devices.txt"
grep -q pvdevA "$TMP/devices.txt" || fail "pvdevA not listed in a"
grep -q pvdevB "$TMP/devices.txt" && fail "pvdevB (namespace b) visible in a"

# The node GUID is the EUI-64 of eth0's MAC (U/L bit flipped, ff:fe in the
# middle), printed by ibv_devices as 16 hex digits in network order.
mac=$(topo_ip a -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
want=$(python3 -c 'import sys
b = sys.argv[1].split(":")
b[0] = "%02x" % (int(b[0], 16) ^ 2)
print("".join(b[:3] + ["ff", "fe"] + b[3:]))' "$mac")
grep -q "pvdevA[[:space:]]*$want" "$TMP/devices.txt" ||
	fail "node GUID: want $want (from MAC $mac), got: $(grep pvdevA "$TMP/devices.txt")"

# The host's namespace has no soft device.
env PODVERBS_ENGINE="$ENGINE_SOCK" LD_LIBRARY_PATH="$LIB" ibv_devices \
	>"$TMP/host.txt" 2>&1 || { cat "$TMP/host.txt"; fail "ibv_devices on the host"; }
grep -q 'node GUID' "$TMP/host.txt" ||
	{ cat "$TMP/host.txt"; fail "ibv_devices on the host printed no table"; }
grep -q pvdev "$TMP/host.txt" && fail "host namespace sees a pod device"

in_a ibv_devinfo -v >"$TMP/devinfo.txt" 2>&1 || {
	cat "$TMP/devinfo.txt"
	fail "ibv_devinfo -v failed"
}
grep -E 'hca_id|state:|link_layer|GID\[' "$TMP/devinfo.txt"
grep -q 'hca_id:[[:space:]]*pvdevA' "$TMP/devinfo.txt" || fail "hca_id"
grep -q 'state:[[:space:]]*PORT_ACTIVE' "$TMP/devinfo.txt" || fail "port not ACTIVE"
grep -q 'link_layer:[[:space:]]*Ethernet' "$TMP/devinfo.txt" || fail "link layer"
grep -q 'GID\[  0\]:[[:space:]]*::ffff:10.77.1.1, RoCE v2' "$TMP/devinfo.txt" ||
	fail "GID[0] is not ::ffff:10.77.1.1 RoCE v2"
grep -q 'vendor_id:[[:space:]]*0x1de5' "$TMP/devinfo.txt" || fail "vendor_id"
# The verbs features' capability bits (issue 12 item 5): memory windows
# (type 1 and 2B) with max_mw, SRQ resize, XRC.
grep -E 'max_mw|MEM_WINDOW|SRQ_RESIZE|XRC' "$TMP/devinfo.txt"
grep -q 'max_mw:[[:space:]]*[1-9]' "$TMP/devinfo.txt" || fail "max_mw is 0"
for bit in MEM_WINDOW MEM_WINDOW_TYPE_2B SRQ_RESIZE XRC; do
	grep -q "^[[:space:]]*$bit\$" "$TMP/devinfo.txt" ||
		fail "device_cap_flags lack $bit"
done
# On-demand paging (issue 12 item 5): explicit ODP only, the RC
# operations, UD's and UC's SEND/RECV, XRC's SEND and SRQ receive.
odp_caps() { # FIELD: the capability names ibv_devinfo lists under FIELD
	awk -v f="$1:" '$1 == f { on = 1; next }
		on && /^\t\t\t\t\t[A-Z]/ { printf "%s%s", sep, $1; sep = " "; next }
		on { exit }' "$TMP/devinfo.txt"
}
for f in general rc uc ud xrc; do
	echo "${f}_odp_caps: $(odp_caps ${f}_odp_caps)"
done
[ "$(odp_caps general_odp_caps)" = ODP_SUPPORT ] ||
	fail "general_odp_caps: '$(odp_caps general_odp_caps)', want ODP_SUPPORT (no IMPLICIT)"
[ "$(odp_caps rc_odp_caps)" = "SUPPORT_SEND SUPPORT_RECV SUPPORT_WRITE SUPPORT_READ SUPPORT_ATOMIC SUPPORT_SRQ" ] ||
	fail "rc_odp_caps: '$(odp_caps rc_odp_caps)'"
for f in uc ud; do
	[ "$(odp_caps ${f}_odp_caps)" = "SUPPORT_SEND SUPPORT_RECV" ] ||
		fail "${f}_odp_caps: '$(odp_caps ${f}_odp_caps)'"
done
[ "$(odp_caps xrc_odp_caps)" = "SUPPORT_SEND SUPPORT_SRQ" ] ||
	fail "xrc_odp_caps: '$(odp_caps xrc_odp_caps)'"

# Port goes DOWN with the interface.
topo_ip a link set eth0 down
wait_until 5 sh -c "env PODVERBS_ENGINE='$ENGINE_SOCK' LD_LIBRARY_PATH='$LIB' \
	ip netns exec $(topo_name a) ibv_devinfo | grep -q PORT_DOWN" ||
	fail "port did not go DOWN with the interface"

# Without an engine: no devices, a reason under PODVERBS_DEBUG.
out=$(env PODVERBS_ENGINE="$TMP/none.sock" PODVERBS_DEBUG=1 \
	LD_LIBRARY_PATH="$LIB" ibv_devinfo 2>&1)
echo "$out" | grep -q "podverbs: engine socket $TMP/none.sock" ||
	fail "no PODVERBS_DEBUG diagnostic: $out"
stop_engine
echo "PASS"
