# SPDX-License-Identifier: MIT
# vm tier: run commands in the VM (POSIX sh; sourced by vm.sh).  The host
# side of the control channel guest-agent.sh describes: files in the work
# share, every wait bounded.
#
#   vm_run SECS 'SCRIPT'          runs SCRIPT (bash, in the VM, as root);
#                                 prints its output, returns its status
#                                 (124/137: the time limit killed it)
#   vm_start VAR SECS 'SCRIPT'    the same without waiting: VAR gets an id
#   vm_wait ID                    waits for it: output and status
#
# A host-side limit of SECS + 20 s covers a guest too slow to even report
# the kill; vm_wait then returns 124 too.

VM_CTL_SEQ=0

vm_start() {
	_vs_var=$1 _vs_to=$2
	[ -d "$VM_WORK/ctl" ] || fail "no VM session (vm_test_init first)"
	VM_CTL_SEQ=$((VM_CTL_SEQ + 1))
	_vs_id=h$$-$VM_CTL_SEQ-$(date +%s%N)
	printf '%s\n' "$_vs_to" >"$VM_WORK/ctl/$_vs_id.to"
	printf '%s\n' "$3" >"$VM_WORK/ctl/$_vs_id.tmp"
	# The rename is what the agent looks for: it never sees half a script.
	mv "$VM_WORK/ctl/$_vs_id.tmp" "$VM_WORK/ctl/$_vs_id.sh"
	eval "$_vs_var=\$_vs_id:\$_vs_to"
}

vm_wait() {
	_vw_id=${1%%:*} _vw_to=${1#*:}
	_vw_f=$VM_WORK/ctl/$_vw_id
	_vw_end=$(( $(date +%s) + _vw_to + 20 ))
	while [ ! -e "$_vw_f.rc" ]; do
		if [ "$(date +%s)" -ge "$_vw_end" ] || ! pid_alive "$VM_QEMU_PID"
		then
			cat "$_vw_f.out" 2>/dev/null
			echo "vm: no status from the VM for $_vw_id"
			return 124
		fi
		sleep 0.1
	done
	cat "$_vw_f.out" 2>/dev/null
	_vw_rc=$(cat "$_vw_f.rc")
	rm -f "$_vw_f.sh" "$_vw_f.to" "$_vw_f.out" "$_vw_f.rc"
	return "${_vw_rc:-125}"
}

vm_run() {
	vm_start _vr_id "$1" "$2"
	vm_wait "$_vr_id"
}
