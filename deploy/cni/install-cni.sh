#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the podverbs CNI plugin on a node (run on the node, or from an
# init container with the host's folders mounted):
#
#   install-cni.sh [--bin PATH] [--bin-dir DIR] [--conf-dir DIR]
#                  [--conflist FILE] [--no-conf]
#
# --bin       the plugin binary (default: build/bin/podverbs next to this
#             checkout, else ./podverbs)
# --bin-dir   where runtimes look for plugins (default /opt/cni/bin)
# --conf-dir  network configs (default /etc/cni/net.d)
# --conflist  the conflist to install (default: 10-podverbs.conflist here)
# --no-conf   install the binary only (e.g. when Multus or an operator
#             owns the network configs)
#
# Files are written under a temporary name and renamed, so a runtime never
# executes a half-copied binary or reads a half-written config.  The
# plugin's state folder (stateDir, default /var/lib/cni/podverbs) is made
# by the plugin itself.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=""
bin_dir=/opt/cni/bin
conf_dir=/etc/cni/net.d
conflist=$here/10-podverbs.conflist
conf=1
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=$2; shift ;;
	--bin-dir) bin_dir=$2; shift ;;
	--conf-dir) conf_dir=$2; shift ;;
	--conflist) conflist=$2; shift ;;
	--no-conf) conf=0 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "install-cni: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$bin" ]; then
	bin=$here/../../build/bin/podverbs
	[ -x "$bin" ] || bin=./podverbs
fi
[ -x "$bin" ] || { echo "install-cni: no plugin binary at $bin" >&2; exit 1; }

# Refuse a binary that does not speak CNI (wrong file, wrong arch).
echo '{"cniVersion":"1.1.0"}' | CNI_COMMAND=VERSION "$bin" |
	grep -q supportedVersions ||
	{ echo "install-cni: $bin does not answer CNI VERSION" >&2; exit 1; }

install_atomic() {	# SRC DIR NAME MODE
	mkdir -p "$2"
	cp "$1" "$2/.$3.tmp.$$"
	chmod "$4" "$2/.$3.tmp.$$"
	mv -f "$2/.$3.tmp.$$" "$2/$3"
	echo "install-cni: $2/$3"
}

install_atomic "$bin" "$bin_dir" podverbs 0755
if [ "$conf" = 1 ]; then
	if command -v python3 >/dev/null 2>&1 &&
	   ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
		"$conflist" 2>/dev/null; then
		echo "install-cni: $conflist is not valid JSON" >&2
		exit 1
	fi
	install_atomic "$conflist" "$conf_dir" "$(basename "$conflist")" 0644
fi
