#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin's seccomp allow-list covers everything it does: every command
# (soft and kernel mode) runs under strace -f with the filter on, and no
# system call after the filter was installed may fail with EPERM.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
need_cmd strace
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
topo_bridge node 10.9.0.1/24 a 10.9.0.2/24
start_engine
STATE=$TMP/state
NSA=$(topo_path a)
CONF=$(cni_conf "$NSA" 10.9.0.2/24)
unset PODVERBS_CNI_NO_SECCOMP

# traced CMD CONF [CNI_NETNS]: runs the plugin under strace; checks it.
traced() {
	printf '%s' "$2" | env CNI_COMMAND="$1" CNI_CONTAINERID=ca \
		CNI_NETNS="${3-$NSA}" CNI_IFNAME=eth0 CNI_PATH=/usr/lib/cni \
		strace -f -qq -o "$TMP/trace.$1" "$PLUGIN" >"$TMP/out.$1"
	RC=$?
	grep -q 'seccomp(SECCOMP_SET_MODE_FILTER.*= 0' "$TMP/trace.$1" ||
		fail "$1: no seccomp filter was installed"
	# After the filter, nothing may be refused by it.
	if sed -n '/seccomp(SECCOMP_SET_MODE_FILTER/,$p' "$TMP/trace.$1" |
		grep 'EPERM'; then
		fail "$1: a system call was refused by the filter (above)"
	fi
	echo "ok: $1 under seccomp (exit $RC)"
}

traced ADD "$CONF"
[ "$RC" = 0 ] || fail "ADD failed: $(cat "$TMP/out.ADD")"
traced CHECK "$CONF"
[ "$RC" = 0 ] || fail "CHECK failed: $(cat "$TMP/out.CHECK")"
traced GC "$(cni_conf "" - ',"cni.dev/valid-attachments":[{"containerID":"ca","ifname":"eth0"}]')"
[ "$RC" = 0 ] || fail "GC failed"
traced STATUS "$(cni_conf "" -)"
[ "$RC" = 0 ] || fail "STATUS failed"
traced DEL "$(cni_conf "$NSA" -)" ""
[ "$RC" = 0 ] || fail "DEL failed"
# Kernel mode talks RDMA netlink; here it may fail for want of RDMA in
# the kernel, but never because of the filter.
traced ADD "$(cni_conf "$NSA" 10.9.0.2/24 ',"mode":"kernel","device":"rxe0"')"
traced STATUS "$(cni_conf "" - ',"mode":"kernel"')"
traced DEL "$(cni_conf "$NSA" - ',"mode":"kernel"')"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo PASS
