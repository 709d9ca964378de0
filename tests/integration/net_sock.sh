#!/bin/sh
# SPDX-License-Identifier: MIT
# A soft device's UDP 4791 socket (providers/soft/engine/eng_net.c): made
# in the pod's netns, bound to its address, owned by the engine; no pod
# socket can share its port (SO_REUSEADDR / SO_REUSEPORT refused); an IPv6
# address gets its own; a port a pod held first leaves the device up,
# same-node verbs working and the failure visible; device delete removes it.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ss
need_cmd python3
HERE=$PV_ROOT/tests/integration/net

topo_init
[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
topo_ns a
topo_ns b
topo_veth a b "$POD_A_IP/24" "$POD_B_IP/24" eth0 eth0
# Pod b squats on its own address's port before its device exists.
topo_exec b python3 "$HERE/net_bind.py" hold "$POD_B_IP" >"$TMP/squat" 2>&1 &
SQUAT=$!
topo_track_pid "$SQUAT"
wait_until 10 grep -q held "$TMP/squat" || fail "squatter did not bind"
start_engine
pod_dev_add a
pod_dev_add b

# (a) bound in pod a's netns, to its address, by the engine.
_ss=$(topo_exec a ss -Huanp "sport = :4791")
echo "pod a: $_ss"
echo "$_ss" | grep -q "$POD_A_IP:4791" || fail "no UDP 4791 on $POD_A_IP in pod a"
echo "$_ss" | grep -q "pid=$ENGINE_PID," || fail "UDP 4791 in pod a is not the engine's"
for _addr in "$POD_A_IP" 0.0.0.0; do
	_r=$(topo_exec a python3 "$HERE/net_bind.py" try "$_addr")
	echo "pod a binds $_addr:4791 with SO_REUSEADDR+SO_REUSEPORT: $_r"
	case $_r in refused*) ;; *) fail "pod a shares the engine's port on $_addr" ;; esac
done

# An IPv6 address: a second socket.
topo_ip a addr add fd00:78::1/64 dev eth0 nodad
wait_until 5 sh -c "ip netns exec $(topo_name a) ss -Huan 'sport = :4791' | grep -q 'fd00:78::1'" ||
	fail "no UDP 4791 on fd00:78::1 after the address came"
echo "pod a (IPv6): $(topo_exec a ss -Huan "sport = :4791" | grep fd00 )"
topo_ip a addr del fd00:78::1/64 dev eth0
wait_until 5 sh -c "! ip netns exec $(topo_name a) ss -Huan 'sport = :4791' | grep -q 'fd00:78::1'" ||
	fail "UDP 4791 on fd00:78::1 stayed after the address went"

# (c) pod b held the port: the device is up, the failure is visible.
_l=$(pvctl dev list)
echo "$_l"
echo "$_l" | grep "$(topo_name b)" | grep -q "bind failed" ||
	fail "dev list does not show pod b's failed bind"
pvctl --json dev list >"$TMP/list.json" && grep -Eq '"wire_ipv4":[[:space:]]*"failed"' "$TMP/list.json" ||
	fail "dev list --json has no wire_ipv4 failed: $(cat "$TMP/list.json")"
grep -q "no UDP 4791 socket" "$ENGINE_LOG" || fail "engine did not log the failed bind"
_st=$(pvctl stats | grep -E 'net_(bind_errors|sockets_live)')
echo "$_st"
echo "$_st" | grep -Eq 'net_bind_errors +[1-9]' || fail "net_bind_errors did not count"
if pair_case rc-with-squatter 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 200 -c" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 200 -c"; then
	case_ok "rc-with-squatter: $(grep usec/iter "$TMP/rc-with-squatter.cli")"
fi

# Device delete removes the socket.
_id=$(pvctl dev list | awk -v ns="$(topo_name a)" '$3 ~ ns { print $1 }')
[ -n "$_id" ] || fail "no id for pod a's device"
pvctl dev del "$_id" >/dev/null || fail "dev del $_id"
_ss=$(topo_exec a ss -Huan "sport = :4791")
[ -z "$_ss" ] || fail "UDP 4791 still bound in pod a after dev del: $_ss"
echo "pod a after dev del: no UDP 4791 socket"
echo "engine: $(grep -c "UDP 4791 bound" "$ENGINE_LOG") binds; $(grep "UDP 4791 bound" "$ENGINE_LOG" | sed "s/.*namespace in //" | tr "\n" " ")"
pid_alive "$ENGINE_PID" || fail "engine died"
pairs_done
