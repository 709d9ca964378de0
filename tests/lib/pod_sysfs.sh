#!/bin/sh
# SPDX-License-Identifier: MIT
# pod_sysfs.sh TREE CMD...: runs CMD in a private mount namespace whose
# /sys/class/infiniband is TREE (made by `pvctl sysfs`), every other
# /sys/class entry as it was: what a container gets from the device
# plugin's mount, for pods that share the host's mounts (plain
# namespaces).  Run it under `unshare -m` (tests/compat/ucx_same_node.sh).
# /sys/class/infiniband exists only where ib_core is loaded and sysfs
# takes no new folders, so a tmpfs goes over /sys/class and each class
# is bound back.
set -e
tree=$1
shift
keep=$(mktemp -d)
mount --make-rprivate /
mount --bind /sys/class "$keep"
mount -t tmpfs -o mode=0755 pv-sysfs-class /sys/class
for d in "$keep"/*; do
	n=${d##*/}
	[ "$n" = infiniband ] && continue
	mkdir "/sys/class/$n"
	mount --bind "$d" "/sys/class/$n"
done
mkdir /sys/class/infiniband
mount --bind "$tree" /sys/class/infiniband
umount -l "$keep" 2>/dev/null || true
exec "$@"
