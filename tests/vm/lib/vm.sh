# SPDX-License-Identifier: MIT
# The vm tier's library (POSIX sh; sourced by tests/vm/run.sh and t_*.sh):
# Debian 12's kernel with rdma_rxe under qemu, as one node of the simulated
# cluster.  Boot once, run many:
#
#   . "$PV_ROOT/tests/vm/lib/vm.sh"
#   vm_test_init         topo_init, then attach to the VM run.sh booted
#                        (VM_WORK in the environment) or boot one for this
#                        script alone; the EXIT trap powers off what it
#                        booted and cleans up (qemu, TAP, namespaces)
#   vm_run 60 'ibv_devinfo'          a command in the VM (ctl.sh)
#   vm_node ping -c1 "$VM_IP"        a command on the VM's node (net.sh)
#   vm_rxe_up                        rdma_rxe + rxe0 on the VM's eth0
#
# Parts: kernel.sh (fetch + cache), initramfs.sh, guest-init.sh (/init),
# guest-agent.sh (the command loop in the VM), net.sh (node + TAP),
# boot.sh (qemu), ctl.sh (control channel), pod.sh (our pods on the node).
# The cache is $PV_BUILD/vm (VM_CACHE); a run's files (console, agent log,
# control files, captures) are in $VM_CACHE/run-<pid> (VM_WORK), kept
# until the next run.

. "$PV_ROOT/tests/lib/topo.sh"
VM_LIB=$PV_ROOT/tests/vm/lib
VM_CACHE=${VM_CACHE:-$PV_BUILD/vm}
for _part in kernel initramfs net boot ctl pod; do
	. "$VM_LIB/$_part.sh"
done

# vm_can_run: skips (77) where the tier cannot run, with the reason.
vm_can_run() {
	need_cmd qemu-system-x86_64 setpriv depmod modprobe apt-get dpkg
	[ -c /dev/net/tun ] || skip "no /dev/net/tun for the VM's TAP"
	[ -d "$PV_BUILD" ] || skip "no build folder $PV_BUILD"
}

# Deletes earlier runs' folders whose process is gone.
vm_sweep_runs() {
	for _d in "$VM_CACHE"/run-*; do
		[ -d "$_d" ] || continue
		_p=${_d##*/run-}
		case $_p in ''|*[!0-9]*) continue ;; esac
		[ "$_p" = $$ ] || [ -d "/proc/$_p" ] || rm -rf "$_d"
	done
}

# vm_boot: a VM for this shell (topo_init must have run).
vm_boot() {
	vm_can_run
	mkdir -p "$VM_CACHE" || fail "mkdir $VM_CACHE"
	vm_sweep_runs
	# Runs in parallel (CI, helpers) share the cache: one fills it.
	need_cmd flock
	exec 9>"$VM_CACHE/.lock"
	flock -w 600 9 || fail "the cache lock $VM_CACHE/.lock stayed held"
	vm_kernel_fetch
	vm_initramfs_build
	flock -u 9
	exec 9>&-
	VM_WORK=$VM_CACHE/run-$$
	rm -rf "$VM_WORK"
	mkdir -p "$VM_WORK/ctl" || fail "mkdir $VM_WORK"
	export VM_WORK
	vm_net_up
	printf 'VM_IP=%s\nVM_PREFIX=%s\nVM_GW=%s\nVM_MTU=%s\n' "$VM_IP" \
		"$VM_PREFIX" "$VM_GW" "$VM_MTU" >"$VM_WORK/vm.env"
	vm_qemu_start
	vm_wait_ready
	VM_OWNER=1
}

vm_test_init() {
	topo_init
	VM_OWNER=0
	# Attached to run.sh's VM, or boot one for this script alone.
	if [ -z "${VM_WORK:-}" ] || [ ! -e "$VM_WORK/ctl/ready" ] ||
		! pid_alive "${VM_QEMU_PID:-}"; then
		VM_WORK=
		vm_boot
	fi
	trap 'vm_exit' EXIT
}

# The EXIT trap: power off a VM this shell booted, then topo_cleanup
# (engine, tracked pids such as qemu and tcpdump, namespaces and so TAP).
vm_exit() {
	_ve_rc=$?
	# run.sh's current test first: it may be using the VM.
	[ -n "${VM_CUR_PID:-}" ] && stop_pid "$VM_CUR_PID"
	vm_capture_stop
	[ "${VM_OWNER:-0}" = 1 ] && vm_poweroff
	(exit "$_ve_rc")
	topo_cleanup
}

# vm_rxe_up: rdma_rxe loaded and rxe0 on the VM's eth0 (idempotent, so
# each test can run alone or after the others).
vm_rxe_up() {
	vm_run 120 '
		[ -e /sys/class/infiniband/rxe0 ] && exit 0
		modprobe rdma_rxe || exit 1
		rdma link add rxe0 type rxe netdev "$VM_IF" || exit 1
		# ib_core fills the GID table from the netdev asynchronously.
		for i in $(seq 100); do
			grep -q "^0000:0000:0000:0000:0000:ffff:" \
				/sys/class/infiniband/rxe0/ports/1/gids/1 && exit 0
			sleep 0.1
		done
		echo "rxe0: no IPv4-mapped GID at index 1"; exit 1' ||
		fail "rxe0 did not come up in the VM"
}

# vm_ipv4_gid IP: the IPv4-mapped GID of IP as the kernel's sysfs prints it
# (::ffff:a.b.c.d in 16-bit groups).
vm_ipv4_gid() {
	echo "$1" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", $1, $2, $3, $4 }'
}
