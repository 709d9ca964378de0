#!/bin/sh
# The fuzz tier's smoke run (part of `make check`): every libFuzzer target
# replays its seed corpus and then runs FUZZ_SMOKE_RUNS (default 20000)
# fresh inputs from a fixed seed, with ASan/UBSan; any crash, leak or
# sanitizer report fails.  Skips when the fuzzers are not built (no clang
# with libFuzzer: `make check` builds them when clang-14 is present).
# New inputs go to a scratch folder, never into the repository's corpus.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
FB=${PV_FUZZ_BUILD:-$ROOT/build-fuzz}
RUNS=${FUZZ_SMOKE_RUNS:-20000}
TARGETS="fuzz_ipc fuzz_wqe fuzz_cni_conf fuzz_dp_config fuzz_state fuzz_wire fuzz_cm_mad fuzz_iphdr fuzz_rsocket fuzz_rsdgram"
for t in $TARGETS; do
	if [ ! -x "$FB/bin/$t" ]; then
		echo "SKIP: $FB/bin/$t not built (make fuzz-build; needs clang-14 and libclang-rt-14-dev)"
		exit 77
	fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fails=0
for t in $TARGETS; do
	mkdir -p "$scratch/$t"
	dict=""
	case $t in
	fuzz_cni_conf) dict="-dict=$ROOT/tests/fuzz/cni_conf.dict" ;;
	fuzz_dp_config) dict="-dict=$ROOT/tests/fuzz/dp_config.dict" ;;
	fuzz_state) dict="-dict=$ROOT/tests/fuzz/state.dict" ;;
	esac
	log="$scratch/$t.log"
	# The sanitizer options a test run sets (log_path) would hide the
	# fuzzer's report from the log; libFuzzer fails on any report itself.
	# shellcheck disable=SC2086
	env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS -u LD_PRELOAD \
		"$FB/bin/$t" -runs="$RUNS" -seed=1 -timeout=10 -max_total_time=120 \
		-print_final_stats=1 -artifact_prefix="$scratch/" $dict \
		"$scratch/$t" "$ROOT/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	seeds=$(find "$ROOT/tests/fuzz/corpus/$t" -type f | wc -l)
	if [ "$rc" = 0 ] && [ -n "$execs" ] && [ "$execs" -ge "$RUNS" ]; then
		echo "ok   $t: $seeds seeds + $execs inputs, no report"
	else
		fails=$((fails + 1))
		echo "FAIL $t: rc $rc after ${execs:-?} inputs"
		grep -E '^==[0-9]+==ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5
		for a in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-*; do
			[ -f "$a" ] && echo "  input: $(basename "$a") $(od -An -tx1 "$a" | head -2 | tr -s ' ')"
		done
	fi
done
[ "$fails" = 0 ]
