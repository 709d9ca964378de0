#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_xsrq_pingpong (XRC: domains, XRC SRQs,
# XRC_SEND/XRC_RECV QPs, sends naming the peer's SRQ number) between two
# pods on one engine, over our libibverbs.  The tool opens its domain on
# /tmp/xrc_domain; each pod sees its own file there (a private mount
# namespace binds a per-pod file over it, as a real pod's own /tmp does).
# Last, both pods open the one same file: the second pod's ibv_open_xrcd
# must be refused (a domain never spans two devices) and counted.
# Cross-node (PV_TOPO=cross) the same runs cross the wire (XRC opcodes
# with the XRCETH); the shared-file case needs one engine, so it runs
# same-node only.
PP_TOOL=ibv_xsrq_pingpong
. "$PV_ROOT/tests/lib/pods.sh"

need_cmd "$PP_TOOL"
need_cmd unshare
[ "$(id -u)" = 0 ] || skip "needs root (mount namespaces)"
XF=/tmp/xrc_domain
made_xf=
if [ ! -e "$XF" ]; then
	: >"$XF" || skip "cannot create $XF"
	made_xf=yes
fi
pods_up
# After pods_up, whose topo_init traps EXIT for its own cleanup.
trap '_xs_rc=$?; [ -n "$made_xf" ] && rm -f "$XF"; (exit $_xs_rc); topo_cleanup' EXIT

# A wrapper per pod named as the tool (pair_case finds the server by its
# name): its own mount namespace with the pod's file bound over $XF, so
# the processes of one pod share their domain and the pods do not.
for pod in a b; do
	mkdir -p "$TMP/wrap_$pod"
	: >"$TMP/xrcd_file.$pod"
	cat >"$TMP/wrap_$pod/$PP_TOOL" <<EOW
#!/bin/sh
exec unshare -m --propagation private sh -c \
	"mount --bind $TMP/xrcd_file.$pod $XF && exec $(command -v $PP_TOOL) \\\$*" sh "\$@"
EOW
	chmod +x "$TMP/wrap_$pod/$PP_TOOL"
done
WRAP_A=$TMP/wrap_a/$PP_TOOL
WRAP_B=$TMP/wrap_b/$PP_TOOL

xs_case() {
	_xs_name=$1
	shift
	pair_case "$_xs_name" 60 "$WRAP_B -d $POD_DEV -g 0 $*" \
		"$WRAP_A -d $POD_DEV -g 0 $*" || return 0
	xs_verdict "$_xs_name" "$TMP/$_xs_name.srv" "$TMP/$_xs_name.cli"
}

# xs_verdict NAME FILES...: each side printed its SRQ number and
# "success" (the tool's last line, after every completion came back
# without error and the peers' termination handshake), and no receive
# completion named a QP the server does not have.
xs_verdict() {
	_xv_name=$1
	shift
	for _xv_f in "$@"; do
		if ! grep -Eq 'SRQN [0-9a-f]+' "$_xv_f" ||
		   [ "$(tail -1 "$_xv_f")" != success ]; then
			case_fail "$_xv_name" "${_xv_f##*/}: $(tail -1 "$_xv_f")"
			return 0
		fi
		if grep -q 'Unable to find qp' "$_xv_f"; then
			case_fail "$_xv_name" "a completion named an unknown QP"
			return 0
		fi
	done
	case_ok "$_xv_name"
}

xs_case xsrq-poll -n 500
xs_case xsrq-events -n 500 -e
xs_case xsrq-small -n 500 -s 1
xs_case xsrq-large -n 50 -s 1048576

# Three clients of one server: three XRC_SEND/XRC_RECV pairs on the
# server; its sends to a client go round-robin over all three pairs, so
# most arrive on another client process's XRC_RECV QP and cross to the
# named client's SRQ through the pod's shared domain.
in_pod b timeout 60 "$WRAP_B" -d "$POD_DEV" -g 0 -n 200 -c 3 >"$TMP/multi.srv" 2>&1 &
spid=$!
if wait_until 10 listening_or_gone "$spid" b 18515 && tcp_listening b 18515; then
	cpids=
	for i in 1 2 3; do
		in_pod a timeout 60 "$WRAP_A" -d "$POD_DEV" -g 0 -n 200 "$POD_B_IP" \
			>"$TMP/multi.cli$i" 2>&1 &
		cpids="$cpids $!"
	done
	for p in $cpids; do wait "$p"; done
	wait "$spid"
	xs_verdict multi-client-3 "$TMP/multi.srv" "$TMP/multi.cli1" \
		"$TMP/multi.cli2" "$TMP/multi.cli3"
else
	stop_pid "$spid"
	case_fail multi-client-3 "server did not listen"
fi

[ "${PV_TOPO:-}" = cross ] && pairs_done
# One file for both pods: B opens the domain first and waits for A,
# whose ibv_open_xrcd on the same inode must fail (EPERM).
stat_of() { pvctl stats | awk -v n="$1" '$1 == n || $1 == n":" { print $2 }'; }
before=$(stat_of xrcd_refused)
in_pod b timeout 20 "$PP_TOOL" -d "$POD_DEV" -g 0 -n 5 >"$TMP/shared.srv" 2>&1 &
spid=$!
wait_until 10 listening_or_gone "$spid" b 18515
in_pod a timeout 20 "$PP_TOOL" -d "$POD_DEV" -g 0 -n 5 "$POD_B_IP" \
	>"$TMP/shared.cli" 2>&1
crc=$?
# B still waits for a client that never came.  $spid is the background
# subshell of in_pod; its child is timeout (ip netns exec and env exec
# into it), which passes SIGTERM on to the tool.  Found through /proc,
# not pkill: under the sanitizer run libasan is preloaded into every
# program, and pkill hung in it.
for _c in /proc/[0-9]*; do
	[ "$(sed 's/.*) //' "$_c/stat" 2>/dev/null | cut -d' ' -f2)" = "$spid" ] &&
		kill -TERM "${_c#/proc/}" 2>/dev/null
done
stop_pid "$spid"
wait "$spid" 2>/dev/null
after=$(stat_of xrcd_refused)
if [ "$crc" = 0 ] || ! grep -q "Couldn't Open the XRC Domain 1$" "$TMP/shared.cli"; then
	case_fail shared-file "A opened B's domain file (exit $crc): $(tail -2 "$TMP/shared.cli")"
elif [ "$((after - before))" -lt 1 ] 2>/dev/null; then
	case_fail shared-file "refusal not counted (xrcd_refused $before -> $after)"
else
	case_ok "shared-file: refused with EPERM, xrcd_refused $before -> $after"
fi
pairs_done
