#!/bin/sh
# `make install` stages librdmacm.so.1 (+ dev symlink), its headers and
# librdmacm.pc; a program built with `pkg-config librdmacm` compiles, links
# and runs against the staged library (not Debian's), which resolves a
# numeric address with rdma_getaddrinfo.
set -u
. "$PV_ROOT/tests/lib/topo.sh"
need_cmd pkg-config
STAGE=$(mktemp -d /tmp/cm-node-install.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
cd "$PV_ROOT" || exit 1
make -s install BUILD="$PV_BUILD" DESTDIR="$STAGE" PREFIX=/opt/podverbs \
	CNIBINDIR=/opt/podverbs/cni >"$STAGE/install.log" 2>&1 ||
	{ cat "$STAGE/install.log"; fail "make install"; }
P=$STAGE/opt/podverbs
for f in include/rdma/rdma_cma.h include/rdma/rdma_verbs.h \
	 include/rdma/rsocket.h include/infiniband/sa.h lib/librdmacm.so.1 \
	 lib/librdmacm.so lib/pkgconfig/librdmacm.pc; do
	[ -e "$P/$f" ] || fail "not installed: $f"
done
echo "ok: staged librdmacm complete"
export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$STAGE"
cflags=$(pkg-config --cflags librdmacm) || fail "pkg-config --cflags"
libs=$(pkg-config --libs librdmacm libibverbs) || fail "pkg-config --libs"
cat >"$STAGE/probe.c" <<'C'
#include <arpa/inet.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>
int main(void)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE | RAI_NUMERICHOST,
				       .ai_port_space = RDMA_PS_TCP }, *res;
	struct sockaddr_in *sin;

	if (rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res))
		return 2;
	sin = (struct sockaddr_in *)res->ai_src_addr;
	printf("addr %s port %u qp_type %d\n", inet_ntoa(sin->sin_addr),
	       ntohs(sin->sin_port), res->ai_qp_type);
	rdma_freeaddrinfo(res);
	return 0;
}
C
# shellcheck disable=SC2086
cc $cflags -o "$STAGE/probe" "$STAGE/probe.c" $libs || fail "compile against staged tree"
out=$(PODVERBS_ENGINE="$STAGE/no-engine.sock" LD_LIBRARY_PATH="$P/lib" \
	LD_DEBUG=libs "$STAGE/probe" 2>&1)
echo "$out" | grep -q "addr 127.0.0.1 port 7471 qp_type 2" || fail "probe: $out"
echo "$out" | grep -q "calling init: $P/lib/librdmacm.so.1" ||
	fail "probe did not load the staged library"
echo "ok: program built with pkg-config librdmacm runs on the staged library"
echo PASS
