#!/bin/sh
# SPDX-License-Identifier: MIT
# The vm tier: boots one VM (Debian 12's kernel with rdma_rxe under qemu,
# lib/vm.sh) and runs every tests/vm/t_*.sh against it, each under a time
# limit, then powers it off.  Prints one line per test in run-tests.sh's
# style, the timings, and a closing "vm: N passed, N failed, N skipped".
# Exits 77 (SKIP: why) only when the VM cannot run here, 1 when a test
# failed or the VM did not boot.
#   VM_TESTS="t_rxe_up t_cm_up"   runs only those
#   VM_TEST_TIMEOUT=300           per-test limit in seconds
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
export PV_ROOT PV_BUILD
. "$PV_ROOT/tests/vm/lib/vm.sh"

T_ALL=$(date +%s)
vm_test_init
T_TESTS=$(date +%s)
pass=0 fail=0 skip=0
for t in "$PV_ROOT"/tests/vm/t_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case " ${VM_TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
	log=$VM_WORK/$name.log
	start=$(date +%s)
	# In the background so a TERM to this runner is handled at once
	# (vm_exit stops the test, then the VM) rather than after the test.
	timeout "${VM_TEST_TIMEOUT:-300}" sh "$t" >"$log" 2>&1 &
	VM_CUR_PID=$!
	wait "$VM_CUR_PID"
	rc=$?
	VM_CUR_PID=
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   vm/$name (${secs}s)" ;;
	77) skip=$((skip + 1))
	    echo "skip vm/$name: $(grep -m1 '^SKIP' "$log" | cut -c7-)" ;;
	*) fail=$((fail + 1))
	   echo "FAIL vm/$name (rc $rc, ${secs}s; log $log)"
	   tail -25 "$log" | sed 's/^/    /' ;;
	esac
	# A test that broke the VM fails the rest rather than hanging them.
	pid_alive "$VM_QEMU_PID" || { echo "vm: qemu is gone"; vm_boot_log; fail=$((fail + 1)); break; }
done
T_OFF=$(date +%s)
vm_poweroff
T_END=$(date +%s)
echo "vm: boot ${VM_BOOT_SECS}s, tests $((T_OFF - T_TESTS))s," \
	"poweroff $((T_END - T_OFF))s, total $((T_END - T_ALL))s; logs in $VM_WORK"
echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
