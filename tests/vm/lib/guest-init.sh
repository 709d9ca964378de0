#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the vm tier's initramfs (busybox, Debian's kernel).  Mounts the
# host's root read-only over 9p, the run's work folder read-write over it at
# the same path, and chroots into the host root to run the guest agent; so
# the VM runs this machine's userland (iproute2, rdma-core, perftest, our
# build) on Debian's kernel.  Parameters come on the kernel command line:
#   pv.work=DIR   the run's work folder (same absolute path as on the host)
#   pv.kroot=DIR  the extracted kernel package (modules for modprobe -d)
#   pv.agent=FILE the guest agent (a path in the host root)
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for a in $(cat /proc/cmdline); do
	case $a in
	pv.work=*) WORK=${a#pv.work=} ;;
	pv.kroot=*) KROOT=${a#pv.kroot=} ;;
	pv.agent=*) AGENT=${a#pv.agent=} ;;
	esac
done
for m in $(cat /mods/order); do
	insmod "/mods/$m" || echo "init: insmod $m failed"
done
die() {
	echo "init: $*"
	sync
	poweroff -f
}
# msize 256 KiB: fewer 9p round trips per read (each one is a vmexit
# emulated by TCG).  cache=loose is safe for the root: it is read-only.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro \
	host /host || die "9p mount of the host root failed"
mount -t tmpfs tmp /host/tmp
mount -t tmpfs run /host/run
# No cache on the work share: the host and the guest both write files there
# and poll for each other's (the control channel).
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 \
	work "/host$WORK" || die "9p mount of the work share failed"
for d in proc sys dev; do
	mount --bind "/$d" "/host/$d"
done
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs shm /host/dev/shm
# request_module() runs the usermode helper in THIS root (the initramfs),
# not in the chroot: pv-modprobe chroots into the host root and runs kmod's
# modprobe on Debian's module tree (rdma_rxe needs crc32 loaded that way).
echo "$KROOT" >/kroot
echo /bin/pv-modprobe >/proc/sys/kernel/modprobe
echo "init: chroot at uptime $(cut -d' ' -f1 /proc/uptime)s"
HOME=/root TERM=vt100 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	chroot /host /bin/bash "$AGENT" "$WORK" "$KROOT"
echo "init: agent exited rc=$?, powering off"
sync
poweroff -f
