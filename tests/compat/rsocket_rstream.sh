#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified rstream (rdmacm-utils) between two pods over our
# librdmacm.so.1 and libibverbs.so.1: stream rsockets, blocking (the
# default), MSG_WAITALL (-T b), poll-driven (-T a) and non-blocking
# (-T n), several transfer sizes, data verified (-T v); riostream
# (riomap/riowrite) and rcopy; then the failure
# modes: a peer killed mid-transfer, a reader that stops reading, a
# half close; rpoll/rselect over an rsocket and a pipe.  (rstream's own -T s means plain TCP sockets: not ours.)
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rstream
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

. "$PV_ROOT/tests/compat/rdmacm_common.inc"

# rs_case NAME "OPTIONS" SIZE ITERS: one rstream run; the client's
# result line for SIZE gives the figure.
rs_case() {
	_rn=$1 _ro=$2 _rsz=$3 _rit=$4
	# shellcheck disable=SC2086
	if cm_case "$_rn" 60 "rstream $_ro -S $_rsz -C $_rit" \
		   "rstream $_ro -S $_rsz -C $_rit -s $POD_B_IP"; then
		_rl=$(awk 'NR > 1 && $2 != "" { l = $0 } END { print l }' \
			"$TMP/$_rn.cli")
		if [ -n "$_rl" ] && ! grep -qi 'fail\|error' "$TMP/$_rn.cli" \
		   "$TMP/$_rn.srv"; then
			case_ok "$_rn: $(echo $_rl | awk '{ print $2 " x " $3 ": " $7 " Gb/s, " $8 " us/xfer" }')"
		else
			case_fail "$_rn" "no result line"
		fi
	fi
}

rs_case rstream-block-64 "-T v" 64 1000
rs_case rstream-block-4k "-T v" 4096 1000
rs_case rstream-block-1m "-T v" 1048576 50
rs_case rstream-waitall-64k "-T b -T v" 65536 200
rs_case rstream-async-64 "-T a -T v" 64 1000
rs_case rstream-async-1m "-T a -T v" 1048576 50
rs_case rstream-nonblock-16k "-T n -T v" 16384 500

# riostream: riomap'ed windows written with riowrite both ways (the
# receiver spins on the window's last byte; slow on a loaded host).
if command -v riostream >/dev/null; then
	for sz in 4096 65536; do
		if cm_case riostream-$sz 60 "riostream -T v -S $sz -C 20" \
			   "riostream -T v -S $sz -C 20 -s $POD_B_IP"; then
			_rl=$(awk '$1 == "custom" { print $2 " x " $3 ": " $7 " Gb/s" }' \
				"$TMP/riostream-$sz.cli")
			if [ -n "$_rl" ] && ! grep -qi 'fail\|error' \
			   "$TMP/riostream-$sz.cli" "$TMP/riostream-$sz.srv"; then
				case_ok "riostream-$sz: $_rl"
			else
				case_fail riostream-$sz "no result line"
			fi
		fi
	done
fi

# rcopy: a 5 MiB file through rsockets (its server accepts forever).
if command -v rcopy >/dev/null; then
	head -c 5242880 /dev/urandom >"$TMP/copy-src.bin"
	_cl0=$(cm_listens)
	in_pod b timeout 60 rcopy -p 7483 >"$TMP/rcopy.srv" 2>&1 &
	_cs=$!
	wait_until 10 listened_since "$_cl0"
	# rcopy's client takes its options after the file names.
	in_pod a timeout 30 rcopy "$TMP/copy-src.bin" \
		"$POD_B_IP:$TMP/copy-dst.bin" -p 7483 >"$TMP/rcopy.cli" 2>&1
	_crc=$?
	_ct=$(pair_tool "$_cs" rcopy)
	[ -n "$_ct" ] && kill "$_ct"
	stop_pid "$_cs"
	if [ "$_crc" = 0 ] && cmp -s "$TMP/copy-src.bin" "$TMP/copy-dst.bin"; then
		case_ok "rcopy: 5 MiB copied intact ($(grep -o '[0-9.]* Gb/sec' "$TMP/rcopy.cli"))"
	else
		case_fail rcopy "exit $_crc or the copy differs"
	fi
fi

# A reader that stops reading: the writer's non-blocking sends end in
# EAGAIN once the buffers and credits are used, a blocking send resumes
# when the reader reads again, and every byte arrives once, in order.
PEER="python3 $PV_ROOT/tests/compat/rsocket_peer.py"
if cm_case rs-stall 60 "$PEER stall-server $POD_B_IP 7481" \
	   "$PEER stall-client $POD_B_IP 7481"; then
	grep -q 'EAGAIN after' "$TMP/rs-stall.cli" &&
	grep -q 'read 4194304 bytes, intact' "$TMP/rs-stall.srv" &&
		case_ok "stalled reader: $(grep -o 'EAGAIN after [0-9]* bytes' "$TMP/rs-stall.cli"), resumed, 4 MiB intact" ||
		case_fail rs-stall "flow control lines missing"
fi

# Half close: after rshutdown(SHUT_WR) the peer reads an end of stream,
# sends are refused (EPIPE), and the answer still comes back.
if cm_case rs-half 60 "$PEER half-server $POD_B_IP 7482" \
	   "$PEER half-client $POD_B_IP 7482"; then
	grep -q 'then end of stream, intact' "$TMP/rs-half.srv" &&
	grep -q 'after SHUT_WR: -1 (EPIPE)' "$TMP/rs-half.cli" &&
	grep -q 'answer after SHUT_WR: 5000 bytes, intact' "$TMP/rs-half.cli" &&
		case_ok "half close: EOF at the reader, EPIPE at the writer, the answer arrives" ||
		case_fail rs-half "half-close lines missing"
fi

# rpoll and rselect over an rsocket and a pipe together: each call wakes
# for the one that is ready, and only for it.
if cm_case rs-poll 60 "$PEER poll-server $POD_B_IP 7484" \
	   "$PEER poll-client $POD_B_IP 7484"; then
	grep -q 'nothing sent yet: 0 ready' "$TMP/rs-poll.cli" &&
	grep -q 'pipe write: 1 ready, rsocket False, pipe True' "$TMP/rs-poll.cli" &&
	grep -q 'peer sends: 1 ready, rsocket True, pipe False' "$TMP/rs-poll.cli" &&
	grep -q 'read 100 bytes' "$TMP/rs-poll.cli" &&
		case_ok "rpoll/rselect: an rsocket and a pipe in one set, each wakes for its own" ||
		case_fail rs-poll "poll lines missing"
fi

cm_quiet() {
	[ "$(cm_stat 1 cm_ids_live)" = 0 ] && [ "$(cm_stat 2 cm_ids_live)" = 0 ]
}
# rs_kill_run SIDE: one pair, SIDE killed after 2 s.  Sets _kres: ok, early
# (the pair reset itself before the kill), or fail (with _kwhy).
rs_kill_run() {
	_kn=rs-kill-$1
	wait_until 10 cm_quiet ||
		echo "note: $_kn starts with CM ids live: node 1 $(cm_stat 1 cm_ids_live), node 2 $(cm_stat 2 cm_ids_live)"
	_kl0=$(cm_listens)
	in_pod b timeout 60 rstream -S 1048576 -C 100000 >"$TMP/$_kn.srv" 2>&1 &
	_ks=$!
	wait_until 10 listened_since "$_kl0"
	in_pod a timeout 60 rstream -S 1048576 -C 100000 -s "$POD_B_IP" \
		>"$TMP/$_kn.cli" 2>&1 &
	_kc=$!
	sleep 2
	if [ "$1" = srv ]; then _kv=$_ks _ko=$_kc; else _kv=$_kc _ko=$_ks; fi
	_kt=$(pair_tool "$_kv" rstream)
	[ -n "$_kt" ] && kill -9 "$_kt"
	_kstart=$(date +%s)
	wait "$_ko"
	_krc=$?
	_ksecs=$(( $(date +%s) - _kstart ))
	wait "$_kv" 2>/dev/null
	if [ -z "$_kt" ]; then
		_kres=early
		_kwhy="$(grep -h -m1 -E 'rsend|rrecv|rpoll' "$TMP/$_kn".* | tr '\n' ' ')"
	elif [ "$_krc" != 0 ] && [ "$_krc" != 124 ] && [ "$_ksecs" -le 15 ]; then
		_kres=ok
	else
		_kres=fail
		_kwhy="survivor exit $_krc after ${_ksecs}s (124 = hung until timeout)"
	fi
}
# A peer killed mid-transfer must make the other side fail within
# seconds; a pair that reset itself before the kill fails the case.
rs_kill() {
	rs_kill_run "$1"
	case $_kres in
	ok) case_ok "$_kn: the survivor failed after ${_ksecs}s (exit $_krc): $(grep -m1 -E 'rsend|rrecv|rpoll' "$TMP/$_kn".* | cut -d: -f2-)" ;;
	early) case_fail "$_kn" "the pair reset itself before the kill: $_kwhy" ;;
	*) case_fail "$_kn" "$_kwhy" ;;
	esac
}
rs_kill srv
rs_kill cli

# Nothing of the CM is left in the engine once every rsocket is gone.
cm_live() { pvctl stats | awk '$1 == "cm_ids_live" { print $2 }'; }
cm_none() { [ "$(cm_live)" = 0 ]; }
wait_until 5 cm_none
live=$(cm_live)
if [ "$live" = 0 ]; then
	case_ok "no CM ids left (cm_ids_live 0)"
else
	case_fail rs-cm-left "cm_ids_live is '$live' after every program exited"
fi
pairs_done
