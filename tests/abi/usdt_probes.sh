#!/bin/sh
# USDT probes (issue 15, common/pv_usdt.h), read back from the ELF notes
# with readelf -n (NT_STAPSDT, what bpftrace -l and perf list read):
#  1. libibverbs.so.1 has every probe of provider podverbs, podverbsd every
#     one of provider podverbsd, and neither has the other's;
#  2. every probe has a semaphore (so an unattached probe costs a branch,
#     not its arguments), inside the binary's .probes section, and the
#     probes of one name share it;
#  3. the argument count of each probe is the one pv_usdt.h documents
#     (a tracer script reads arg0..argN by position).
# A tree built without <sys/sdt.h> (-DPV_NO_USDT in BUILD/flags.txt) must
# have no probe at all: checked, then the script skips.
# Exit 0 pass, 77 skip, 1 fail.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
LIB=$BUILD/lib/libibverbs.so.1
ENG=$BUILD/bin/podverbsd
if ! command -v readelf >/dev/null 2>&1; then
	echo "SKIP: readelf (binutils) not installed"
	exit 77
fi
if [ ! -e "$LIB" ] || [ ! -x "$ENG" ]; then
	echo "SKIP: $LIB or $ENG not built (run make first)"
	exit 77
fi

fail=0
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# probes FILE: "provider name semaphore nargs" per note.
probes() {
	readelf -n "$1" | awk '
		/Provider:/ { p = $2 }
		/Name:/ { n = $2 }
		/Semaphore:/ { s = $NF }
		/Arguments:/ { print p, n, s, NF - 1 }'
}

if grep -q -- '-DPV_NO_USDT' "$BUILD/flags.txt" 2>/dev/null; then
	n=$( (probes "$LIB"; probes "$ENG") | wc -l)
	[ "$n" = 0 ] || { echo "FAIL probes compiled out, yet $n notes"; exit 1; }
	echo "SKIP: probes compiled out in this tree (no <sys/sdt.h>: Debian's systemtap-sdt-dev)"
	exit 77
fi

# The .probes section's [start, end) in FILE, as two decimal numbers.
probes_section() {
	set -- $(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		 awk '$1 == ".probes" { print $3, $5 }')
	[ $# = 2 ] && echo "$(printf '%d' "0x$1") $(($(printf '%d' "0x$1") + $(printf '%d' "0x$2")))"
}

# check FILE PROVIDER "name:nargs ...": rule 1-3 for one binary.
check() {
	_f=$1 _prov=$2 _want=$3
	probes "$_f" >"${TMPDIR:-/tmp}/usdt.$$"
	set -- $(probes_section "$_f")
	_lo=${1:-0} _hi=${2:-0}
	[ "$_hi" -gt "$_lo" ] || bad "${_f##*/}: no .probes section (semaphores)"
	for _w in $_want; do
		_n=${_w%%:*} _a=${_w#*:}
		_rows=$(awk -v p="$_prov" -v n="$_n" '$1 == p && $2 == n' \
			"${TMPDIR:-/tmp}/usdt.$$")
		if [ -z "$_rows" ]; then
			bad "${_f##*/}: no probe $_prov:$_n"
			continue
		fi
		_sems=$(echo "$_rows" | awk '{ print $3 }' | sort -u)
		[ "$(echo "$_sems" | wc -l)" = 1 ] ||
			bad "${_f##*/}: $_prov:$_n sites have different semaphores"
		_s=$(printf '%d' "$_sems")
		if [ "$_s" = 0 ]; then
			bad "${_f##*/}: $_prov:$_n has no semaphore"
		elif [ "$_s" -lt "$_lo" ] || [ "$_s" -ge "$_hi" ]; then
			bad "${_f##*/}: $_prov:$_n semaphore $_sems outside .probes"
		fi
		echo "$_rows" | awk -v a="$_a" '$4 != a { exit 1 }' ||
			bad "${_f##*/}: $_prov:$_n does not take $_a arguments"
		echo "ok   ${_f##*/} $_prov:$_n ($(echo "$_rows" | wc -l) sites, $_a args)"
	done
	awk -v p="$_prov" '$1 != p' "${TMPDIR:-/tmp}/usdt.$$" | while read -r x; do
		echo "FAIL ${_f##*/}: a probe of another provider: $x"
	done | grep . && fail=$((fail + 1))
	rm -f "${TMPDIR:-/tmp}/usdt.$$"
}

check "$LIB" podverbs "post_send:3 post_recv:3 poll_cq:2 reg_mr:5 dereg_mr:2
	create_qp:3 destroy_qp:2 async_event:2"
check "$ENG" podverbsd "wqe_start:5 wqe_complete:5 retransmit:3 rnr_nak:4
	nak:4 cq_overflow:2 cm_event:4"

if [ "$fail" != 0 ]; then
	echo "$fail failures"
	exit 1
fi
echo "PASS"
exit 0
