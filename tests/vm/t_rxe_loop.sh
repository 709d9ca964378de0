#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's verbs tools over kernel rxe in loopback inside the VM: the
# RoCEv2 GID (index 1) on both ends, ibv_rc_pingpong validating the data
# (-c) and ib_write_bw.  TCG is for function, not speed: small counts.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init
vm_rxe_up

# SERVER & CLIENT in the VM: the server gets until its TCP port listens,
# the client runs against 127.0.0.1 (perftest's out-of-band exchange), and
# both exit statuses count.
loop_case() {
	vm_run 150 '
		wait_port() {
			for i in $(seq 200); do
				ss -ltn | grep -q ":$1 " && return 0; sleep 0.1
			done; return 1; }
		'"$2"' >/tmp/server.txt 2>&1 & S=$!
		wait_port '"$1"' || { echo "server not listening"; cat /tmp/server.txt; exit 1; }
		'"$3"' 127.0.0.1; c=$?
		wait $S; s=$?
		echo "--- server:"; cat /tmp/server.txt
		echo "client rc=$c server rc=$s"; [ $c = 0 ] && [ $s = 0 ]'
}

out=$(loop_case 18515 'ibv_rc_pingpong -d rxe0 -g 1 -n 200 -c' \
	'ibv_rc_pingpong -d rxe0 -g 1 -n 200 -c')
rc=$?
echo "$out"
[ $rc = 0 ] || fail "ibv_rc_pingpong -g 1 -c loopback over rxe (rc $rc)"
echo "$out" | grep -q 'bytes in .* seconds' || fail "ibv_rc_pingpong printed no figures"
pp=$(echo "$out" | grep -m1 'usec/iter')

out=$(loop_case 18515 'ib_write_bw -d rxe0 -x 1 -F -n 200 -s 65536 --report_gbits' \
	'ib_write_bw -d rxe0 -x 1 -F -n 200 -s 65536 --report_gbits')
rc=$?
echo "$out"
[ $rc = 0 ] || fail "ib_write_bw -x 1 loopback over rxe (rc $rc)"
# The result row: bytes, iterations, peak, average Gb/s, msg rate.
bw=$(echo "$out" | awk '$1 == 65536 && $2 == 200 { print $4; exit }')
[ -n "$bw" ] || fail "ib_write_bw printed no result row"
echo "PASS: ibv_rc_pingpong -c: $pp; ib_write_bw 64 KiB x 200: $bw Gb/s average"
