#!/bin/sh
# Runs each libFuzzer target for SECONDS, one after another at the lowest
# priority, starting from its seed corpus (tests/fuzz/corpus/<target>/,
# never written) plus a working corpus kept in FUZZ_BUILD/corpus/<target>/
# (grows across runs).  Crashes, leaks and timeouts are written to
# FUZZ_BUILD/artifacts/; one line per target reports execs and exec/s.
# usage: fuzz-run.sh FUZZ_BUILD [SECONDS] [TARGET...]   exit 0 if none crashed
set -u
FB=${1:-build-fuzz}
SECS=${2:-60}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
TARGETS=${*:-fuzz_ipc fuzz_wqe fuzz_cni_conf fuzz_dp_config fuzz_state fuzz_wire fuzz_cm_mad fuzz_iphdr fuzz_rsocket}
mkdir -p "$FB/artifacts" "$FB/logs"
fails=0
for t in $TARGETS; do
	bin="$FB/bin/$t"
	[ -x "$bin" ] || { echo "$t: not built"; fails=$((fails + 1)); continue; }
	work="$FB/corpus/$t"
	mkdir -p "$work"
	dict=""
	case $t in
	fuzz_cni_conf) dict="-dict=$ROOT/tests/fuzz/cni_conf.dict" ;;
	fuzz_dp_config) dict="-dict=$ROOT/tests/fuzz/dp_config.dict" ;;
	fuzz_state) dict="-dict=$ROOT/tests/fuzz/state.dict" ;;
	esac
	log="$FB/logs/$t.log"
	# shellcheck disable=SC2086
	nice -n 19 "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$FB/artifacts/$t-" \
		$dict "$work" "$ROOT/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ "$rc" = 0 ]; then
		echo "$t: ${execs:-?} execs, ${rate:-?} exec/s, $cov, 0 crashes (${SECS}s)"
	else
		fails=$((fails + 1))
		echo "$t: FAILED (rc $rc) after ${execs:-?} execs; log $log"
		grep -E '^==[0-9]+==ERROR|SUMMARY|Test unit written' "$log" | head -5
	fi
done
[ "$fails" = 0 ]
