#!/bin/sh
# Debian's kernel providers load over our libibverbs.so.1 (issue 16):
#  1. each provider plugin in the provider folder (ibverbs-providers:
#     lib*-rdmav34.so) and each direct-verbs library (libmlx5, libmlx4,
#     libefa, libmana) dlopen()s with RTLD_NOW under LD_BIND_NOW=1, every
#     import resolving, in a process whose ibv_get_device_list is ours
#     (dladdr) and where ours is the only libibverbs.so.1 mapped;
#  2. every IBVERBS_PRIVATE_34 symbol those libraries import is in our
#     version map, with that version (nm -D of our library).
# A provider's constructor calls verbs_register_driver_34 at load, so (1)
# also runs our registration with each one's real verbs_device_ops.
# Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
OURS="$BUILD/lib/libibverbs.so.1"
MA=${PV_MULTIARCH:-x86_64-linux-gnu}
PDIR=${PV_PROVIDER_DIR:-/usr/lib/$MA/libibverbs}
CC=${CC:-cc}

[ -f "$OURS" ] || { echo "FAIL: $OURS not built"; exit 1; }
command -v nm >/dev/null || { echo "SKIP: nm (binutils) missing"; exit 77; }
set -- "$PDIR"/lib*-rdmav34.so
[ -e "$1" ] || { echo "SKIP: no provider plugins in $PDIR (ibverbs-providers)"; exit 77; }
LIBS="$*"
for d in libmlx5.so.1 libmlx4.so.1 libefa.so.1 libmana.so.1; do
	if [ -e "/usr/lib/$MA/$d" ]; then
		LIBS="$LIBS /usr/lib/$MA/$d"
	else
		echo "SKIP: /usr/lib/$MA/$d missing (ibverbs-providers)"; exit 77
	fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-kprov-dl.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0

cat >"$WORK/probe.c" <<'PROBE'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static int nverbs;
static char ours[4096];

static int count_verbs(struct dl_phdr_info *i, size_t sz, void *arg)
{
	const char *base = strrchr(i->dlpi_name, '/');
	char real[4096];

	base = base ? base + 1 : i->dlpi_name;
	if (strcmp(base, "libibverbs.so.1") != 0)
		return 0;
	nverbs++;
	if (!realpath(i->dlpi_name, real) || strcmp(real, ours) != 0) {
		printf("FAIL: a second libibverbs.so.1 is mapped: %s\n",
		       i->dlpi_name);
		*(int *)arg = 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	void *sym = dlsym(RTLD_DEFAULT, "ibv_get_device_list");
	Dl_info info;
	int bad = 0;

	if (!realpath(argv[1], ours) || !sym || !dladdr(sym, &info)) {
		printf("FAIL: ibv_get_device_list not found\n");
		return 1;
	}
	char real[4096];
	if (!realpath(info.dli_fname, real) || strcmp(real, ours) != 0) {
		printf("FAIL: ibv_get_device_list comes from %s\n",
		       info.dli_fname);
		return 1;
	}
	for (int a = 2; a < argc; a++) {
		void *h = dlopen(argv[a], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			printf("FAIL: %s\n", dlerror());
			bad = 1;
			continue;
		}
		printf("loaded %s\n", argv[a]);
	}
	nverbs = 0;
	dl_iterate_phdr(count_verbs, &bad);
	if (nverbs != 1) {
		printf("FAIL: %d libibverbs.so.1 mapped\n", nverbs);
		bad = 1;
	}
	return bad;
}
PROBE
"$CC" -o "$WORK/probe" "$WORK/probe.c" -I"$ROOT/include" -L"$BUILD/lib" -Wl,--no-as-needed \
	-libverbs -ldl -Wl,-rpath,"$BUILD/lib" ||
	{ echo "FAIL: probe does not build"; exit 1; }
# shellcheck disable=SC2086
out=$(LD_BIND_NOW=1 LD_LIBRARY_PATH="$BUILD/lib" "$WORK/probe" "$OURS" $LIBS 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^loaded ')
printf '%s\n' "$out" | grep -v '^loaded ' | sed 's/^/    /'
if [ "$rc" != 0 ]; then
	echo "FAIL: dlopen over ours (exit $rc)"
	fail=1
fi
echo "dlopen RTLD_NOW, LD_BIND_NOW=1: $n of $(echo $LIBS | wc -w) libraries loaded over $OURS"

# 2. IBVERBS_PRIVATE_34 imports against our exports.
# shellcheck disable=SC2086
for l in $LIBS; do
	nm -D --undefined-only "$l" | awk '{ print $NF }' |
		grep '@IBVERBS_PRIVATE_34$' | sed 's/@.*//'
done | sort -u >"$WORK/imports"
nm -D --defined-only "$OURS" | awk '{ print $NF }' |
	grep '@@*IBVERBS_PRIVATE_34$' | sed 's/@.*//' | sort -u >"$WORK/exports"
ni=$(wc -l <"$WORK/imports")
[ "$ni" -gt 40 ] || { echo "FAIL: read only $ni IBVERBS_PRIVATE_34 imports"; fail=1; }
missing=$(comm -23 "$WORK/imports" "$WORK/exports")
if [ -n "$missing" ]; then
	echo "FAIL: IBVERBS_PRIVATE_34 imports ours does not export:"
	echo "$missing" | sed 's/^/    /'
	fail=1
fi
echo "IBVERBS_PRIVATE_34: $ni distinct imports, all in ours: $([ -z "$missing" ] && echo yes || echo no)"
# 3. Each IBVERBS_PRIVATE_34 symbol is the same kind (function or data
# object) as in Debian's libibverbs: a provider reads
# verbs_allow_disassociate_destroy as a bool, a function there would
# read as "true".
DEB=/usr/lib/$MA/libibverbs.so.1
if [ -f "$DEB" ]; then
	kinds() {
		objdump -T "$1" | awk 'NF >= 3 && $(NF-1) == "IBVERBS_PRIVATE_34" && $NF != "IBVERBS_PRIVATE_34" { print $NF, $3 }' | sort
	}
	kinds "$DEB" >"$WORK/deb.kinds"
	kinds "$OURS" >"$WORK/ours.kinds"
	if ! cmp -s "$WORK/deb.kinds" "$WORK/ours.kinds"; then
		echo "FAIL: IBVERBS_PRIVATE_34 symbol kinds differ from Debian's:"
		diff "$WORK/deb.kinds" "$WORK/ours.kinds" | sed 's/^/    /'
		fail=1
	else
		echo "IBVERBS_PRIVATE_34: $(grep -c ' DO$' "$WORK/ours.kinds") data object(s), $(grep -c ' DF$' "$WORK/ours.kinds") functions, as Debian's"
	fi
fi
[ "$fail" = 0 ] && echo "PASS: kprov_dlopen"
exit "$fail"
