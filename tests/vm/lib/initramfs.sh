# SPDX-License-Identifier: MIT
# vm tier: the initramfs (POSIX sh; sourced by vm.sh).  Static busybox, the
# virtio and 9p modules of the cached kernel (with their dependencies, in
# load order), guest-init.sh as /init and the modprobe wrapper.  Cached
# beside the kernel; rebuilt when guest-init.sh changes.
#
#   vm_initramfs_build   sets VM_INITRD

VM_INITRD_MODS="virtio_pci virtio_net 9pnet_virtio 9p"

vm_initramfs_build() {
	_bb=/bin/busybox
	# The initramfs has no libc: busybox must be the static build.
	[ -x "$_bb" ] && ! ldd "$_bb" >/dev/null 2>&1 ||
		skip "needs a static /bin/busybox (Debian's busybox-static)"
	_sum=$(cat "$VM_LIB/guest-init.sh" "$VM_LIB/initramfs.sh" |
		cksum | cut -d' ' -f1)
	VM_INITRD=$VM_CACHE/initrd-$VM_KVER-$_sum.gz
	export VM_INITRD
	[ -s "$VM_INITRD" ] && return 0
	_ir=$VM_CACHE/initramfs.tmp
	rm -rf "$_ir"
	mkdir -p "$_ir/bin" "$_ir/mods" "$_ir/proc" "$_ir/sys" "$_ir/dev" \
		"$_ir/host" || fail "mkdir $_ir"
	cp "$_bb" "$_ir/bin/busybox" || fail "copy busybox"
	for _m in $VM_INITRD_MODS; do
		modprobe -d "$VM_KROOT" -S "$VM_KVER" --show-depends "$_m" ||
			fail "module $_m not in $VM_KVER"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$_ir/mods.list"
	while read -r _p; do
		cp "$_p" "$_ir/mods/" || fail "copy $_p"
		basename "$_p" >>"$_ir/mods/order"
	done <"$_ir/mods.list"
	rm -f "$_ir/mods.list"
	cp "$VM_LIB/guest-init.sh" "$_ir/init"
	printf '%s\n' '#!/bin/sh' \
		'exec /bin/chroot /host /sbin/modprobe -d "$(cat /kroot)" "$@"' \
		>"$_ir/bin/pv-modprobe"
	chmod 755 "$_ir/init" "$_ir/bin/pv-modprobe"
	rm -f "$VM_CACHE"/initrd-"$VM_KVER"-*.gz
	(cd "$_ir" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null |
		gzip -1) >"$VM_INITRD.tmp" || fail "cpio initramfs"
	mv "$VM_INITRD.tmp" "$VM_INITRD"
	rm -rf "$_ir"
}
