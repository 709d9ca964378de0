#!/bin/sh
# SPDX-License-Identifier: MIT
# netns watch sockets against the kernel: an event for address add/delete,
# link down and interface deletion in the watched namespace, none for
# changes in another namespace.
. "${PV_ROOT:-.}/tests/lib/topo.sh"
PROBE=$PV_BUILD/tests/bin/netns-probe

topo_init
[ -x "$PROBE" ] || skip "netns-probe not built (make)"

# watch_expect NS WANT(changed|timeout) TIMEOUT_MS WHAT CMD...: starts a
# watcher on NS, runs CMD once it is subscribed, checks its verdict.
watch_expect() {
	_ns=$1 _want=$2 _ms=$3 _what=$4
	shift 4
	_out=$TOPO_TMP/watch.out
	: >"$_out"
	"$PROBE" watch "$(topo_path "$_ns")" "$_ms" >"$_out" 2>&1 &
	_wpid=$!
	topo_track_pid "$_wpid"
	wait_until 5 grep -q '^ready$' "$_out" || fail "watcher not ready"
	"$@" || fail "$_what: command failed"
	wait "$_wpid"
	_rc=$?
	_got=$(sed -n '2p' "$_out")
	[ "$_got" = "$_want" ] || {
		cat "$_out"
		fail "$_what: got '$_got' (rc $_rc), want '$_want'"
	}
	case $_want in
	changed) [ "$_rc" = 0 ] || fail "$_what: rc $_rc" ;;
	timeout) [ "$_rc" = 2 ] || fail "$_what: rc $_rc" ;;
	esac
	echo "ok: $_what -> $_want"
}

topo_ns a
topo_ns b
topo_ns quiet
topo_veth a b 10.8.0.1/24 10.8.0.2/24 eth0 eth0
topo_wait_dad a
topo_wait_dad b

watch_expect a changed 5000 "IPv4 address added" \
	topo_ip a addr add 10.8.0.9/24 dev eth0
watch_expect a changed 5000 "IPv4 address deleted" \
	topo_ip a addr del 10.8.0.9/24 dev eth0
watch_expect a changed 5000 "IPv6 address added" \
	topo_ip a addr add fd00:8::1/64 dev eth0 nodad
watch_expect a changed 5000 "link down" topo_ip a link set eth0 down
watch_expect a changed 5000 "link up" topo_ip a link set eth0 up
watch_expect a changed 5000 "peer down (carrier lost)" \
	topo_ip b link set eth0 down
watch_expect a changed 5000 "MTU change" topo_ip a link set eth0 mtu 9000
# Another namespace's changes are not seen.
watch_expect quiet timeout 700 "change in another namespace" \
	topo_ip a addr add 10.8.0.10/24 dev eth0
watch_expect a changed 5000 "interface deleted" topo_ip a link del eth0
# The watch socket keeps its namespace after `ip netns del` (the fd pins
# it); an interface change there is still seen and nothing crashes.
topo_ns d
topo_veth d a - - x0 x1
_out=$TOPO_TMP/watch.out
"$PROBE" watch "$(topo_path d)" 5000 >"$_out" 2>&1 &
wpid=$!
topo_track_pid "$wpid"
wait_until 5 grep -q '^ready$' "$_out" || fail "watcher not ready"
ip netns del "$(topo_name d)"
topo_ip a link del x1
wait "$wpid"
rc=$?
[ "$rc" = 0 ] && grep -q '^changed$' "$_out" ||
	fail "watch on deleted namespace: rc $rc $(cat "$_out")"
echo "ok: watch survives ip netns del"
# Overrun: far more notifications than a tiny buffer holds; the drain
# reports "changed" (ENOBUFS is a change, not an error).
fifo=$TOPO_TMP/overrun.in
mkfifo "$fifo"
"$PROBE" overrun "$(topo_path quiet)" <"$fifo" >"$TOPO_TMP/overrun.out" 2>&1 &
opid=$!
topo_track_pid "$opid"
exec 3>"$fifo"
wait_until 5 grep -q '^ready$' "$TOPO_TMP/overrun.out" ||
	fail "overrun watcher not ready"
i=1
while [ $i -le 100 ]; do
	echo "addr add 10.55.$i.1/24 dev lo"
	i=$((i + 1))
done | topo_ip quiet -batch - || fail "batch of address adds"
echo go >&3
exec 3>&-
wait "$opid"
rc=$?
[ "$rc" = 0 ] && [ "$(sed -n 2p "$TOPO_TMP/overrun.out")" = changed ] &&
	[ "$(sed -n 3p "$TOPO_TMP/overrun.out")" = "again 0" ] ||
	fail "overrun: rc $rc $(cat "$TOPO_TMP/overrun.out")"
echo "ok: overrun reported as a change"
echo "all ok"
