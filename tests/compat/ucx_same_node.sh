#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified UCX (ucx-utils) over our libibverbs, two pods on one
# engine, with no work-around: `pvctl dev add` leaves the node UCX requires
# (/dev/infiniband/podverbs, a /dev/null twin), `ucx_info -d` lists rc_verbs
# and ud_verbs on rdma0:1, and ucx_perftest runs am_lat, put_lat, put_bw
# (UCT level, -x TL -d DEV; put_* on rc_verbs only, UD has no UCT put) and
# ucp_put_lat, ucp_put_bw, tag_lat, tag_bw (UCP level, UCX_TLS) over
# rc_verbs and ud_verbs, each beside the same test over UCX's tcp.  ud_verbs
# needs UD receives whose wc.sl says IPv4 (engine: eng_dp_grh_wc_sl).
# Then tag_lat again with each pod seeing its own sysfs (pvctl sysfs,
# tests/lib/pod_sysfs.sh), UCX reading the GIDs' RoCE version from it.
# Prints a table of the figures UCX reports.  With PV_TOPO=cross (listed
# in tests/cross.list) pod a is on node 1 and b on node 2, each with its own
# engine: the same cases run across the RoCEv2 wire.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ucx_info ucx_perftest
pods_up

node=/dev/infiniband/podverbs
[ -c "$node" ] || fail "$node missing after pvctl dev add"
[ "$(stat -c %t:%T "$node")" = 1:3 ] || fail "$node is not 1:3: $(stat -c %t:%T "$node")"

# ucx_info -d, in a pod, no UCX_* settings.
unset UCX_TLS UCX_NET_DEVICES
info=$TMP/ucx_info.out
in_pod a timeout 60 ucx_info -d >"$info" 2>&1 || {
	tail -20 "$info"
	fail "ucx_info -d failed"
}
for tl in rc_verbs ud_verbs; do
	awk -v tl="$tl" '/Transport:/ { t = $3 } /Device:/ && t == tl { print $3 }' \
		"$info" | grep -qx "$POD_DEV:1" || {
		grep -E 'Transport|Device' "$info"
		fail "ucx_info -d lists no $tl on $POD_DEV:1"
	}
	echo "ok   ucx_info -d: $tl on $POD_DEV:1"
done

PAIR_PORT=18515
ITERS=${UCX_TEST_ITERS:-2000}
ROWS=$TMP/rows
: >"$ROWS"

# dp_bytes: bytes the engines' data paths have placed (a responder's
# count, so cross-node both nodes' engines: a put_bw's bytes land on b's).
dp_bytes() {
	_db_n=1
	[ "${PV_TOPO:-}" = cross ] && _db_n="1 2"
	for _db_i in $_db_n; do
		pvctl_node "$_db_i" stats 2>/dev/null
	done | awk '$1 == "dp_bytes" { s += $2 } END { print s + 0 }'
}

# ucx_pair NAME ARGS: pair_case for ucx_perftest, which maps libibverbs
# only once a test starts (so pair_case's check of the server's maps
# cannot run): the server in b, the client in a with ARGS; a verbs case
# must move bytes through the engine.
ucx_pair() {
	_up_before=$(dp_bytes)
	# shellcheck disable=SC2086
	in_pod b ${WRAP_B:-} timeout 60 ucx_perftest -p "$PAIR_PORT" \
		>"$TMP/$1.srv" 2>&1 &
	_up_spid=$!
	if ! wait_until 10 listening_or_gone "$_up_spid" b "$PAIR_PORT" ||
	   ! tcp_listening b "$PAIR_PORT"; then
		stop_pid "$_up_spid"
		case_fail "$1" "server did not listen on $PAIR_PORT"
		return 1
	fi
	# shellcheck disable=SC2086
	in_pod a ${WRAP_A:-} timeout 60 ucx_perftest -p "$PAIR_PORT" $2 \
		"$POD_B_IP" \
		>"$TMP/$1.cli" 2>&1
	_up_crc=$?
	wait "$_up_spid"
	_up_src=$?
	if [ "$_up_crc" != 0 ] || [ "$_up_src" != 0 ]; then
		case_fail "$1" "exit codes: server $_up_src, client $_up_crc (124 = timeout)"
		return 1
	fi
	case $1 in
	*-tcp-*) ;;
	*)	[ "$(dp_bytes)" -gt "${_up_before:-0}" ] || {
			case_fail "$1" "the engine moved no bytes (dp_bytes ${_up_before:-?} -> $(dp_bytes))"
			return 1
		} ;;
	esac
}

# ucx_case TL DEV TEST: one ucx_perftest run.  UCT tests (am_lat, put_*)
# name the transport with -x/-d; UCP ones (tag_*, ucp_put_*) take UCX_TLS
# and UCX_NET_DEVICES on both sides, rc_verbs as UCX's own alias rc_v
# (rc_verbs with ud_verbs for wire-up only: UCP connects RC QPs through an
# auxiliary transport).  UD and tcp have no UCT put: their puts are UCP's.
ucx_case() {
	_uc_tl=$1 _uc_dev=$2 _uc_t=$3
	_uc_name=ucx-$_uc_tl-$_uc_t${CASE_SFX:-}
	case $_uc_t in
	tag_*|ucp_*)
		_uc_tls=$_uc_tl
		[ "$_uc_tl" = rc_verbs ] && _uc_tls=rc_v
		export UCX_TLS="$_uc_tls,self" UCX_NET_DEVICES="$_uc_dev"
		_uc_args="-t $_uc_t -n $ITERS"
		;;
	*)
		unset UCX_TLS UCX_NET_DEVICES
		_uc_args="-x $_uc_tl -d $_uc_dev -t $_uc_t -n $ITERS"
		;;
	esac
	if ucx_pair "$_uc_name" "$_uc_args"; then
		# Final: iters p50 lat-avg lat-overall bw-avg bw-overall rate...
		_uc_final=$(grep '^Final:' "$TMP/$_uc_name.cli" | tail -1)
		if [ -z "$_uc_final" ]; then
			case_fail "$_uc_name" "no Final: line"
		else
			set -- $_uc_final
			printf '%-11s %-8s %10s %10s %10s\n' "$_uc_t" "$_uc_tl" \
				"$3" "$4" "$6" >>"$ROWS"
			case_ok "$_uc_name ($2 iterations)"
		fi
	fi
	unset UCX_TLS UCX_NET_DEVICES
}

for t in am_lat put_lat put_bw ucp_put_lat ucp_put_bw tag_lat tag_bw; do
	for tl in rc_verbs ud_verbs tcp; do
		case $tl:$t in
		ud_verbs:put_* | tcp:put_*) continue ;;
		esac
		dev=$POD_DEV:1
		[ "$tl" = tcp ] && dev=eth0
		ucx_case "$tl" "$dev" "$t"
	done
done

# The pods' own sysfs (pvctl sysfs, mounted at /sys/class/infiniband in a
# private mount namespace, as the device plugin's mount does for a
# container): UCX then reads the RoCE version of each GID from it instead
# of assuming RoCE v1, and runs as before.  Both sides see a tree (UCX
# refuses peers of another RoCE version).
pvctl sysfs --netns "$(topo_path a)" --out "$TMP/sys-a" >/dev/null ||
	fail "pvctl sysfs a"
pvctl sysfs --netns "$(topo_path b)" --out "$TMP/sys-b" >/dev/null ||
	fail "pvctl sysfs b"
[ "$(cat "$TMP/sys-a/$POD_DEV/ports/1/gid_attrs/types/0")" = "RoCE v2" ] ||
	fail "pvctl sysfs: no RoCE v2 type for GID 0"
[ -d "$TMP/sys-a/$POD_DEV/device/net/eth0" ] || fail "pvctl sysfs: no device/net/eth0"
WRAP_A="unshare -m sh $PV_ROOT/tests/lib/pod_sysfs.sh $TMP/sys-a"
WRAP_B="unshare -m sh $PV_ROOT/tests/lib/pod_sysfs.sh $TMP/sys-b"
CASE_SFX=-sysfs
if command -v strace >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	in_pod a $WRAP_A strace -f -e trace=openat ucx_info -d \
		>"$TMP/sysfs.strace" 2>&1
	grep -q 'infiniband/rdma0/ports/1/gid_attrs/types/0", O_RDONLY) = [0-9]' \
		"$TMP/sysfs.strace" || {
		grep infiniband "$TMP/sysfs.strace" | head
		fail "UCX did not read our gid_attrs/types/0"
	}
	echo "ok   UCX reads the pod's sysfs (gid_attrs/types/0: RoCE v2)"
fi
# The device's ibdev_path names the pod's tree where one is mounted, and
# otherwise a folder that is no kernel device's (libverbs/lv_dev_ident.h).
LIST=$PV_BUILD/tests/bin/kboth-loop
if [ -x "$LIST" ]; then
	# shellcheck disable=SC2086
	p_tree=$(in_pod a $WRAP_A "$LIST" -l | awk -v d="$POD_DEV" '$1 == "path:" && $2 == d { print $4 }')
	p_none=$(in_pod a "$LIST" -l | awk -v d="$POD_DEV" '$1 == "path:" && $2 == d { print $4 }')
	[ "$p_tree" = "/sys/class/infiniband/$POD_DEV" ] ||
		fail "ibdev_path under the pod's tree: '$p_tree'"
	[ "$p_none" = "/sys/class/podverbs/$POD_DEV" ] ||
		fail "ibdev_path without a tree: '$p_none'"
	echo "ok   ibdev_path: the pod's tree ($p_tree), else $p_none"
fi
for tl in rc_verbs ud_verbs; do
	ucx_case "$tl" "$POD_DEV:1" tag_lat
	sed -i '$ s/^tag_lat    /tag_lat+sys/' "$ROWS"
done
WRAP_A="" WRAP_B="" CASE_SFX=""

echo
where="same node"
[ "${PV_TOPO:-}" = cross ] && where="cross-node (pod a on node 1, b on node 2)"
echo "ucx_perftest, $ITERS iterations, 8-byte messages, $where (lat: us, bw: MB/s)"
printf '%-11s %-8s %10s %10s %10s\n' test transport p50-lat avg-lat bw
cat "$ROWS"
echo
pairs_done
