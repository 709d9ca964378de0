#!/bin/sh
# Every daemon, tool and shared library we build carries the hardening
# Debian gives its packages (dpkg-buildflags, hardening=+all), read back
# from the ELF files with readelf:
#  1. executables are PIE: ELF type DYN and DF_1_PIE in FLAGS_1;
#  2. BIND_NOW (FLAGS BIND_NOW or FLAGS_1 NOW) and a PT_GNU_RELRO segment:
#     full RELRO, the GOT is read-only once the loader is done;
#  3. __stack_chk_fail is imported (-fstack-protector-strong: every one of
#     our binaries has functions with local arrays, so it must appear);
#  4. when a binary imports a function glibc can fortify (memcpy, snprintf,
#     read, ...), it also imports at least one __*_chk variant
#     (-D_FORTIFY_SOURCE=2 with -O2), as Debian's hardening-check decides;
#  5. on x86-64, every object under BUILD/obj has the GNU property note
#     saying IBT and SHSTK (-fcf-protection).  Checked on the objects, not
#     the linked files: the linker keeps the note only if every input has
#     it, and Debian 12's crt*.o and libc_nonshared.a do not.
# -fstack-clash-protection leaves no mark in the ELF file; the flags stamp
# (BUILD/flags.txt) is checked for it instead.
# A sanitizer build (-fsanitize= in BUILD/flags.txt) is checked for PIE/RELRO/NOW only:
# ASan replaces _FORTIFY_SOURCE's checks with its own.
# Exit 0 pass, 77 skip, 1 fail.
set -u

BUILD=${PV_BUILD:-build}
if ! command -v readelf >/dev/null 2>&1; then
	echo "SKIP: readelf (binutils) not installed"
	exit 77
fi
if [ ! -x "$BUILD/bin/podverbsd" ]; then
	echo "SKIP: $BUILD/bin/podverbsd not built (run make first)"
	exit 77
fi

fail=0 checked=0
san=0
grep -q -- -fsanitize= "$BUILD/flags.txt" 2>/dev/null && san=1
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# Functions glibc's <bits/*.h> wrap when _FORTIFY_SOURCE is on (a subset:
# the ones C code like ours calls).
FORTIFIABLE='memcpy|memmove|memset|strcpy|strncpy|strcat|strncat|stpcpy|sprintf|snprintf|vsprintf|vsnprintf|printf|fprintf|vfprintf|dprintf|vdprintf|read|pread|pread64|readlink|readlinkat|recv|recvfrom|realpath|getcwd|poll|ppoll|fgets|fread|explicit_bzero|mbstowcs|wcstombs'

check_elf() {
	f=$1 kind=$2
	checked=$((checked + 1))
	hdr=$(readelf -hW "$f" 2>/dev/null) || { bad "$f" "not an ELF file"; return; }
	dyn=$(readelf -dW "$f")
	if [ "$kind" = exe ]; then
		echo "$hdr" | grep -q 'Type:.*DYN' || bad "$f" "not PIE (ELF type is not DYN)"
		echo "$dyn" | grep -q 'FLAGS_1.*PIE' || bad "$f" "no DF_1_PIE in FLAGS_1"
	fi
	echo "$dyn" | grep -Eq '\(FLAGS\).*BIND_NOW|FLAGS_1.*[: ]NOW' ||
		bad "$f" "no BIND_NOW (link with -Wl,-z,now)"
	readelf -lW "$f" | grep -q GNU_RELRO || bad "$f" "no GNU_RELRO segment"
	syms=$(readelf --dyn-syms -W "$f" | awk '$7 == "UND" {print $8}' | sed 's/@.*//')
	if [ "$san" = 0 ]; then
		echo "$syms" | grep -qx '__stack_chk_fail' ||
			bad "$f" "__stack_chk_fail not imported (no -fstack-protector-strong)"
		plain=$(echo "$syms" | grep -Ex "($FORTIFIABLE)" | tr '\n' ' ')
		chk=$(echo "$syms" | grep -Ex "__($FORTIFIABLE)_chk" | tr '\n' ' ')
		if [ -n "$plain" ] && [ -z "$chk" ]; then
			bad "$f" "imports fortifiable $plain but no __*_chk (no _FORTIFY_SOURCE)"
		fi
	fi
	echo "checked $f ($kind)"
}

for f in "$BUILD"/bin/* "$BUILD"/tests/bin/*; do
	[ -f "$f" ] && [ -x "$f" ] && check_elf "$f" exe
done
for f in "$BUILD"/lib/*.so.*; do
	[ -f "$f" ] && check_elf "$f" lib
done
if [ "$(uname -m)" = x86_64 ]; then
	nobj=0 nocet=0
	for o in $(find "$BUILD/obj" -name '*.o'); do
		nobj=$((nobj + 1))
		readelf -nW "$o" | grep -q 'x86 feature:.*IBT.*SHSTK' ||
			nocet=$((nocet + 1))
	done
	[ "$nocet" = 0 ] ||
		bad "$BUILD/obj" "$nocet of $nobj objects lack IBT/SHSTK (no -fcf-protection)"
	echo "checked $nobj objects for IBT/SHSTK"
fi
if [ "$san" = 0 ]; then
	for flag in -fstack-protector-strong -fstack-clash-protection \
		-D_FORTIFY_SOURCE=2 -Wl,-z,relro -Wl,-z,now -pie; do
		grep -q -- "$flag" "$BUILD/flags.txt" 2>/dev/null ||
			bad "$BUILD/flags.txt" "build flags lack $flag"
	done
fi
[ "$checked" -ge 5 ] || bad "$BUILD" "only $checked ELF files found"
if [ "$fail" != 0 ]; then
	echo "build_hardening: $fail problems in $checked files"
	exit 1
fi
echo "build_hardening: $checked files hardened"
exit 0
