#!/bin/sh
# The engine and the soft provider take every verbs value from
# include/infiniband/verbs.h (issue 9): no private copy of one may come
# back.  tests/abi/engine_values.py scans every C file of
# providers/soft/engine/ and providers/soft/provider/ for
#  1. a #define or enumerator with a numeric value whose name ends like a
#     verbs.h constant (WR_SEND, ENG_QPT_RC, EV_QP_ACCESS_ERR, ...);
#  2. an ordered comparison with a WR/WC opcode or a QP state (their order
#     means nothing: eng_wr.h's named predicates say what a value means).
# First the checker must catch planted copies, so this test can fail.
# The IPC ABI's own enums that mirror verbs values (providers/soft/*.h,
# built without verbs.h) are allowed only if tests/unit/engine/
# test_eng_values.c checks each of them against verbs.h: a new mirror
# without its check fails here.
# Exit 0 pass, 77 skip, 1 fail.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
HERE="$ROOT/tests/abi"
VERBS="$ROOT/include/infiniband/verbs.h"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || {
	echo "SKIP: python3 not installed"
	exit 77
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-engval.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0

# The checker itself: three planted findings, one harmless line.
cat >"$WORK/planted.c" <<'PLANTED'
#define WR_RDMA_READ		4
enum { ENG_QPS_ERR = 6 };
#define ENG_DP_CHUNK		(64u * 1024)
static int f(unsigned op) { return op >= IBV_WR_ATOMIC_CMP_AND_SWP; }
PLANTED
"$PY" -B "$HERE/engine_values.py" "$VERBS" "$WORK/planted.c" \
	>"$WORK/planted.out" 2>&1
n=$(grep -c '^\(COPY\|ORDER\) ' "$WORK/planted.out")
if [ "$n" != 3 ]; then
	cat "$WORK/planted.out"
	echo "FAIL: the checker found $n of the 3 planted copies"
	fail=1
fi

set -- "$ROOT"/providers/soft/engine/*.[ch] "$ROOT"/providers/soft/provider/*.[ch]
[ -f "$1" ] || { echo "FAIL: no engine sources under $ROOT"; exit 1; }
"$PY" -B "$HERE/engine_values.py" "$VERBS" "$@" >"$WORK/tree.out" 2>&1
rc=$?
sed "s|$ROOT/||" "$WORK/tree.out"
if [ $rc != 0 ]; then
	echo "FAIL: $(grep -c '^COPY ' "$WORK/tree.out") private copies of verbs values, $(grep -c '^ORDER ' "$WORK/tree.out") ordered comparisons of opcodes/states in $# files"
	fail=1
else
	echo "ok: no private copy of a verbs value, no ordered opcode/state comparison in $# files"
fi

"$PY" -B "$HERE/engine_values.py" "$VERBS" "$ROOT"/providers/soft/*.h \
	>"$WORK/abi.out" 2>&1
VALUES_TEST="$ROOT/tests/unit/engine/test_eng_values.c"
mirrors=0
for name in $(sed -n 's/^COPY [^ ]* \([A-Z0-9_]*\) = .*/\1/p' "$WORK/abi.out"); do
	mirrors=$((mirrors + 1))
	grep -q "X($name, IBV_" "$VALUES_TEST" || {
		echo "FAIL: $name (providers/soft/*.h) mirrors a verbs value that test_eng_values.c does not check"
		fail=1
	}
done
if grep -q '^ORDER ' "$WORK/abi.out"; then
	grep '^ORDER ' "$WORK/abi.out" | sed "s|$ROOT/||"
	fail=1
fi
echo "IPC ABI mirrors of verbs values: $mirrors, each checked by unit/test_eng_values"
exit $fail
