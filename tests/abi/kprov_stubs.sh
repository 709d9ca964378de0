#!/bin/sh
# Which IBVERBS_PRIVATE_34 symbols Debian's providers import are still
# stubs in our libibverbs.so.1 (issue 16).  The import set: every
# IBVERBS_PRIVATE_34 symbol the provider plugins (lib*-rdmav34.so) and
# the direct-verbs libraries (libmlx5, libmlx4, libefa, libmana) leave
# undefined (nm -D).  The stubs: the exported functions libverbs/
# lv_private.o still defines (its stubs fail with EOPNOTSUPP).  Every
# remaining stub of the import set is listed, and fails the check; so
# does any of the provider ABI's commands (MINE below) that is a stub or
# missing from our exports.
# Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OURS="$BUILD/lib/libibverbs.so.1"
STUBS_O="$BUILD/obj/libverbs/lv_private.o"
MA=${PV_MULTIARCH:-x86_64-linux-gnu}
PDIR=${PV_PROVIDER_DIR:-/usr/lib/$MA/libibverbs}

MINE="ibv_cmd_rereg_mr ibv_cmd_query_mr ibv_cmd_reg_dmabuf_mr
ibv_cmd_advise_mr ibv_cmd_alloc_mw ibv_cmd_dealloc_mw ibv_cmd_open_xrcd
ibv_cmd_close_xrcd ibv_cmd_open_qp ibv_cmd_create_wq ibv_cmd_modify_wq
ibv_cmd_destroy_wq ibv_cmd_create_rwq_ind_table
ibv_cmd_destroy_rwq_ind_table ibv_cmd_create_flow ibv_cmd_destroy_flow
ibv_cmd_create_flow_action_esp ibv_cmd_modify_flow_action_esp
ibv_cmd_destroy_flow_action ibv_cmd_create_counters
ibv_cmd_destroy_counters ibv_cmd_read_counters ibv_cmd_alloc_dm
ibv_cmd_free_dm ibv_cmd_reg_dm_mr
ibv_cmd_create_qp_ex ibv_cmd_create_qp_ex2 ibv_cmd_modify_qp_ex
ibv_cmd_query_qp ibv_cmd_create_cq_ex ibv_cmd_resize_cq ibv_cmd_modify_cq
ibv_cmd_create_srq_ex ibv_cmd_modify_srq ibv_cmd_query_srq
ibv_cmd_attach_mcast ibv_cmd_detach_mcast ibv_cmd_query_context
ibv_cmd_post_send ibv_cmd_post_recv ibv_cmd_post_srq_recv ibv_cmd_poll_cq"

[ -f "$OURS" ] || { echo "FAIL: $OURS not built"; exit 1; }
[ -f "$STUBS_O" ] || { echo "FAIL: $STUBS_O not built"; exit 1; }
command -v nm >/dev/null || { echo "SKIP: nm (binutils) missing"; exit 77; }
set -- "$PDIR"/lib*-rdmav34.so
[ -e "$1" ] || { echo "SKIP: no provider plugins in $PDIR (ibverbs-providers)"; exit 77; }
LIBS="$*"
for d in libmlx5.so.1 libmlx4.so.1 libefa.so.1 libmana.so.1; do
	[ -e "/usr/lib/$MA/$d" ] && LIBS="$LIBS /usr/lib/$MA/$d"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-kprov-stubs.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

# shellcheck disable=SC2086
nm -D --undefined-only $LIBS 2>/dev/null |
	sed -n 's/^ *U \([A-Za-z0-9_]*\)@IBVERBS_PRIVATE_34$/\1/p' |
	sort -u >"$WORK/imports"
n_imp=$(wc -l <"$WORK/imports")
[ "$n_imp" -gt 0 ] || { echo "FAIL: no IBVERBS_PRIVATE_34 imports found in $PDIR"; exit 1; }
nm --defined-only "$STUBS_O" | awk '$2 == "T" { print $3 }' | sort -u \
	>"$WORK/stubs"
nm -D --defined-only "$OURS" |
	sed -n 's/^[0-9a-f]* [TD] \([A-Za-z0-9_]*\)@@*IBVERBS_PRIVATE_34$/\1/p' |
	sort -u >"$WORK/exported"
comm -12 "$WORK/imports" "$WORK/stubs" >"$WORK/left"
echo "$n_imp IBVERBS_PRIVATE_34 imports; $(wc -l <"$WORK/left") still stubs:"
sed 's/^/    /' "$WORK/left"

fail=0
[ -s "$WORK/left" ] && { echo "FAIL: imported by Debian's providers and still stubs (above)"; fail=1; }
n_mine=0
for s in $MINE; do
	n_mine=$((n_mine + 1))
	if grep -qx "$s" "$WORK/stubs"; then
		echo "FAIL: $s is still a stub (lv_private.c)"
		fail=1
	fi
	if ! grep -qx "$s" "$WORK/exported"; then
		echo "FAIL: $s is not exported as IBVERBS_PRIVATE_34"
		fail=1
	fi
	grep -qx "$s" "$WORK/imports" || echo "note: $s is imported by none of the providers here"
done
[ "$fail" = 0 ] || exit 1
echo "PASS: kprov_stubs: no import of the providers is a stub; the $n_mine provider-ABI commands are real and exported"
