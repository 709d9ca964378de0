#!/bin/sh
# Layouts of the provider ABI (issue 16): Debian's kernel providers were
# compiled against rdma-core 44's private driver.h and cmd_ioctl.h, which
# Debian does not ship (libibverbs-dev has only the public headers), so
# there is no header to compile a reference probe against here.  The
# reference is kprov_layout.expected: every size and field offset of
# verbs_match_ent, verbs_sysfs_dev, verbs_device_ops, verbs_device,
# verbs_context_ops, verbs_mr/qp/cq/srq/xrcd, verbs_flow_action, verbs_dm,
# verbs_counters and ibv_command_buffer, printed on x86_64 by a probe
# compiled once from rdma-core v44.0's driver.h/cmd_ioctl.h struct text.
# This script compiles the same probe over our libverbs/lv_kern_abi.h and
# compares line by line.  Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
EXP="$ROOT/tests/abi/kprov_layout.expected"

[ "$(uname -m)" = x86_64 ] || { echo "SKIP: the reference is x86_64's"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-kprov-lay.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

awk '$1 == "sizeof" { printf "S(%s)\n", $2 }
     $1 == "offsetof" { split($2, a, "."); printf "O(%s,%s)\n", a[1], a[2] }' \
	"$EXP" >"$WORK/list.inc"
cat >"$WORK/probe.c" <<'PROBE'
#include <stdio.h>
#include "libverbs/lv_kern_abi.h"
#define S(t) printf("sizeof %s %zu\n", #t, sizeof(struct t));
#define O(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(struct t, f));
int main(void)
{
#include "list.inc"
	return 0;
}
PROBE
"$CC" -o "$WORK/probe" -I"$ROOT" -I"$ROOT/include" -I"$WORK" "$WORK/probe.c" ||
	{ echo "FAIL: layout probe does not build over lv_kern_abi.h"; exit 1; }
"$WORK/probe" >"$WORK/ours" || { echo "FAIL: probe"; exit 1; }
n=$(wc -l <"$EXP")
if ! diff -u "$EXP" "$WORK/ours" >"$WORK/diff"; then
	echo "FAIL: provider ABI layouts differ from rdma-core 44's:"
	sed 's/^/    /' "$WORK/diff"
	exit 1
fi
echo "PASS: kprov_layout: $n sizes and offsets equal to rdma-core 44's"
