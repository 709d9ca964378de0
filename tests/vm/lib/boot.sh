# SPDX-License-Identifier: MIT
# vm tier: qemu (POSIX sh; sourced by vm.sh).
#
#   vm_qemu_start        boots the cached kernel + initramfs on the node's
#                        TAP; console in $VM_WORK/console.log
#   vm_wait_ready        until the guest agent is up (VM_BOOT_TIMEOUT s)
#   vm_poweroff          asks the agent to power off, waits, then kills
#
# TCG, not KVM: KVM on these machines hangs a stock kernel after "Booting
# from ROM".  TCG runs the kernel correctly at a fraction of the speed,
# which the tier's small iteration counts and time limits allow for.

VM_SMP=${VM_SMP:-2}
VM_MEM=${VM_MEM:-1024}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-300}

vm_qemu_start() {
	need_cmd qemu-system-x86_64
	_append="console=ttyS0 quiet panic=-1 pv.work=$VM_WORK"
	_append="$_append pv.kroot=$VM_KROOT pv.agent=$VM_LIB/guest-agent.sh"
	# no_timer_check: under TCG on a loaded host the kernel's IO-APIC
	# timer check can miss its ticks and panic ("IO-APIC + timer doesn't
	# work", seen once); the emulated timer works, the check is skipped.
	_append="$_append no_timer_check"
	VM_T_BOOT=$(date +%s)
	# -no-reboot + panic=-1: a guest panic ends qemu instead of looping.
	# --pdeathsig: qemu dies with the shell that started it even when that
	# shell is SIGKILLed and runs no trap (the namespace, and so the TAP,
	# is then swept by the next run's topo_init).
	vm_node setpriv --pdeathsig KILL qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-smp "$VM_SMP" -m "$VM_MEM" -no-reboot -nodefaults \
		-display none -monitor none \
		-serial "file:$VM_WORK/console.log" \
		-kernel "$VM_VMLINUZ" -initrd "$VM_INITRD" -append "$_append" \
		-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$VM_WORK,mount_tag=work,security_model=none,multidevs=remap" \
		-netdev "tap,id=n0,ifname=$VM_TAP,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n0,mac=$VM_MAC,romfile=" \
		>"$VM_WORK/qemu.log" 2>&1 &
	# ip netns exec and setpriv exec qemu: $! is qemu's pid.
	VM_QEMU_PID=$!
	export VM_QEMU_PID VM_T_BOOT
	topo_track_pid "$VM_QEMU_PID"
}

vm_wait_ready() {
	_end=$(( $(date +%s) + VM_BOOT_TIMEOUT ))
	while [ ! -e "$VM_WORK/ctl/ready" ]; do
		if ! pid_alive "$VM_QEMU_PID"; then
			vm_boot_log
			fail "qemu exited during boot: $(tail -3 "$VM_WORK/qemu.log")"
		fi
		if [ "$(date +%s)" -ge "$_end" ]; then
			vm_boot_log
			fail "the VM was not ready within $VM_BOOT_TIMEOUT s"
		fi
		sleep 0.2
	done
	VM_BOOT_SECS=$(( $(date +%s) - VM_T_BOOT ))
	export VM_BOOT_SECS
	echo "vm: booted $VM_KVER in ${VM_BOOT_SECS}s (TCG, $VM_SMP vCPU," \
		"$VM_MEM MiB); logs in $VM_WORK"
}

vm_boot_log() {
	echo "--- console.log (tail):"
	tail -30 "$VM_WORK/console.log" 2>/dev/null
	echo "--- agent.log:"
	cat "$VM_WORK/agent.log" 2>/dev/null
}

# vm_poweroff: clean shutdown, bounded; qemu is killed if it does not end
# (and topo_cleanup kills it on any exit path anyway).
vm_poweroff() {
	[ -n "${VM_QEMU_PID:-}" ] || return 0
	if pid_alive "$VM_QEMU_PID"; then
		: >"$VM_WORK/ctl/poweroff"
		wait_until 30 pid_gone "$VM_QEMU_PID" ||
			echo "vm: no clean poweroff in 30 s; killing qemu"
		stop_pid "$VM_QEMU_PID"
	fi
	VM_QEMU_PID=
}
