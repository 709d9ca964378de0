#!/bin/sh
# Symbol oracle for librdmacm.so.1 against Debian's (rdma-core 44):
#  1. every function Debian's library exports is exported by ours with the
#     same version node (RDMACM_1.0 .. 1.3), and ours exports nothing else;
#  2. the version nodes and the soname are the same;
#  3. a program built against Debian's headers and run over ours gets
#     ENODEV from rsocket with no engine to reach (as Debian's does with
#     no RDMA device), EBADF from riowrite on a number that is no
#     rsocket, and ENOSYS (not a crash) from a CM call not offered yet
#     (rdma_notify), with a clear line for it under PODVERBS_DEBUG.
# Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OURS="$BUILD/lib/librdmacm.so.1"
DEB=${PV_RDMACM_LIB:-/usr/lib/x86_64-linux-gnu/librdmacm.so.1}
CC=${CC:-cc}

[ -f "$DEB" ] || { echo "SKIP: Debian's librdmacm1 not installed"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: objdump (binutils) missing"; exit 77; }
[ -f "$OURS" ] || { echo "FAIL: $OURS not built"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-rdmacm-sym.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0

# "version name" for every defined dynamic function (and version node).
syms() {
	objdump -T "$1" | awk '$0 !~ /\*UND\*/ && NF >= 7 && ($3 == "DF" || $3 == "DO") {
		print $(NF-1), $NF }' | sort
}
nodes() {
	objdump -T "$1" | awk 'NF >= 2 && $0 !~ /\*UND\*/ && $(NF-1) == $NF { print $NF }' | sort -u
}
syms "$DEB" >"$WORK/deb"
syms "$OURS" >"$WORK/ours"
n=$(wc -l <"$WORK/deb")
[ "$n" -gt 50 ] || { echo "FAIL: read only $n symbols from $DEB"; exit 1; }
missing=$(comm -23 "$WORK/deb" "$WORK/ours")
extra=$(comm -13 "$WORK/deb" "$WORK/ours")
if [ -n "$missing" ]; then
	echo "FAIL: missing or versioned differently in ours:"
	echo "$missing" | sed 's/^/    /'
	fail=1
fi
if [ -n "$extra" ]; then
	echo "FAIL: exported by ours only:"
	echo "$extra" | sed 's/^/    /'
	fail=1
fi
nodes "$DEB" >"$WORK/deb.nodes"
nodes "$OURS" >"$WORK/ours.nodes"
cmp -s "$WORK/deb.nodes" "$WORK/ours.nodes" ||
	{ echo "FAIL: version nodes differ: $(tr '\n' ' ' <"$WORK/ours.nodes")"; fail=1; }
sn=$(objdump -p "$OURS" | awk '$1 == "SONAME" { print $2 }')
[ "$sn" = librdmacm.so.1 ] || { echo "FAIL: soname $sn"; fail=1; }
echo "symbols: $n in Debian's library, $(wc -l <"$WORK/ours") in ours"

# 3. Built against Debian's headers and library, run over ours.
cat >"$WORK/enosys.c" <<'PROBE'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rdma/rsocket.h>
#include <rdma/rdma_cma.h>
int main(void)
{
	int s = rsocket(AF_INET, SOCK_STREAM, 0);
	size_t w;

	if (s != -1 || errno != ENODEV) {
		printf("rsocket: %d errno %d\n", s, errno);
		return 1;
	}
	errno = 0;
	w = riowrite(3, "x", 1, 0, 0);
	if (w != (size_t)-1 || errno != EBADF) {
		printf("riowrite: %zu errno %d\n", w, errno);
		return 1;
	}
	if (rdma_notify(NULL, IBV_EVENT_COMM_EST) != -1 || errno != ENOSYS) {
		printf("rdma_notify: errno %d\n", errno);
		return 1;
	}
	if (strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED),
		   "RDMA_CM_EVENT_ESTABLISHED") != 0 ||
	    strcmp(rdma_event_str((enum rdma_cm_event_type)99),
		   "UNKNOWN EVENT") != 0) {
		printf("rdma_event_str\n");
		return 1;
	}
	return 0;
}
PROBE
if [ -f /usr/include/rdma/rsocket.h ]; then
	$CC -o "$WORK/enosys" "$WORK/enosys.c" -lrdmacm ||
		{ echo "FAIL: probe does not build against Debian's"; exit 1; }
	# Debian's library has no ENOSYS rdma_notify: the probe tells the
	# two libraries apart.  Over Debian's it dies early (its riowrite
	# dereferences a number that is no rsocket), which is what is
	# expected of it; that run is Debian's code, so it is made without the
	# sanitizer runtime the SAN tiers preload (whose SEGV report would
	# otherwise fail this test).
	env -u LD_PRELOAD "$WORK/enosys" >/dev/null 2>&1 &&
		{ echo "FAIL: the probe passes over Debian's library too"; fail=1; }
	LD_LIBRARY_PATH="$BUILD/lib" PODVERBS_DEBUG=1 "$WORK/enosys" \
		>"$WORK/out" 2>&1 || { cat "$WORK/out"; echo "FAIL: probe over ours"; fail=1; }
	grep -q 'rdma_notify is not implemented yet (ENOSYS)' "$WORK/out" ||
		{ cat "$WORK/out"; echo "FAIL: no debug line for rdma_notify"; fail=1; }
	LD_LIBRARY_PATH="$BUILD/lib" "$WORK/enosys" >"$WORK/out2" 2>&1
	[ -s "$WORK/out2" ] && { cat "$WORK/out2"; echo "FAIL: output without PODVERBS_DEBUG"; fail=1; }
else
	echo "note: librdmacm-dev missing, ENOSYS probe not run"
fi
[ $fail = 0 ] && echo "rdmacm symbols: ok"
exit $fail
