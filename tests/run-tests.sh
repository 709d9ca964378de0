#!/bin/sh
# Runs the test tiers and prints one closing line:
#   "N passed, N failed, N skipped"
# usage: run-tests.sh BUILD [unit|abi|integration|compat|cross|fuzz|vm]...
# PV_SKIP_TESTS="name ..." leaves those scripts out (counted as skipped),
# e.g. PV_SKIP_TESTS="podman_cni podman_verbs" on a shared machine.
#
# unit:        every cmocka binary under BUILD/tests/unit (counts its cases)
# abi:         tests/abi/*.sh
# integration: tests/integration/*.sh (root, namespaces)
# compat:      tests/compat/*.sh (unmodified Debian binaries)
# fuzz:        tests/fuzz/*.sh (smoke runs of the libFuzzer targets)
# cross:       the scripts listed in tests/cross.list again, each with
#              PV_TOPO=cross: pods a and b on two simulated nodes with an
#              engine each (tests/lib/pods.sh, tests/lib/nodes.sh)
# vm:          tests/vm/run.sh: one VM (Debian's kernel, rdma_rxe, qemu)
#              for every tests/vm/t_*.sh, each counted; skipped (77) where
#              qemu cannot run
# A script exits 0 for pass, 77 for skip (printing why), anything else fails.
# A script that leaves a process running fails, named in its log (see
# check_leftovers).
#
# A sanitizer build (make SAN=1: -fsanitize= in BUILD/flags.txt) runs with
# ASan/UBSan writing their reports to BUILD/test-logs/san/<test>/ rather than
# stderr: the engine is a daemon whose stderr no test reads.  Any report file
# a test leaves behind fails it, whatever the script's own exit status.
BUILD=${1:-build}
shift
TIERS=${*:-unit abi integration compat cross fuzz vm}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
BUILD=$(cd "$ROOT" && cd "$BUILD" && pwd -P)
export PV_BUILD="$BUILD" PV_ROOT="$ROOT"
LOGDIR="$BUILD/test-logs"
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0 failed_names=""
SAN=0
grep -q -- -fsanitize= "$BUILD/flags.txt" 2>/dev/null && SAN=1
SANDIR="$LOGDIR/san"

# san_begin NAME TIER: point the sanitizers' reports at a fresh folder for
# NAME (world-writable: tests run pod processes as other uids).
# The unit tier runs our programs alone: leak checking on (the data-path
# test clients' exit-time leaks are suppressed, tests/san/lsan.supp).
# Script tiers also run Debian's binaries (ibv_*, perftest) over our ASan'd
# libibverbs; ASan must be the first library of a process (perftest crashes
# in its threads otherwise), so libasan is preloaded into every process of
# those tiers, shells and tools too, and leak checking is off there (their
# exit-time leaks are not ours).  abort_on_error=0 keeps exit statuses (a
# report makes a process exit 23, which tests see as a failure too).
SAN_ASAN_LIB=$(${CC:-cc} -print-file-name=libasan.so 2>/dev/null)
[ -f "$SAN_ASAN_LIB" ] || SAN_ASAN_LIB=""
san_begin() {
	[ "$SAN" = 1 ] || return 0
	rm -rf "${SANDIR:?}/$1"
	mkdir -p "$SANDIR/$1"
	chmod 1777 "$SANDIR/$1"
	leaks=1 preload=""
	if [ "$2" != unit ] && [ "$2" != fuzz ]; then
		leaks=0 preload=$SAN_ASAN_LIB
	fi
	export ASAN_OPTIONS="log_path=$SANDIR/$1/asan:detect_leaks=$leaks:abort_on_error=0:exitcode=23:suppressions=$ROOT/tests/san/asan.supp"
	export UBSAN_OPTIONS="log_path=$SANDIR/$1/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=23"
	export LSAN_OPTIONS="suppressions=$ROOT/tests/san/lsan.supp:print_suppressions=0"
	if [ -n "$preload" ]; then
		export LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}"
	fi
}

# san_end: undo san_begin's LD_PRELOAD for the runner itself.
san_end() {
	[ "$SAN" = 1 ] || return 0
	unset LD_PRELOAD
}

# san_verdict NAME: 0 when NAME left no sanitizer report, else prints them.
san_verdict() {
	[ "$SAN" = 1 ] || return 0
	set -- "$SANDIR/$1"/*
	[ -e "$1" ] || return 0
	echo "    sanitizer reports: $*"
	head -q -n 30 "$@" | sed 's/^/    | /'
	return 1
}

# Processes a script leaves running disturb the scripts after it (a port,
# a namespace, the CPU), so each script runs with PV_RUN_ID=<runner pid>-
# <tier>-<name> in its environment; every process it starts inherits it
# (in any namespace or session, as any uid), and no concurrent run's does.
# leftovers ID: the pids still carrying PV_RUN_ID=ID.
leftovers() {
	grep -lzx "PV_RUN_ID=$1" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3
}

# check_leftovers ID: 0 when nothing of ID runs (a second look after 1 s
# for processes still exiting), else names them, kills them, returns 1.
check_leftovers() {
	[ -n "$(leftovers "$1")" ] || return 0
	sleep 1
	_left=$(leftovers "$1")
	[ -n "$_left" ] || return 0
	for _p in $_left; do
		echo "    left running: pid $_p: $(tr '\0' ' ' <"/proc/$_p/cmdline" 2>/dev/null | cut -c1-160)"
	done
	kill -9 $_left 2>/dev/null
	return 1
}

run_unit() {
	for t in "$BUILD"/tests/unit/*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		log="$LOGDIR/unit-$name.log"
		san_begin "unit-$name" unit
		"$t" >"$log" 2>&1
		rc=$?
		san_end
		san_verdict "unit-$name" >>"$log" || rc=1
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		p=${p:-0} f=${f:-0}
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$((pass + p)) fail=$((fail + f))
		if [ "$f" != 0 ]; then
			failed_names="$failed_names unit/$name"
			echo "FAIL unit/$name ($f failed; log $log)"
			sed 's/^/    /' "$log" | grep -E 'FAIL|ERROR|error|Assert' | head -20
		else
			echo "ok   unit/$name ($p cases)"
		fi
	done
}

run_scripts() {
	tier=$1
	for t in "$ROOT"/tests/"$tier"/*.sh; do
		[ -f "$t" ] || continue
		run_script "$tier" "$t" "$(basename "$t" .sh)"
	done
}

# run_cross: each script of tests/cross.list (paths under tests/, one a
# line, # comments) with PV_TOPO=cross, named cross/<tier>-<script>.
run_cross() {
	list=$ROOT/tests/cross.list
	[ -f "$list" ] || return 0
	for entry in $(sed 's/#.*//' "$list"); do
		if [ ! -f "$ROOT/tests/$entry" ]; then
			fail=$((fail + 1)) failed_names="$failed_names cross/$entry"
			echo "FAIL cross/$entry: not in tests/ (tests/cross.list)"
			continue
		fi
		name=$(echo "${entry%.sh}" | tr / -)
		run_script cross "$ROOT/tests/$entry" "$name" cross
	done
}

# run_script TIER FILE NAME [TOPO]: one script, counted; TOPO is passed
# as PV_TOPO (unset: the script's default, same-node).
run_script() {
	tier=$1 t=$2 name=$3 topo=${4:-}
	log="$LOGDIR/$tier-$name.log"
	case " ${PV_SKIP_TESTS:-} " in
	*" $name "*) skip=$((skip + 1))
	    echo "skip $tier/$name: in PV_SKIP_TESTS"; return 0 ;;
	esac
	case "$SAN:$name" in
	1:podman_*)
		# podman, conmon and runc would run with libasan
		# preloaded, and podman_verbs' container has our library
		# but no sanitizer runtime: the normal tier covers them.
		skip=$((skip + 1))
		echo "skip $tier/$name: sanitizer build (podman and its container are not sanitizer-ready)"
		return 0 ;;
	esac
	start=$(date +%s)
	san_begin "$tier-$name" "$tier"
	run_id=$$-$tier-$name
	if [ -n "$topo" ]; then
		PV_RUN_ID=$run_id PV_TOPO=$topo timeout 600 sh "$t" >"$log" 2>&1
	else
		PV_RUN_ID=$run_id timeout 600 sh "$t" >"$log" 2>&1
	fi
	rc=$?
	san_end
	if ! check_leftovers "$run_id" >>"$log"; then
		echo "FAIL: processes left running (killed)" >>"$log"
		rc=1
	fi
	if ! san_verdict "$tier-$name" >>"$log"; then
		echo "sanitizer report(s) in $SANDIR/$tier-$name" >>"$log"
		rc=1
	fi
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $tier/$name (${secs}s)" ;;
	77) skip=$((skip + 1))
	    echo "skip $tier/$name: $(grep -m1 '^SKIP' "$log" | cut -c6-)" ;;
	*) fail=$((fail + 1)); failed_names="$failed_names $tier/$name"
	   echo "FAIL $tier/$name (rc $rc, ${secs}s; log $log)"
	   tail -25 "$log" | sed 's/^/    /' ;;
	esac
}

# run_vm: the vm tier boots once and runs its t_*.sh itself; its lines are
# shown and its closing "vm: N passed, N failed, N skipped" counted.
run_vm() {
	log="$LOGDIR/vm.log"
	case " ${PV_SKIP_TESTS:-} " in
	*" vm "*) skip=$((skip + 1)); echo "skip vm: in PV_SKIP_TESTS"; return ;;
	esac
	if [ "$SAN" = 1 ]; then
		# The VM runs Debian's kernel and binaries; the pod test's tools
		# would load our ASan'd library without the runtime first.
		skip=$((skip + 1))
		echo "skip vm: sanitizer build (the normal build runs the vm tier)"
		return
	fi
	start=$(date +%s)
	PV_RUN_ID=$$-vm timeout -k 30 900 sh "$ROOT/tests/vm/run.sh" >"$log" 2>&1
	rc=$?
	if ! check_leftovers "$$-vm" >>"$log"; then
		echo "FAIL vm: processes left running (killed)" | tee -a "$log"
		fail=$((fail + 1)) failed_names="$failed_names vm-leftovers"
	fi
	secs=$(( $(date +%s) - start ))
	grep -E '^(ok|skip|FAIL) +vm/|^    |^vm: (boot|booted)' "$log"
	counts=$(sed -n 's/^vm: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -1)
	if [ -z "$counts" ]; then
		case $rc in
		77) skip=$((skip + 1))
		    echo "skip vm: $(grep -m1 '^SKIP' "$log" | cut -c7-)" ;;
		*) fail=$((fail + 1)) failed_names="$failed_names vm"
		   echo "FAIL vm (rc $rc, ${secs}s; log $log)"
		   tail -25 "$log" | sed 's/^/    /' ;;
		esac
		return
	fi
	set -- $counts
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
	if [ "$2" != 0 ] || [ "$rc" != 0 ]; then
		[ "$2" != 0 ] || fail=$((fail + 1))
		failed_names="$failed_names vm"
		echo "FAIL vm (rc $rc, ${secs}s; log $log)"
	fi
}

for tier in $TIERS; do
	echo "== $tier"
	case $tier in
	unit) run_unit ;;
	vm) run_vm ;;
	cross) run_cross ;;
	*) run_scripts "$tier" ;;
	esac
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
