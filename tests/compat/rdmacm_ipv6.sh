#!/bin/sh
# SPDX-License-Identifier: MIT
# The RDMA CM over IPv6 (issue 11): pods a and b get global IPv6 addresses
# (fd00:78::1, ::2 on their veth same-node; in the cross pass,
# tests/cross.list, fd00:80:1::10 and fd00:80:2::10 on nodes 1 and 2,
# which route them as wire_ud6.sh does) and Debian's unmodified
# rdmacm-utils connect over them: rping -v (data verified), ucmatose with
# several connections, udaddy (SIDR, UD).  The RDMA CM IP header of every
# REQ then carries IPv6 addresses, the GIDs are the addresses themselves,
# and across nodes every CM MAD and data packet is RoCEv2 over IPv6 (the
# capture holds no IPv4 RoCE packet).
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rping
need_cmd ucmatose
need_cmd udaddy
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up
. "$PV_ROOT/tests/compat/rdmacm_common.inc"

if [ "${PV_TOPO:-}" = cross ]; then
	for k in 1 2; do
		topo_exec "n$k" sysctl -qw net.ipv6.conf.all.forwarding=1 ||
			fail "IPv6 forwarding in n$k"
		topo_ip "n$k" addr add "fd00:80:$k::1/64" dev br0 nodad
		topo_ip "n$k" addr add "fd00:79::$k/64" dev uplink nodad
	done
	topo_ip n1 route add fd00:80:2::/64 via fd00:79::2 || fail "route in n1"
	topo_ip n2 route add fd00:80:1::/64 via fd00:79::1 || fail "route in n2"
	A6=fd00:80:1::10 B6=fd00:80:2::10
	topo_ip a addr add "$A6/64" dev eth0 nodad
	topo_ip b addr add "$B6/64" dev eth0 nodad
	topo_ip a route add default via fd00:80:1::1 || fail "route in a"
	topo_ip b route add default via fd00:80:2::1 || fail "route in b"
else
	A6=fd00:78::1 B6=fd00:78::2
	topo_ip a addr add "$A6/64" dev eth0 nodad
	topo_ip b addr add "$B6/64" dev eth0 nodad
fi

# has_gid POD ADDR: POD's device lists ADDR as a GID (the engine saw it).
has_gid() {
	in_pod "$1" ibv_devinfo -v 2>/dev/null | grep -q "GID.*[[:space:]]$2,"
}
wait_until 10 has_gid a "$A6" || fail "pod a's device has no GID $A6"
wait_until 10 has_gid b "$B6" || fail "pod b's device has no GID $B6"

CAP=$TMP/cm6.pcap
capture=no
if [ "${PV_TOPO:-}" = cross ] && command -v tcpdump >/dev/null; then
	wire_capture start "$CAP" 'udp port 4791'
	capture=yes
fi

if cm_case rping6 60 "rping -s -a $B6 -C 200 -v -V" \
	   "rping -c -a $B6 -C 200 -v -V"; then
	n=$(grep -o 'rdma-ping-[0-9]*: ' "$TMP/rping6.cli" | sort -u | wc -l)
	if [ "$n" = 200 ]; then
		case_ok "rping over IPv6 ($A6 -> $B6): 200 pings verified"
	else
		case_fail rping6 "client printed $n verified pings of 200"
	fi
fi

if cm_case ucmatose6 60 "ucmatose -b $B6 -c 4 -C 10" \
	   "ucmatose -s $B6 -c 4 -C 10"; then
	if grep -q 'data transfers complete' "$TMP/ucmatose6.cli" &&
	   grep -q 'data transfers complete' "$TMP/ucmatose6.srv"; then
		case_ok "ucmatose over IPv6: 4 connections, 10 messages each"
	else
		case_fail ucmatose6 "no completion lines"
	fi
fi

if cm_case udaddy6 30 "udaddy -b $B6" "udaddy -s $B6"; then
	if grep -q 'data transfers complete' "$TMP/udaddy6.cli" &&
	   grep -q 'data transfers complete' "$TMP/udaddy6.srv"; then
		case_ok "udaddy over IPv6: SIDR, UD sends both ways"
	else
		case_fail udaddy6 "no completion lines"
	fi
fi

if [ "$capture" = yes ]; then
	wire_capture stop
	n6=$(tcpdump -n -r "$CAP" 'ip6 and udp port 4791' 2>/dev/null | wc -l)
	n4=$(tcpdump -n -r "$CAP" 'ip and udp port 4791' 2>/dev/null | wc -l)
	if [ "$n6" -gt 0 ] && [ "$n4" = 0 ]; then
		case_ok "the wire: $n6 RoCEv2 packets over IPv6, none over IPv4"
	else
		case_fail wire6 "$n6 RoCEv2 packets over IPv6, $n4 over IPv4"
	fi
fi

cm_check_left
pairs_done
