#!/bin/sh
# `make install` with DESTDIR/PREFIX stages headers, library, pkg-config
# file and binaries; a program built with that pkg-config file compiles,
# links and runs against the staged library (not Debian's).
set -u
. "$PV_ROOT/tests/lib/topo.sh"
need_cmd pkg-config
STAGE=$(mktemp -d /tmp/pvinstall.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
cd "$PV_ROOT" || exit 1
make -s install BUILD="$PV_BUILD" DESTDIR="$STAGE" PREFIX=/opt/podverbs \
	CNIBINDIR=/opt/podverbs/cni >"$STAGE/install.log" 2>&1 ||
	{ cat "$STAGE/install.log"; fail "make install"; }
for f in include/infiniband/verbs.h include/infiniband/verbs_api.h \
	 include/infiniband/ib_user_ioctl_verbs.h lib/libibverbs.so.1 lib/libibverbs.so \
	 lib/pkgconfig/libibverbs.pc sbin/podverbsd sbin/podverbs-device-plugin \
	 bin/pvctl cni/podverbs; do
	[ -e "$STAGE/opt/podverbs/$f" ] || fail "not installed: $f"
done
echo "ok: staged tree complete"
export PKG_CONFIG_PATH="$STAGE/opt/podverbs/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$STAGE"
cflags=$(pkg-config --cflags libibverbs) || fail "pkg-config --cflags"
libs=$(pkg-config --libs libibverbs) || fail "pkg-config --libs"
case $cflags in *"$STAGE/opt/podverbs/include"*) ;; *) fail "cflags: $cflags" ;; esac
cat >"$STAGE/probe.c" <<'C'
#include <infiniband/verbs.h>
#include <stdio.h>
int main(void)
{
	int n = -1;
	struct ibv_device **l = ibv_get_device_list(&n);

	if (!l)
		return 2;
	printf("devices %d\n", n);
	ibv_free_device_list(l);
	return n == 0 ? 0 : 3;
}
C
# shellcheck disable=SC2086
cc $cflags -o "$STAGE/probe" "$STAGE/probe.c" $libs || fail "compile against staged tree"
out=$(PODVERBS_ENGINE="$STAGE/no-engine.sock" \
	LD_LIBRARY_PATH="$STAGE/opt/podverbs/lib" LD_DEBUG=libs "$STAGE/probe" 2>&1)
echo "$out" | grep -q "devices 0" || fail "probe: $out"
echo "$out" | grep -q "calling init: $STAGE/opt/podverbs/lib/libibverbs.so.1" ||
	fail "probe did not load the staged library"
echo "ok: program built with pkg-config runs on the staged library"
echo PASS
