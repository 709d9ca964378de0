# SPDX-License-Identifier: MIT
# vm tier: Debian 12's own kernel, fetched once and cached (POSIX sh; sourced
# by vm.sh).  The package is the one linux-image-amd64 depends on, so the VM
# runs exactly the kernel (and rdma_rxe) a Debian 12 host would.
#
#   vm_kernel_fetch      sets VM_KVER, VM_KROOT (the extracted, depmod'ed
#                        tree under $VM_CACHE/kernel/) and VM_VMLINUZ;
#                        skips (77) when the archive cannot be reached.

# The package name, from the metapackage's dependency (not hard-coded: a
# point release bumps the ABI number, and the archive drops the old one).
vm_kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

vm_kernel_fetch() {
	_kp=$(vm_kernel_pkg)
	[ -n "$_kp" ] || skip "apt-cache knows no linux-image-amd64 (run apt-get update)"
	VM_KVER=${_kp#linux-image-}
	_kd=$VM_CACHE/kernel
	VM_KROOT=$_kd/$VM_KVER
	VM_VMLINUZ=$VM_KROOT/boot/vmlinuz-$VM_KVER
	export VM_KVER VM_KROOT VM_VMLINUZ
	# The guest reads the module tree through the host root's 9p share,
	# where /tmp and /run are its own tmpfs: the cache must live elsewhere.
	case $VM_KROOT in
	/tmp/*|/run/*) fail "VM_CACHE ($VM_CACHE) must not be under /tmp or /run" ;;
	esac
	[ -e "$VM_KROOT/lib/modules/$VM_KVER/modules.dep" ] &&
		[ -f "$VM_VMLINUZ" ] && return 0
	mkdir -p "$_kd/dl" || fail "mkdir $_kd/dl"
	rm -f "$_kd/dl/${_kp}_"*.deb
	# apt-get download drops privileges to _apt: let it write there.
	chmod 0777 "$_kd/dl"
	(cd "$_kd/dl" && apt-get download -q "$_kp") >"$_kd/dl/apt.log" 2>&1 ||
		skip "apt-get download $_kp failed (no network or archive?): $(tail -1 "$_kd/dl/apt.log")"
	rm -rf "$VM_KROOT.tmp"
	dpkg -x "$_kd/dl/${_kp}_"*.deb "$VM_KROOT.tmp" ||
		fail "dpkg -x $_kp"
	depmod -b "$VM_KROOT.tmp" "$VM_KVER" || fail "depmod $VM_KVER"
	rm -rf "$VM_KROOT"
	mv "$VM_KROOT.tmp" "$VM_KROOT" || fail "mv kernel tree"
	rm -f "$_kd/dl/${_kp}_"*.deb
	echo "vm: cached $_kp in $VM_KROOT"
}
