#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel devices over OUR libibverbs with Debian's provider (issue 16): in
# the VM, with rxe0 up, LD_LIBRARY_PATH=<build>/lib makes Debian's tools
# load our libibverbs.so.1, which loads Debian's librxe-rdmav34.so from
# /etc/libibverbs.d and drives /dev/infiniband/uverbs0 through it:
#  1. ibv_devinfo -v lists rxe0 with port 1 ACTIVE (LD_DEBUG=files proves
#     which libibverbs was loaded and that librxe's constructor ran);
#  2. ibv_rc_pingpong server and client over rxe0 in the VM (loopback
#     through the kernel's rxe): RC send/recv over our library's verbs
#     dispatch, librxe's data path and our ibv_cmd_* write ABI.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init
vm_rxe_up

L="LD_LIBRARY_PATH=$PV_BUILD/lib"
out=$(vm_run 90 "$L LD_DEBUG=files ibv_devinfo -v -d rxe0 2>&1") ||
	fail "ibv_devinfo over our library: $out"
echo "$out" | grep -E 'hca_id|state:|link_layer|GID\[ *1\]' | head -8
echo "$out" | grep -q "calling init: $PV_BUILD/lib/libibverbs.so.1" ||
	fail "our libibverbs.so.1 was not the one loaded: $(echo "$out" | grep 'libibverbs.so.1' | head -3)"
echo "$out" | grep -Eq 'calling init: .*/libibverbs/librxe-rdmav34.so' ||
	fail "Debian's librxe was not loaded: $(echo "$out" | grep -E 'rxe|init:' | head -5)"
echo "$out" | grep -q 'hca_id:.*rxe0' || fail "ibv_devinfo does not list rxe0: $out"
echo "$out" | grep -q 'state:.*PORT_ACTIVE' || fail "port 1 not PORT_ACTIVE: $out"
echo "$out" | grep -Eq "GID\[ *1\]:.*::ffff:$VM_IP" || fail "GID[1] is not ::ffff:$VM_IP"

out=$(vm_run 120 "
	$L timeout 90 ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p 18515 >\$VM_WORK/kprov-srv.out 2>&1 &
	srv=\$!
	sleep 2
	$L timeout 80 ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p 18515 127.0.0.1 2>&1
	c=\$?
	wait \$srv; s=\$?
	echo \"server(\$s):\"; cat \$VM_WORK/kprov-srv.out
	echo \"rc client=\$c server=\$s\"") || fail "ibv_rc_pingpong over our library: $out"
echo "$out" | sed 's/^/    /'
echo "$out" | grep -q 'rc client=0 server=0' || fail "ibv_rc_pingpong failed"
echo "$out" | grep -Eq '20 iters' || fail "ibv_rc_pingpong did not finish 20 iterations"
echo "PASS: rxe0 over our libibverbs + Debian's librxe: ibv_devinfo, ibv_rc_pingpong loopback"
