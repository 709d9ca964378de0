#!/bin/sh
# The provider ABI still stubbed (issue 16): the IBVERBS_PRIVATE_34 symbols
# Debian's providers import (ibverbs-providers' plugins and the
# direct-verbs libraries) that our library still answers from
# libverbs/lv_private.c's STUB_* entries (EOPNOTSUPP without doing
# anything).  A stub is a symbol that lv_private.o defines (nm of the
# built object; the STUB_ lines of the source when it is absent).
# Every remaining stub is listed; the test fails for those in OWNED, the
# set whose real commands are in libverbs/lv_cmd_{qp,cq_srq,post,ctx}.c
# (QP/CQ/SRQ, post/poll over the cmd fd, context; the MR/MW/XRC/WQ/flow/
# counters/DM part keeps its own list until the two are merged), and
# for an OWNED symbol our library does not export.
# Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OURS="$BUILD/lib/libibverbs.so.1"
MA=${PV_MULTIARCH:-x86_64-linux-gnu}
PDIR=${PV_PROVIDER_DIR:-/usr/lib/$MA/libibverbs}
OWNED="ibv_cmd_create_qp_ex ibv_cmd_create_qp_ex2 ibv_cmd_modify_qp_ex
ibv_cmd_query_qp ibv_cmd_create_cq_ex ibv_cmd_resize_cq ibv_cmd_modify_cq
ibv_cmd_create_srq_ex ibv_cmd_modify_srq ibv_cmd_query_srq
ibv_cmd_attach_mcast ibv_cmd_detach_mcast ibv_cmd_query_context
ibv_cmd_post_send ibv_cmd_post_recv ibv_cmd_post_srq_recv ibv_cmd_poll_cq
ibv_register_driver"

[ -f "$OURS" ] || { echo "FAIL: $OURS not built"; exit 1; }
command -v nm >/dev/null || { echo "SKIP: nm (binutils) missing"; exit 77; }
set -- "$PDIR"/lib*-rdmav34.so
[ -e "$1" ] || { echo "SKIP: no provider plugins in $PDIR (ibverbs-providers)"; exit 77; }
LIBS="$*"
for d in libmlx5.so.1 libmlx4.so.1 libefa.so.1 libmana.so.1; do
	[ -e "/usr/lib/$MA/$d" ] && LIBS="$LIBS /usr/lib/$MA/$d"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-kprov-stubs.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0

# shellcheck disable=SC2086
for l in $LIBS; do
	nm -D --undefined-only "$l" | awk '{ print $NF }' |
		grep '@IBVERBS_PRIVATE_34$' | sed 's/@.*//'
done | sort -u >"$WORK/imports"
[ "$(wc -l <"$WORK/imports")" -gt 40 ] ||
	{ echo "FAIL: read only $(wc -l <"$WORK/imports") imports"; exit 1; }

OBJ="$BUILD/obj/libverbs/lv_private.o"
if [ -f "$OBJ" ]; then
	nm --defined-only "$OBJ" | awk '$2 == "T" { print $3 }' | sort -u >"$WORK/stubs"
	from=$OBJ
else
	sed -n 's/^STUB_[A-Z]*(\([a-z_0-9]*\))$/\1/p' "$ROOT/libverbs/lv_private.c" |
		sort -u >"$WORK/stubs"
	from="$ROOT/libverbs/lv_private.c"
fi
nm -D --defined-only "$OURS" | awk '{ print $NF }' | sed 's/@.*//' |
	sort -u >"$WORK/exports"
echo "$OWNED" | tr ' ' '\n' | sed '/^$/d' | sort -u >"$WORK/owned"

stubbed=$(comm -12 "$WORK/imports" "$WORK/stubs")
echo "provider imports still stubbed ($from): $(echo "$stubbed" | sed '/^$/d' | wc -l) of $(wc -l <"$WORK/imports")"
echo "$stubbed" | sed '/^$/d' | tr '\n' ' ' | fold -s -w 76 | sed 's/^/    /'
echo

bad=$(comm -12 "$WORK/owned" "$WORK/stubs")
if [ -n "$bad" ]; then
	echo "FAIL: still stubs in this set:"
	echo "$bad" | sed 's/^/    /'
	fail=1
fi
missing=$(comm -23 "$WORK/owned" "$WORK/exports")
if [ -n "$missing" ]; then
	echo "FAIL: not exported by $OURS:"
	echo "$missing" | sed 's/^/    /'
	fail=1
fi
n=$(wc -l <"$WORK/owned")
ni=$(comm -12 "$WORK/owned" "$WORK/imports" | wc -l)
[ "$fail" = 0 ] &&
	echo "PASS: all $n symbols of the QP/CQ/SRQ/post/context set are real ($ni of them imported by Debian's providers)"
exit "$fail"
