#!/bin/sh
# Runs the test tiers and prints one closing line:
#   "N passed, N failed, N skipped"
# usage: run-tests.sh BUILD [unit|abi|integration|compat]...
#
# unit:        every cmocka binary under BUILD/tests/unit (counts its cases)
# abi:         tests/abi/*.sh
# integration: tests/integration/*.sh (root, namespaces)
# compat:      tests/compat/*.sh (unmodified Debian binaries)
# A script exits 0 for pass, 77 for skip (printing why), anything else fails.
BUILD=${1:-build}
shift
TIERS=${*:-unit abi integration compat}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
BUILD=$(cd "$ROOT" && cd "$BUILD" && pwd -P)
export PV_BUILD="$BUILD" PV_ROOT="$ROOT"
LOGDIR="$BUILD/test-logs"
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0 failed_names=""

run_unit() {
	for t in "$BUILD"/tests/unit/*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		log="$LOGDIR/unit-$name.log"
		"$t" >"$log" 2>&1
		rc=$?
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
		name=$(basename "$t" .sh)
		log="$LOGDIR/$tier-$name.log"
		start=$(date +%s)
		timeout 600 sh "$t" >"$log" 2>&1
		rc=$?
		secs=$(( $(date +%s) - start ))
		case $rc in
		0) pass=$((pass + 1)); echo "ok   $tier/$name (${secs}s)" ;;
		77) skip=$((skip + 1))
		    echo "skip $tier/$name: $(grep -m1 '^SKIP' "$log" | cut -c6-)" ;;
		*) fail=$((fail + 1)); failed_names="$failed_names $tier/$name"
		   echo "FAIL $tier/$name (rc $rc, ${secs}s; log $log)"
		   tail -25 "$log" | sed 's/^/    /' ;;
		esac
	done
}

for tier in $TIERS; do
	echo "== $tier"
	case $tier in
	unit) run_unit ;;
	*) run_scripts "$tier" ;;
	esac
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
