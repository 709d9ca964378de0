#!/bin/sh
# Installs the Debian 12 packages podverbs needs to build and test, when
# missing.  Needs root (apt-get); prints what it installs.
set -e
PKGS="build-essential make gcc pkg-config iproute2 procps
libnl-3-dev libnl-route-3-dev libcjson-dev libseccomp-dev libudev-dev
libcmocka-dev systemtap-sdt-dev bpftrace
linux-libc-dev
clang-14 libclang-rt-14-dev binutils
libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils perftest
iperf3 sockperf
gnuplot-nox linux-perf
podman runc containernetworking-plugins iptables
strace util-linux coreutils
python3
libgrpc-dev libprotobuf-c-dev protobuf-c-compiler python3-grpcio python3-grpc-tools
python3-pkg-resources python3-yaml
python3-scapy tshark ethtool tcpdump
qemu-system-x86 busybox-static kmod
ucx-utils
openmpi-bin libopenmpi-dev
prometheus"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root to install)" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
