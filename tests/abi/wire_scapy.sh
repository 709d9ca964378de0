#!/bin/sh
# The wire layer against independent decoders (issue 10): build/tests/bin/
# wire-pcap writes every opcode we know over IPv4 and IPv6, pads 0..3,
# every AETH syndrome kind, built and ICRC'd by eng_wire_*.c as the net
# stage sends them; then
#  1. tests/lib/roce_check.py decodes each one and recomputes its ICRC
#     (python3-scapy's RoCE layer for IPv4, zlib for IPv6): all correct;
#  2. the checker must fail on a capture with one corrupted packet (so
#     step 1 could fail);
#  3. tshark decodes every frame as RRoCE (RoCEv2) with IP and UDP checksum
#     validation on, and reports no malformed packet and no error.
# Exit 0 pass, 77 skip, 1 fail.
set -u

ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PV_BUILD:-$ROOT/build}
GEN="$BUILD/tests/bin/wire-pcap"
CHECK="$ROOT/tests/lib/roce_check.py"
PY=/usr/bin/python3
[ -x "$GEN" ] || { echo "FAIL: $GEN not built (make)"; exit 1; }
[ -x "$PY" ] || PY=$(command -v python3) || {
	echo "SKIP: python3 not installed"
	exit 77
}
"$PY" -c 'import scapy.contrib.roce' 2>/dev/null || {
	echo "SKIP: python3-scapy not installed (mk/deps.sh installs it)"
	exit 77
}
command -v tshark >/dev/null 2>&1 || {
	echo "SKIP: tshark not installed (mk/deps.sh installs it)"
	exit 77
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pv-wire-scapy.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
fail=0

"$GEN" "$WORK/good.pcap" >"$WORK/gen.out" || { cat "$WORK/gen.out"; exit 1; }
frames=$(sed -n 's/^wire-pcap: \([0-9]*\) frames$/\1/p' "$WORK/gen.out")
echo "$(cat "$WORK/gen.out")"

# 1. Every packet decodes, every ICRC is right.
if "$PY" -B "$CHECK" --min "$frames" "$WORK/good.pcap" >"$WORK/check.out" 2>&1; then
	echo "ok   scapy: $(tail -1 "$WORK/check.out")"
else
	echo "FAIL scapy:"
	sed 's/^/  /' "$WORK/check.out" | head -20
	fail=1
fi

# 2. The checker sees one flipped bit (an IPv4 and an IPv6 frame).
for n in 7 $((frames - 3)); do
	"$GEN" "$WORK/bad.pcap" --corrupt "$n" >/dev/null || exit 1
	if "$PY" -B "$CHECK" "$WORK/bad.pcap" >"$WORK/bad.out" 2>&1; then
		echo "FAIL checker: accepted a capture with frame $n corrupted"
		fail=1
	elif grep -q "^frame $n: ICRC" "$WORK/bad.out" &&
		"$PY" -B "$CHECK" --expect-bad 1 "$WORK/bad.pcap" >/dev/null 2>&1; then
		echo "ok   checker: frame $n's bad ICRC found"
	else
		echo "FAIL checker: frame $n:"
		sed 's/^/  /' "$WORK/bad.out" | head -5
		fail=1
	fi
done

# 3. tshark: all RRoCE, nothing malformed, no error.
TS="tshark -n -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE"
HOME=$WORK $TS -r "$WORK/good.pcap" -V >"$WORK/ts.txt" 2>"$WORK/ts.err"
roce=$(HOME=$WORK $TS -r "$WORK/good.pcap" -Y infiniband 2>/dev/null | wc -l)
bad=$(grep -c -i -E 'malformed|Expert Info \(Error' "$WORK/ts.txt")
if [ "$roce" = "$frames" ] && [ "$bad" = 0 ]; then
	echo "ok   tshark: $roce of $frames frames decoded as RRoCE, 0 malformed or in error"
else
	echo "FAIL tshark: $roce of $frames frames RRoCE, $bad malformed or in error"
	grep -i -E 'malformed|Expert Info \(Error' "$WORK/ts.txt" | sort | uniq -c | head -5
	fail=1
fi
[ "$fail" = 0 ]
