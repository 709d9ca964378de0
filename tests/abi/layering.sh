#!/bin/sh
# Layering (issue 9): the include and call graphs point only downward.
#  1. no file under common/ includes a header from outside common/ and
#     include/ (system headers are fine): common/ sits below the library,
#     the providers, the engine and the tools;
#  2. no object built from common/ calls a function defined anywhere else
#     in the tree (its call graph points only at libc);
#  3. the engine's file-level call graph (nm: the symbols each object
#     leaves undefined against those the others define) has no cycle but
#     the data-path look-ups allow-listed in tests/abi/layering.allow.
# Exit 0 pass, 77 skip, 1 fail.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OBJ=$BUILD/obj
HERE=$ROOT/tests/abi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || {
	echo "SKIP: python3 not installed"
	exit 77
}
if ! command -v nm >/dev/null 2>&1; then
	echo "SKIP: nm (binutils) not installed"
	exit 77
fi
if [ ! -f "$OBJ/providers/soft/engine/eng_main.o" ]; then
	echo "SKIP: $OBJ/providers/soft/engine/eng_main.o not built (run make first)"
	exit 77
fi

fail=0
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# objs_of DIR: the objects of DIR's sources (those of the tree today; a
# stale object whose source moved away is not looked at), test programs
# excluded: they sit above everything.
objs_of() {	# DIR empty: the whole tree
	find "$OBJ${1:+/$1}" -name '*.o' ! -path "$OBJ/tests/*" 2>/dev/null | sort |
	while read -r o; do
		src=${o#"$OBJ"/}
		[ -f "$ROOT/${src%.o}.c" ] && echo "$o"
	done
}

# 1. includes of common/: "..." must name common/ or include/; <...> must
# not name a header of the tree outside include/.
n=0
for f in "$ROOT"/common/*.c "$ROOT"/common/*.h; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	rel=${f#"$ROOT"/}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f" |
	while read -r inc; do
		path=$(printf '%s' "$inc" | cut -c2- | sed 's/.$//')
		case $inc in
		\"common/*) [ -f "$ROOT/$path" ] && continue ;;
		*) [ -f "$ROOT/include/$path" ] && continue ;;
		esac
		case $inc in
		\"*) echo "FAIL include: $rel includes $inc (not under common/ or include/)" ;;
		*) [ -e "$ROOT/$path" ] &&
			echo "FAIL include: $rel includes $inc (a header of the tree outside include/)" ;;
		esac
	done
done >"$BUILD/layering.inc" 2>&1
if [ "$n" = 0 ]; then
	bad "include: no source under $ROOT/common"
fi
if [ -s "$BUILD/layering.inc" ]; then
	cat "$BUILD/layering.inc"
	fail=$((fail + $(wc -l <"$BUILD/layering.inc")))
else
	echo "ok include: $n files under common/ include only common/, include/ and system headers"
fi
rm -f "$BUILD/layering.inc"

# 2. common/'s objects against every other object of the tree.
common_objs=$(objs_of common)
if [ -z "$common_objs" ]; then
	bad "calls: no object under $OBJ/common"
else
	other_objs=$(objs_of "" | grep -v "^$OBJ/common/")
	# shellcheck disable=SC2086
	up=$("$PY" "$HERE/layering_graph.py" edges $common_objs $other_objs |
		awk -v objs="$common_objs" '
			BEGIN { n = split(objs, o, "\n")
				for (i = 1; i <= n; i++) {
					sub(/.*\//, "", o[i]); sub(/\.o$/, "", o[i]); c[o[i]] = 1 } }
			($1 in c) && !($3 in c)')
	if [ -n "$up" ]; then
		printf '%s\n' "$up" | sed 's/^/FAIL calls: common\/ calls up: /'
		fail=$((fail + 1))
	else
		echo "ok calls: common/'s $(printf '%s\n' "$common_objs" | wc -l) objects call nothing of the tree above them"
	fi
fi

# 3. the engine: every object under providers/soft/engine (main included).
eng_objs=$(objs_of providers/soft/engine)
# shellcheck disable=SC2086
out=$("$PY" "$HERE/layering_graph.py" cycles "$HERE/layering.allow" $eng_objs)
rc=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
case $rc in
0) echo "ok cycles: $(printf '%s\n' "$eng_objs" | wc -l) engine objects, no call cycle beyond tests/abi/layering.allow" ;;
1) bad "cycles: the engine's file-level call graph has the cycles above" ;;
*) bad "cycles: layering_graph.py failed ($rc)" ;;
esac

[ "$fail" = 0 ] || exit 1
echo "PASS: common/ points only downward; engine call graph acyclic but allow-listed look-ups"
exit 0
