#!/bin/sh
# SPDX-License-Identifier: MIT
# A verbs benchmark between two podman containers (CNI backend, bridge +
# host-local, podverbs chained with deviceName rdma0): Debian's unmodified
# ib_write_bw and ibv_rc_pingpong -g 0, server in container a, client in
# container b connecting to a's IP, both over our libibverbs (mounted at
# /pvlib; checked in the server's /proc/PID/maps).  The runs must complete
# and print their figures; iperf3 between the same two containers gives
# the TCP baseline printed beside them (no verdict on the ratio).
# Setup and cleanup: tests/lib/podman.sh.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"
. "$PV_ROOT/tests/lib/podman.sh"

topo_init
need_cmd ib_write_bw ibv_rc_pingpong iperf3 ss
SECS=${PODMAN_VERBS_SECS:-2}
podman_up ', "deviceName": "rdma0"'
A=pvt$$-a B=pvt$$-b
run_pod "$A" "$NET" >/dev/null || fail "podman run a"
run_pod "$B" "$NET" >/dev/null || fail "podman run b"
IP_A=$(pod_ip "$A")
NS_A=$(pod_netns "$A")
[ -n "$IP_A" ] && [ -e "$NS_A" ] || fail "no IP or netns for a ($IP_A, $NS_A)"

# listening_in_a PORT PID: PORT listens in a's namespace, or PID is gone.
listening_in_a() {
	[ -n "$(nsenter --net="$NS_A" ss -Hltn "sport = :$1" 2>/dev/null)" ] ||
		! pid_alive "$2"
}

# ours_in_a TOOL: the process TOOL in container a has our libibverbs
# mapped and not Debian's.
ours_in_a() {
	pod_exec "$A" sh -c '
		for d in /proc/[0-9]*; do
			[ "$(cat $d/comm 2>/dev/null)" = "$1" ] || continue
			grep -q " /pvlib/libibverbs.so.1\$" $d/maps &&
				! grep -q "/usr/lib/.*/libibverbs.so" $d/maps &&
				exit 0
		done
		exit 1' sh "$1"
}

# pair NAME PORT CHECK-OURS "SERVER CMD" "CLIENT CMD": server in a, client
# in b (a's IP appended); outputs in $TMP/NAME.srv and $TMP/NAME.cli.
pair() {
	_p_name=$1 _p_port=$2 _p_ours=$3 _p_srv=$4 _p_cli=$5
	# shellcheck disable=SC2086
	nsenter --net="$NODE" $PODMAN exec "$A" timeout 60 $_p_srv \
		>"$TMP/$_p_name.srv" 2>&1 &
	_p_spid=$!
	if ! wait_until 15 listening_in_a "$_p_port" "$_p_spid" ||
	   ! pid_alive "$_p_spid"; then
		stop_pid "$_p_spid"
		cat "$TMP/$_p_name.srv"
		fail "$_p_name: server did not listen on $_p_port"
	fi
	if [ "$_p_ours" = yes ]; then
		set -- $_p_srv
		ours_in_a "$1" || fail "$_p_name: $1 in container a did not map /pvlib/libibverbs.so.1"
	fi
	# shellcheck disable=SC2086
	pod_exec "$B" timeout 60 $_p_cli "$IP_A" >"$TMP/$_p_name.cli" 2>&1
	_p_crc=$?
	# A failed client leaves the server waiting: stop its podman exec
	# (cleanup's podman rm ends the server itself).
	if [ "$_p_crc" != 0 ] && ! wait_until 3 pid_gone "$_p_spid"; then
		stop_pid "$_p_spid"
		_p_src=killed
	else
		wait "$_p_spid"
		_p_src=$?
	fi
	if [ "$_p_crc" != 0 ] || [ "$_p_src" != 0 ]; then
		echo "---- server"; cat "$TMP/$_p_name.srv"
		echo "---- client"; cat "$TMP/$_p_name.cli"
		echo "---- engine log (tail)"; tail -15 "$ENGINE_LOG"
		fail "$_p_name: exit codes: server $_p_src, client $_p_crc (124 = timeout)"
	fi
}

# ib_write_bw: 64 KiB writes for $SECS seconds; the client's result row
# (#bytes #iterations peak average msgrate) gives the average in Gb/s.
pair write_bw 18515 yes "ib_write_bw -d rdma0 -F -s 65536 -D $SECS --report_gbits" \
	"ib_write_bw -d rdma0 -F -s 65536 -D $SECS --report_gbits"
RDMA_BW=$(awk '/^ *#bytes/ { on = 1; next }
	on && /^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { v = $4 } END { print v }' \
	"$TMP/write_bw.cli")
[ -n "$RDMA_BW" ] || { cat "$TMP/write_bw.cli"; fail "ib_write_bw printed no bandwidth"; }
echo "ok: ib_write_bw container b -> a ($IP_A): $RDMA_BW Gb/s (64 KiB, ${SECS} s)"

# ibv_rc_pingpong -g 0: GID index 0 is each container's own IPv4 GID.
pair rc_pingpong 18515 yes "ibv_rc_pingpong -d rdma0 -g 0 -n 2000 -s 4096" \
	"ibv_rc_pingpong -d rdma0 -g 0 -n 2000 -s 4096"
PP_BW=$(sed -n 's/.* seconds = \([0-9.]*\) Mbit\/sec.*/\1/p' "$TMP/rc_pingpong.cli")
PP_LAT=$(sed -n 's/.* seconds = \([0-9.]*\) usec\/iter.*/\1/p' "$TMP/rc_pingpong.cli")
[ -n "$PP_BW" ] && [ -n "$PP_LAT" ] ||
	{ cat "$TMP/rc_pingpong.cli"; fail "ibv_rc_pingpong printed no figures"; }
echo "ok: ibv_rc_pingpong -g 0 container b -> a: $PP_BW Mbit/s, $PP_LAT usec/iter (4 KiB, 2000 iters)"

# TCP baseline between the same two containers.
pair iperf3 5201 no "iperf3 -s -1 -p 5201" "iperf3 -p 5201 -t $SECS -f m -c"
TCP_BW=$(awk '/receiver/ { for (i = 1; i < NF; i++)
	if ($(i + 1) == "Mbits/sec") printf "%.2f", $i / 1000 }' "$TMP/iperf3.cli")
[ -n "$TCP_BW" ] || { cat "$TMP/iperf3.cli"; fail "iperf3 printed no bandwidth"; }
echo "ok: iperf3 container b -> a: $TCP_BW Gb/s (${SECS} s, one stream)"

echo "RESULT podman containers b -> a: ib_write_bw $RDMA_BW Gb/s, iperf3 TCP $TCP_BW Gb/s" \
	"(ratio $(awk -v r="$RDMA_BW" -v t="$TCP_BW" 'BEGIN { printf "%.2f", (t > 0 ? r / t : 0) }')x);" \
	"ibv_rc_pingpong $PP_BW Mbit/s, $PP_LAT usec/iter"

node $PODMAN rm -f -t 0 "$A" "$B" >/dev/null || fail "podman rm"
[ "$(engine_count)" = 0 ] || fail "engine has $(engine_count) devices after rm"
[ "$(state_count)" = 0 ] || fail "state left after rm: $(ls "$STATE")"
echo "ok: podman rm leaves no device and no state"
echo PASS
