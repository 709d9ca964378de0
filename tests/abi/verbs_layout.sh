#!/bin/sh
# ABI oracle for include/infiniband/verbs.h against rdma-core's installed
# header (libibverbs-dev, rdma-core 44 on Debian 12):
#  1. our header compiles on its own as C (strict warnings) and as C++;
#  2. the same public names exist in both: aggregates and their members in
#     order, enumerators and constant macros, functions (inline or not),
#     function-like macros;
#  3. a generated probe prints size/alignment/offset/signedness of every
#     struct, union, enum and member and the value of every constant; built
#     against each header, the two outputs must be identical;
#  4. every member type and function prototype as rdma-core declares it is
#     compatible with ours (a compile error otherwise);
#  5. a program using the inline fast paths and macro verbs compiles against
#     both headers, as C and C++, calls the same library symbols with both,
#     and links against Debian's libibverbs.
# Exit 0 pass, 77 skip, 1 fail.  The test reads rdma-core's headers at run
# time only; nothing of them is stored in the project.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
RDMA_INC=${PV_RDMA_INCLUDE:-/usr/include}
CC=${CC:-cc}
CXX=${CXX:-c++}
OURS="$ROOT/include/infiniband/verbs.h"
HERE="$ROOT/tests/abi"

if [ ! -f "$RDMA_INC/infiniband/verbs.h" ]; then
	echo "SKIP: libibverbs-dev not installed"
	exit 77
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || {
	echo "SKIP: python3 not installed"
	exit 77
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-abi.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

STRICT="-Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
-Wmissing-prototypes -Werror"

# 1. Standalone, as C and C++.
for std in gnu11 c11 gnu99; do
	printf '#include <infiniband/verbs.h>\n' |
		$CC -std=$std $STRICT -I"$ROOT/include" -x c -fsyntax-only - ||
		bad "verbs.h does not compile alone as $std"
done
if command -v "$CXX" >/dev/null 2>&1; then
	for std in c++11 c++17; do
		printf '#include <infiniband/verbs.h>\n' |
			$CXX -std=$std -Wall -Wextra -Werror -I"$ROOT/include" \
				-x c++ -fsyntax-only - ||
			bad "verbs.h does not compile alone as $std"
	done
else
	echo "note: no C++ compiler, C++ checks skipped"
fi

# 2. Name sets; writes the probes.
"$PY" -B "$HERE/gen_verbs_probe.py" "$OURS" "$RDMA_INC" "$WORK" \
	>"$WORK/gen.out" 2>&1
gen_rc=$?
cat "$WORK/gen.out"
[ $gen_rc = 0 ] || bad "public names differ (see MISMATCH lines)"
[ -f "$WORK/layout.c" ] || { echo "FAIL: generator wrote no probe"; exit 1; }

# 3. Layout and values, built against each header.  -w: the probe compares
# unsigned values with 0 on purpose.
$CC -std=gnu11 -w -I"$ROOT/include" "$WORK/layout.c" -o "$WORK/layout-ours" &&
	$CC -std=gnu11 -w -isystem "$RDMA_INC" "$WORK/layout.c" \
		-o "$WORK/layout-rdma" ||
	{ echo "FAIL: layout probe does not build"; exit 1; }
"$WORK/layout-ours" >"$WORK/ours.txt" && "$WORK/layout-rdma" >"$WORK/rdma.txt" ||
	{ echo "FAIL: layout probe did not run"; exit 1; }
if ! diff -u "$WORK/rdma.txt" "$WORK/ours.txt" >"$WORK/layout.diff"; then
	bad "layout/value differences (- rdma-core, + ours):"
	head -60 "$WORK/layout.diff"
fi
n_layout=$(wc -l <"$WORK/ours.txt")

# 4. rdma-core's member types and prototypes against our header.
$CC -std=gnu11 -Wall -Wextra -Werror -I"$ROOT/include" -fsyntax-only \
	"$WORK/types.c" 2>"$WORK/types.err" || {
	bad "member types or prototypes differ:"
	grep -E 'error' "$WORK/types.err" | head -40
}

# 5. Fast paths used as applications use them.
FP="$HERE/verbs_fastpath.c"
for opt in -O0 -O2; do
	$CC -std=gnu11 $STRICT $opt -I"$ROOT/include" -c "$FP" \
		-o "$WORK/fp-ours.o" || bad "fast paths ($opt) with our header"
	$CC -std=gnu11 -w $opt -isystem "$RDMA_INC" -c "$FP" \
		-o "$WORK/fp-rdma.o" || bad "fast paths ($opt) with rdma-core's"
	nm -u "$WORK/fp-ours.o" >"$WORK/syms-ours" 2>/dev/null
	nm -u "$WORK/fp-rdma.o" >"$WORK/syms-rdma" 2>/dev/null
	diff -u "$WORK/syms-rdma" "$WORK/syms-ours" ||
		bad "fast paths ($opt) call different library symbols"
done
if command -v "$CXX" >/dev/null 2>&1; then
	$CXX -Wall -Wextra -Werror -I"$ROOT/include" -x c++ -c "$FP" \
		-o "$WORK/fp-cxx.o" || bad "fast paths as C++ with our header"
fi
printf 'int main(void) { return 0; }\n' >"$WORK/main.c"
# -print-file-name answers a bare name when the library is not there.
if $CC -print-file-name=libibverbs.so | grep -q /; then
	$CC "$WORK/main.c" "$WORK/fp-ours.o" -o "$WORK/fp" -libverbs ||
		bad "fast-path object does not link against libibverbs"
fi

echo "checked: $n_layout layout/value lines identical; $(tail -1 "$WORK/gen.out")"
[ $fail = 0 ] || exit 1
echo "PASS: verbs.h matches rdma-core's ABI"
exit 0
