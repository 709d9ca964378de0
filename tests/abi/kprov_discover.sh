#!/bin/sh
# Kernel device discovery over our libibverbs.so.1 (issue 16, item 1), on
# a sysfs fixture (SYSFS_PATH) since this host has no uverbs devices; the
# providers are Debian's real plugins, loaded the way rdma-core does:
#  1. Debian's ibv_devices lists rxe0 (uverbs0), made by librxe's
#     alloc_device after librxe was loaded from the config file in
#     IBV_CONFIG_DIR and matched by name; its GUID comes from sysfs;
#     efa0 is claimed by libefa through the driver id of its parent's
#     driver link (device/driver -> efa);
#  2. a device no provider claims is left out, with rdma-core's warning
#     under IBV_SHOW_WARNINGS only; a device whose provider doesn't
#     support its ABI version (mthca0, PCI-matched by its modalias, at
#     99) is left out with a warning;
#  3. a bad config directive is reported and skipped;
#  4. ibv_devinfo -d rxe0 fails cleanly: the fixture's /dev node is no
#     char device of the sysfs dev number (the open is checked);
#  5. with no /sys/class/infiniband_verbs at all, nothing is printed and
#     no provider is loaded (LD_DEBUG=files shows no dlopen of one).
# Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OURS="$BUILD/lib/libibverbs.so.1"
PDIR=/usr/lib/x86_64-linux-gnu/libibverbs

[ -f "$OURS" ] || { echo "FAIL: $OURS not built"; exit 1; }
command -v ibv_devices >/dev/null || { echo "SKIP: ibv_devices (ibverbs-utils) missing"; exit 77; }
[ -e "$PDIR/librxe-rdmav34.so" ] || { echo "SKIP: Debian's librxe missing (ibverbs-providers)"; exit 77; }
[ -e "$PDIR/libmthca-rdmav34.so" ] || { echo "SKIP: Debian's libmthca missing (ibverbs-providers)"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/pv-kprov-disc.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail=0
S=$T/sys
mkdir -p "$S/class/infiniband_verbs" "$S/class/infiniband" "$T/dev" "$T/conf"
echo 6 >"$S/class/infiniband_verbs/abi_version"
# uverbsN IBDEV ABI NODE_GUID
uverbs() {
	d=$S/class/infiniband_verbs/$1
	mkdir -p "$d" "$S/class/infiniband/$2"
	echo "$2" >"$d/ibdev"
	echo "231:$((192 + ${1#uverbs}))" >"$d/dev"
	echo "$3" >"$d/abi_version"
	echo "1: CA" >"$S/class/infiniband/$2/node_type"
	echo "$4" >"$S/class/infiniband/$2/node_guid"
	: >"$T/dev/$1"
}
uverbs uverbs0 rxe0 2 0250:56ff:feaa:0001
uverbs uverbs1 zzz0 1 0000:0000:0000:0002
uverbs uverbs2 mthca0 99 0000:0000:0000:0003
mkdir -p "$S/class/infiniband/mthca0/device"
echo pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00 \
	>"$S/class/infiniband/mthca0/device/modalias"
uverbs uverbs3 rxe1 2 0250:56ff:feaa:0004
# efa0: claimed by driver id, from its parent's driver link (efa).
uverbs uverbs4 efa0 1 0000:0000:0000:0005
mkdir -p "$S/bus/pci/drivers/efa" "$S/devices/pci0000:00/0000:00:06.0"
ln -s ../../../bus/pci/drivers/efa "$S/devices/pci0000:00/0000:00:06.0/driver"
ln -s ../../../devices/pci0000:00/0000:00:06.0 "$S/class/infiniband/efa0/device"
rm "$T/dev/uverbs3"	# no char device node: not usable, not listed
printf '# rdma-core style\ndriver rxe\n' >"$T/conf/rxe.driver"
printf 'driver mthca\n' >"$T/conf/mthca.driver"
printf 'driver efa\n' >"$T/conf/efa.driver"
printf 'drvier oops\n' >"$T/conf/bad.driver"

run() {
	env SYSFS_PATH="$S" IBV_CONFIG_DIR="$T/conf" PODVERBS_KERN_CDEV_DIR="$T/dev" \
		LD_LIBRARY_PATH="$BUILD/lib" "$@"
}
out=$(run ibv_devices 2>"$T/err1")
err=$(cat "$T/err1")
printf '%s\n' "$out" | sed 's/^/    /'
printf '%s\n' "$out" | grep -Eq '^[[:space:]]*rxe0[[:space:]]+025056fffeaa0001' ||
	{ echo "FAIL: rxe0 with its sysfs GUID not listed"; fail=1; }
printf '%s\n' "$out" | grep -Eq '^[[:space:]]*efa0[[:space:]]+0000000000000005' ||
	{ echo "FAIL: efa0 (driver id match) not listed"; fail=1; }
for n in zzz0 mthca0 rxe1; do
	printf '%s\n' "$out" | grep -q "$n" && { echo "FAIL: $n listed"; fail=1; }
done
printf '%s\n' "$err" | grep -q "no userspace device-specific driver found for zzz0" &&
	{ echo "FAIL: warning for zzz0 without IBV_SHOW_WARNINGS"; fail=1; }
printf '%s\n' "$err" | grep -q "Driver mthca does not support the kernel ABI of 99" ||
	{ echo "FAIL: no ABI warning for mthca0: $err"; fail=1; }
printf '%s\n' "$err" | grep -q "ignoring bad config directive 'drvier'" ||
	{ echo "FAIL: bad directive not reported: $err"; fail=1; }

err=$(run env IBV_SHOW_WARNINGS=1 ibv_devices 2>&1 >/dev/null)
printf '%s\n' "$err" | grep -q "no userspace device-specific driver found for zzz0" ||
	{ echo "FAIL: no warning for zzz0 under IBV_SHOW_WARNINGS: $err"; fail=1; }
printf '%s\n' "$err" | sed 's/^/    stderr: /'

# Proof that Debian's librxe made the device: it is mapped in the process.
maps=$(run env LD_DEBUG=files ibv_devices 2>&1 >/dev/null | grep -c 'librxe-rdmav34.so')
[ "$maps" -gt 0 ] || { echo "FAIL: librxe was not loaded"; fail=1; }

# 5. Opening rxe0 needs its char device: the fixture's node is a plain
# file, so Debian's ibv_devinfo fails to open it, cleanly (no crash).
run ibv_devinfo -d rxe0 >"$T/devinfo" 2>&1
rc=$?
if [ "$rc" = 0 ] || [ "$rc" -gt 128 ]; then
	echo "FAIL: ibv_devinfo on a fixture node exited $rc"; sed 's/^/    /' "$T/devinfo"; fail=1
fi

rm -rf "$S/class/infiniband_verbs"
out=$(run env LD_DEBUG=files ibv_devices 2>&1)
printf '%s\n' "$out" | grep -q 'rdmav34.so' &&
	{ echo "FAIL: a provider was loaded with no uverbs class"; fail=1; }
printf '%s\n' "$out" | grep -q 'rxe0' && { echo "FAIL: rxe0 without sysfs"; fail=1; }
[ "$fail" = 0 ] && echo "PASS: kprov_discover"
exit "$fail"
