#!/bin/bash
# SPDX-License-Identifier: MIT
# The vm tier's guest agent: runs in the VM, chrooted into the host root,
# as the last thing /init starts.  Usage: guest-agent.sh WORK KROOT.
#
# Control channel (files in the work share, which both sides see at WORK):
#   host writes  WORK/ctl/ID.to  the command's time limit in seconds
#                WORK/ctl/ID.sh  the command (renamed into place last)
#   agent writes WORK/ctl/ID.out its stdout+stderr
#                WORK/ctl/ID.rc  its exit status (renamed into place last;
#                                124 or 137 when the time limit killed it)
#   host writes  WORK/ctl/poweroff   the agent exits and /init powers off
# Commands run concurrently (a server in the VM while a client runs on the
# host), each under bash with the prelude below.
WORK=$1 KROOT=$2
C=$WORK/ctl
. "$WORK/vm.env" # VM_IP VM_PREFIX VM_GW VM_MTU
exec >"$WORK/agent.log" 2>&1
up() { cut -d' ' -f1 /proc/uptime; }
echo "agent: $(uname -r), $(nproc) vCPU, uptime $(up)s"
ip link set lo up
IF=$(ls /sys/class/net | grep -v '^lo$' | head -1)
ip link set "$IF" name eth0 2>/dev/null && IF=eth0
ip link set "$IF" mtu "${VM_MTU:-1500}" up
ip addr add "$VM_IP/$VM_PREFIX" dev "$IF"
ip route add default via "$VM_GW"
for _ in $(seq 50); do
	[ "$(cat /sys/class/net/$IF/operstate)" = up ] && break
	sleep 0.1
done
# What every command sees: Debian's module tree for modprobe, a sane PATH.
cat >"$C/prelude" <<EOP
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C
export VM_KROOT=$KROOT VM_IF=$IF VM_IP=$VM_IP VM_WORK=$WORK
modprobe() { /sbin/modprobe -d "\$VM_KROOT" "\$@"; }
cd "\$VM_WORK"
EOP
echo "agent: ready at uptime $(up)s"
: >"$C/ready"
# Ids are the host's (unique per host process); each runs once.
declare -A started
shopt -s nullglob
while [ ! -e "$C/poweroff" ]; do
	for f in "$C"/*.sh; do
		id=${f##*/}
		id=${id%.sh}
		[ -n "${started[$id]}" ] && continue
		started[$id]=1
		to=$(<"$C/$id.to")
		case $to in '' | *[!0-9]*) to=60 ;; esac
		(
			timeout -k 5 "$to" bash -c '. "$1"; . "$2"' sh \
				"$C/prelude" "$f" >"$C/$id.out" 2>&1 </dev/null
			echo $? >"$C/$id.rc.tmp"
			mv "$C/$id.rc.tmp" "$C/$id.rc"
		) &
	done
	sleep 0.1
done
echo "agent: poweroff requested at uptime $(up)s"
sync
