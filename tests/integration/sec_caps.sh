#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 8 (containment): after set-up the engine holds only
# CAP_SYS_ADMIN (setns into pod namespaces), in every thread: effective,
# permitted and bounding sets are exactly that, inheritable and ambient
# empty.  And it still does its job with that: a device in a pod
# namespace, opened by a uid 65534 client there.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
need_cmd setpriv
[ -x "$PV_BUILD/tests/bin/eng-client" ] || skip "eng-client not built"
topo_ns a
topo_ip a link add eth0 type veth peer name eth1 || fail "veth"
topo_ip a link set eth0 up
topo_ip a link set eth1 up
chmod 755 "$TOPO_TMP"	# the uid 65534 client reaches the socket
start_engine
WANT=0000000000200000	# 1 << CAP_SYS_ADMIN (21)
FAILED=""
for st in /proc/"$ENGINE_PID"/task/*/status; do
	tid=${st%/status}
	tid=${tid##*/}
	for f in CapEff CapPrm CapBnd CapInh CapAmb; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' "$st")
		case $f in CapInh|CapAmb) want=0000000000000000 ;; *) want=$WANT ;; esac
		if [ "$v" != "$want" ]; then
			echo "FAIL: thread $tid $f $v, want $want"
			FAILED="$FAILED $tid/$f"
		fi
	done
	echo "thread $tid ($(cat "/proc/$ENGINE_PID/task/$tid/comm")):" \
		"$(grep -E '^Cap(Eff|Prm|Bnd|Inh|Amb)' "$st" | tr '\t\n' '  ')"
done
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev add \
	--netns "$(topo_path a)" --ifname eth0 --name rdma0 >/dev/null ||
	FAILED="$FAILED dev-add"
topo_exec a setpriv --reuid 65534 --regid 65534 --clear-groups \
	env PODVERBS_ENGINE="$ENGINE_SOCK" "$PV_BUILD/tests/bin/eng-client" \
	open rdma0 || FAILED="$FAILED open"
[ -z "$FAILED" ] || { echo "FAIL:$FAILED"; exit 1; }
echo "device added and opened with only CAP_SYS_ADMIN"
echo PASS
