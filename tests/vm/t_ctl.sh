#!/bin/sh
# SPDX-License-Identifier: MIT
# The control channel every vm test relies on (lib/ctl.sh and the guest
# agent): exit statuses and output (stdout and stderr) come back, the time
# limit kills a hung command and reports 124, and commands run concurrently
# (a server in the VM while the host or another command talks to it).
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init

out=$(vm_run 20 'echo "out $(uname -r)"; echo err >&2; exit 3')
rc=$?
echo "$out"
[ $rc = 3 ] || fail "exit status 3 came back as $rc"
echo "$out" | grep -qx "out $VM_KVER" || fail "stdout lost (or not Debian's kernel)"
echo "$out" | grep -qx err || fail "stderr lost"

t0=$(date +%s)
vm_run 2 'sleep 60' >/dev/null
rc=$?
secs=$(( $(date +%s) - t0 ))
echo "a 2 s limit on sleep 60: rc $rc after ${secs}s"
[ $rc = 124 ] || fail "a timed-out command returned $rc, want 124"
[ $secs -lt 20 ] || fail "the time limit took ${secs}s"

flag=$VM_WORK/ctl-flag-$$
vm_start waiter 30 "while [ ! -e $flag ]; do sleep 0.1; done; echo released"
vm_run 20 "touch $flag" || fail "second command while the first runs"
out=$(vm_wait "$waiter") || fail "the waiting command failed: $out"
rm -f "$flag"
[ "$out" = released ] || fail "concurrent commands: got '$out'"
echo "PASS: status 3 and both streams back, 2 s limit -> 124 in ${secs}s, concurrent commands"
