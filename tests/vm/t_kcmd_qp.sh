#!/bin/sh
# SPDX-License-Identifier: MIT
# The QP/CQ/SRQ commands of the provider ABI (issue 16, part 1) on a kernel
# device: in the VM, with rxe0 up, our libibverbs.so.1 (LD_LIBRARY_PATH)
# loads Debian's librxe, which calls our ibv_cmd_create_cq_ex (over the
# ioctl ABI), ibv_cmd_resize_cq, ibv_cmd_create_qp_ex2, ibv_cmd_query_qp,
# ibv_cmd_create_srq_ex, ibv_cmd_modify_srq, ibv_cmd_query_srq and
# ibv_cmd_attach/detach_mcast against the kernel's uverbs:
#  1. kcmd-probe (tests/vm/kcmd_probe.c) checks each result and moves a
#     SEND and an RDMA WRITE over the create_qp_ex QP in loopback;
#     LD_DEBUG=files proves our library and librxe were loaded, strace
#     that two RDMA_VERBS_IOCTL were made (nothing else of ours or
#     librxe's uses it): the CQ create, successful, and query_context;
#     kcmd-probe also calls ibv_cmd_query_context and ibv_cmd_post_send
#     itself, which the kernel's uverbs parses (no provider here uses them);
#  2. Debian's ibv_srq_pingpong and ibv_ud_pingpong in loopback over our
#     library (LD_DEBUG=files on the client proves it).
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
PROBE=$PV_BUILD/tests/bin/kcmd-probe
[ -x "$PROBE" ] || { echo "FAIL: $PROBE not built (make)"; exit 1; }
command -v strace >/dev/null ||
	{ echo "SKIP: strace missing (the ioctl path cannot be shown)"; exit 77; }
vm_test_init
vm_rxe_up

L="LD_LIBRARY_PATH=$PV_BUILD/lib"
out=$(vm_run 120 "strace -f -qq -o \$VM_WORK/kcmd.strace -e trace=ioctl \
	env $L LD_DEBUG=files timeout 100 $PROBE rxe0 1 2>&1; echo \"rc=\$?\"") ||
	fail "kcmd-probe did not run: $out"
echo "$out" | grep -E '^(ok|FAIL):' | sed 's/^/    /'
echo "$out" | grep -q "calling init: $PV_BUILD/lib/libibverbs.so.1" ||
	fail "our libibverbs.so.1 was not the one loaded: $(echo "$out" | grep 'libibverbs.so.1' | head -3)"
echo "$out" | grep -Eq 'calling init: .*/libibverbs/librxe-rdmav34.so' ||
	fail "Debian's librxe was not loaded: $(echo "$out" | grep -E 'rxe|init:' | head -5)"
echo "$out" | grep -q '^rc=0' || fail "kcmd-probe failed: $(echo "$out" | grep -E 'FAIL|rc=')"
echo "$out" | grep -q '^ok: all' || fail "kcmd-probe did not finish"
# The create_cq_ex ioctl succeeded; query_context's reached the kernel's
# method handler, which rxe answers EOPNOTSUPP (no query_ucontext; an
# attribute the kernel did not accept would be EINVAL/EPROTONOSUPPORT).
tr=$(vm_run 30 "grep RDMA_VERBS_IOCTL \$VM_WORK/kcmd.strace") ||
	fail "no RDMA_VERBS_IOCTL in the strace: $tr"
echo "$tr" | sed 's/^[0-9]* */    strace: /'
n=$(echo "$tr" | grep -c ' = 0$')
nq=$(echo "$tr" | grep -Ec ' = 0$|EOPNOTSUPP')
[ "$n" -ge 1 ] || fail "no RDMA_VERBS_IOCTL succeeded (create_cq_ex fell back?)"
[ "$nq" -ge 2 ] || fail "query_context's RDMA_VERBS_IOCTL is missing or failed otherwise"

# Debian's pingpongs, server and client in the VM (loopback over rxe0).
pp() {	# NAME TOOL-AND-ARGS
	o=$(vm_run 150 "
		$L timeout 120 $2 -p 18516 >\$VM_WORK/$1-srv.out 2>&1 &
		srv=\$!
		sleep 3
		$L LD_DEBUG=files timeout 110 $2 -p 18516 127.0.0.1 2>&1
		c=\$?
		wait \$srv; s=\$?
		echo \"server(\$s):\"; cat \$VM_WORK/$1-srv.out
		echo \"rc client=\$c server=\$s\"") || fail "$1 over our library: $o"
	echo "$o" | grep -E 'iters|rc client' | sed "s/^/    $1: /"
	echo "$o" | grep -q "calling init: $PV_BUILD/lib/libibverbs.so.1" ||
		fail "$1's client did not load our libibverbs.so.1"
	echo "$o" | grep -q 'rc client=0 server=0' || fail "$1 failed: $o"
	[ "$(echo "$o" | grep -c '20 iters')" -ge 2 ] ||
		fail "$1 did not finish 20 iterations on both sides: $o"
}
pp srq-pp "ibv_srq_pingpong -d rxe0 -g 1 -n 20 -q 4"
pp ud-pp "ibv_ud_pingpong -d rxe0 -g 1 -n 20 -s 512"
echo "PASS: rxe0 over our libibverbs + librxe: create_cq_ex (ioctl), resize_cq, create_qp_ex + query_qp through RTS with SEND and RDMA WRITE, srq/srq_ex modify/query, UD mcast attach/detach, ibv_cmd_post_send and ibv_cmd_query_context parsed by the kernel; ibv_srq_pingpong, ibv_ud_pingpong loopback"
