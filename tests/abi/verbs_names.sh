#!/bin/sh
# Every public name of rdma-core's verbs headers exists in ours with the
# same value (issue 12, item 3).  The headers are those Debian's
# libibverbs-dev installs under infiniband/ (dpkg -L), less the provider
# direct-verbs headers (efadv, manadv, mlx4dv, mlx5dv, mlx5_*: libraries of
# their own, not libibverbs), with every rdma-core or kernel uAPI header
# they include (rdma/ib_user_verbs.h, rdma/ib_user_sa.h).  From `cc -E -dD`
# of all of them tests/abi/hdr_names.py lists the enumerators, macros,
# struct/union/enum tags and their members, typedefs and functions those
# files declare; a probe built against rdma-core's headers prints each
# constant's value, size and signedness, each tag's size and alignment and
# each member's offset and size; a second probe,
# built against ours, asserts each name one line at a time
# (_Static_assert for values and layouts, a use for functions, #ifdef for
# the other macros), and every line that fails to compile names a missing
# or different item.  Our headers must not fall through to rdma-core's.
# Exit 0 pass, 77 skip, 1 fail.  Nothing of rdma-core's is stored.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
RDMA_INC=${PV_RDMA_INCLUDE:-/usr/include}
CC=${CC:-cc}
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
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-names.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
NAMES="$PY -B $HERE/hdr_names.py"

# The package's headers (arch.h and sa-kern-abi.h warn that they are
# obsolete: -w).
hdrs=""
list=$(dpkg -L libibverbs-dev 2>/dev/null | grep '/include/infiniband/.*\.h$')
[ -n "$list" ] || list=$(ls "$RDMA_INC"/infiniband/*.h)
for f in $list; do
	b=$(basename "$f")
	case $b in
	*dv.h | mlx5_* | ib.h) continue ;;	# providers' own; ib.h: librdmacm
	esac
	[ -f "$RDMA_INC/infiniband/$b" ] && hdrs="$hdrs infiniband/$b"
done
hdrs=$(echo $hdrs | tr ' ' '\n' | sort | tr '\n' ' ')
inc=$(echo $hdrs | tr ' ' ',')
for h in $hdrs; do echo "#include <$h>"; done >"$WORK/all.c"

# 1. Names of the files those headers are made of.
$CC -std=gnu11 -w -isystem "$RDMA_INC" -E -dD "$WORK/all.c" >"$WORK/pre.i" &&
	files=$($CC -std=gnu11 -w -isystem "$RDMA_INC" -M "$WORK/all.c" |
		tr -d '\\' | tr ' ' '\n' |
		grep -E "^$RDMA_INC/(infiniband|rdma)/" | sort -u) || {
	echo "FAIL: rdma-core's headers do not preprocess"
	exit 1
}
$NAMES names "$WORK/pre.i" $files >"$WORK/names.txt" || exit 1

# 2. Which macros are integer constants, then every value and layout.
cd "$WORK" || exit 1
$NAMES classify-probe names.txt classify.c "$inc"
$CC -std=gnu11 -w -fmax-errors=0 -isystem "$RDMA_INC" -fsyntax-only \
	classify.c 2>classify.err
$NAMES classify names.txt classify.err classify.c "$inc"
$NAMES rdma-probe names.txt "$inc" rdma.c
$CC -std=gnu11 -w -isystem "$RDMA_INC" rdma.c -o rdma && ./rdma >values.txt || {
	echo "FAIL: the probe does not build or run against rdma-core"
	exit 1
}

# 3. The same names in ours; none of rdma-core's headers may stand in.
fail=0
ours_inc=""
for h in $hdrs; do
	if [ -f "$ROOT/include/$h" ]; then
		ours_inc="$ours_inc,$h"
	else
		echo "MISSING header $h"
		fail=1
	fi
done
$NAMES ours-probe names.txt values.txt "$ours_inc" ours.c
$CC -std=gnu11 -w -fmax-errors=0 -I"$ROOT/include" -fsyntax-only ours.c \
	2>ours.err
$NAMES verdict names.txt values.txt ours.c ours.err >verdict.txt || fail=1
if $CC -std=gnu11 -w -I"$ROOT/include" -M ours.c 2>/dev/null |
	tr -d '\\' | tr ' ' '\n' | grep -E '/include/infiniband/' |
	grep -v "^$ROOT/include/"; then
	echo "FAIL: ours includes rdma-core's headers (above)"
	fail=1
fi
# The checks can fail: with one value, one size and one offset altered
# and a name rdma-core does not have, exactly those four are reported.
cp names.txt neg-names.txt
echo "const PV_NAMES_NO_SUCH_NAME" >>neg-names.txt
e1=$(awk '$1 == "enumerator" { print $2; exit }' names.txt)
t1=$(awk '$1 == "tag_struct" { print $2; exit }' names.txt)
m1=$(awk '$1 == "member" { print $2; exit }' names.txt)
awk -v e="$e1" -v t="$t1" -v m="$m1" '$1 == e { $2 = $2 + 1 }
	$1 == t { $2 = $2 + 8 } $1 == m { $2 = $2 + 4 } { print }' \
	values.txt >neg-values.txt
echo "PV_NAMES_NO_SUCH_NAME 1 4 1" >>neg-values.txt
$NAMES ours-probe neg-names.txt neg-values.txt "$ours_inc" neg.c
$CC -std=gnu11 -w -fmax-errors=0 -I"$ROOT/include" -fsyntax-only neg.c \
	2>neg.err
$NAMES verdict neg-names.txt neg-values.txt neg.c neg.err >neg.txt
neg=$(grep -E '^(DIFFERS|MISSING)' neg.txt | awk '{print $1 "-" $3}' |
	sort | tr '\n' ' ')
want=$(printf '%s\n' "DIFFERS-$e1" "DIFFERS-$t1" "DIFFERS-$m1" \
	"MISSING-PV_NAMES_NO_SUCH_NAME" | sort | tr '\n' ' ')
if [ "$neg" != "$want" ]; then
	echo "FAIL: the negative control reported '$neg', not '$want'"
	fail=1
fi
if [ $fail != 0 ] && [ -n "${PV_NAMES_KEEP:-}" ]; then
	cp verdict.txt names.txt values.txt "$PV_NAMES_KEEP"/
fi
grep -v '^names:' verdict.txt | head -n 400
echo "headers: $hdrs"
grep '^names:' verdict.txt
[ $fail = 0 ] || exit 1
echo "PASS: every public name of rdma-core's verbs headers is in ours"
exit 0
