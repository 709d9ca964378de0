#!/bin/sh
# SPDX-License-Identifier: MIT
# The MR/MW/XRC/WQ/flow/counter/DM part of the provider ABI on a real
# kernel (issue 16): in the VM, over OUR libibverbs with Debian's librxe
# on rxe0, lib/kprov_mw.c (built here against Debian's verbs.h) binds
# type 1 and type 2 memory windows on a loopback RC QP and reads through
# them, checks ibv_rereg_mr's result where rxe has no rereg (rdma-core's
# IBV_REREG_MR_ERR_CMD, errno EOPNOTSUPP), queries the MR with
# ibv_cmd_query_mr (the kernel's QUERY_MR ioctl), and gets EOPNOTSUPP,
# not a crash, for XRC, WQ, RSS tables, flows, flow actions, counters,
# DM, dma-buf MRs, advise_mr and open_qp.  LD_DEBUG=files proves which
# libibverbs.so.1 ran and that librxe's constructor did.  The same binary
# then runs over Debian's own libibverbs (rdma-core 44) on the same
# kernel and must pass the same checks: our results are rdma-core's.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init
vm_rxe_up

[ -e /usr/include/infiniband/verbs.h ] ||
	skip "Debian's <infiniband/verbs.h> missing (libibverbs-dev)"
${CC:-cc} -O2 -Wall -o "$VM_WORK/kprov_mw" "$VM_LIB/kprov_mw.c" \
	-L"$PV_BUILD/lib" -libverbs || fail "cc: tests/vm/lib/kprov_mw.c"

out=$(vm_run 120 "LD_LIBRARY_PATH=$PV_BUILD/lib LD_DEBUG=files \
	timeout 100 $VM_WORK/kprov_mw rxe0 2>&1; echo \"rc=\$?\"") ||
	fail "kprov_mw in the VM: $out"
echo "$out" | grep -E '^(ok|FAIL|kprov_mw):' | sed 's/^/    /'
echo "$out" | grep -q "calling init: $PV_BUILD/lib/libibverbs.so.1" ||
	fail "our libibverbs.so.1 was not the one loaded: $(echo "$out" | grep 'libibverbs.so.1' | head -3)"
echo "$out" | grep -Eq 'calling init: .*/libibverbs/librxe-rdmav34.so' ||
	fail "Debian's librxe was not loaded: $(echo "$out" | grep -E 'rxe|init:' | head -5)"
echo "$out" | grep -q '^rc=0$' ||
	fail "kprov_mw failed: $(echo "$out" | grep -E '^(FAIL|rc=)')"
n=$(echo "$out" | sed -n 's/^kprov_mw: \([0-9]*\) checks passed.*/\1/p')
[ "${n:-0}" -ge 7 ] || fail "kprov_mw ran ${n:-0} checks, want 7"

ref=$(vm_run 120 "LD_DEBUG=files timeout 100 $VM_WORK/kprov_mw rxe0 2>&1; \
	echo \"rc=\$?\"") || fail "kprov_mw over Debian's libibverbs: $ref"
echo "$ref" | grep -Eq "calling init: /(usr/)?lib/$(uname -m)-linux-gnu/libibverbs.so.1" ||
	fail "Debian's libibverbs.so.1 was not the one loaded: $(echo "$ref" | grep 'libibverbs.so.1' | head -3)"
m=$(echo "$ref" | sed -n 's/^kprov_mw: \([0-9]*\) checks passed.*/\1/p')
echo "$ref" | grep -q '^rc=0$' && [ "${m:-0}" = "$n" ] ||
	fail "over rdma-core's libibverbs the checks differ: $(echo "$ref" | grep -E '^(FAIL|rc=|kprov_mw:)')"
echo "PASS: rxe0 over our libibverbs + Debian's librxe: MW type 1/2 bind and READ, rereg_mr result, query_mr, $n checks, as over rdma-core's libibverbs"
