#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/gates.sh [KDIR]: the style gates of the neuron module.
#
#   w1          W=1 build; any "warning:" or "error:" line fails (the shipped
#               Kbuild has no -Werror: users' DKMS builds must never break on
#               a new compiler warning, so the gate greps instead)
#   sparse      sparse (C=2) on every source file; any warning/error fails
#   checkpatch  checkpatch.pl --strict on driver/ and uapi/ C files
#   checkpatch-userspace  the same on selftests/ and tools/ C files
#   checkpatch-fuzz  the same on tools/fuzz (the names libFuzzer fixes allowed)
#   checkpatch-libshim  the same on libshim/ and examples/ (userspace rules)
#   uapi-c99, uapi-m32, uapi-c++
#               the uapi headers compile alone in userspace, in C99 (64 and
#               32 bit) and C++, with -Wpadded (no implicit padding) and a
#               size that is a multiple of 8 for every struct
#   lock-rules  every *_locked function of driver/ starts with a lockdep
#               assertion and is named in docs/locking.md
#   build-5.10, build-6.12, build-trixie-bpo
#               W=1 builds against bullseye-security's 5.10 headers, the
#               bookworm-backports 6.12 headers and the newest
#               trixie-backports headers (7.x); 5.10 and 7.x are built in a
#               bullseye and a trixie chroot by scripts/build-module.sh, when
#               scripts/fetch-kernel.sh exists (skipped otherwise)
#
# KDIR defaults to the installed headers of Debian's current bookworm ABI.
# The sources are copied to a scratch folder (build/gates/ of the source
# tree); nothing is built inside the sources.  NEURON_SRC=DIR checks another
# copy of the tree (used to prove that each gate fires on a broken copy).
# Prints "gate: NAME ok|FAILED|skipped (...)" per gate; exits 1 if one failed.

. "$(dirname "$0")/lib.sh"

SRC=$(cd "${NEURON_SRC:-$NEURON_TOP}" && pwd)
SCRATCH="$SRC/build/gates"
start=$SECONDS
failed=()

need_pkgs make gcc g++ libc6-dev sparse perl

if [ $# -ge 1 ]; then
	KDIR=$1
else
	kabi=$(current_kabi)
	[ -n "$kabi" ] || die "cannot compute the current kernel ABI (apt-cache depends linux-headers-amd64)"
	KDIR=/usr/src/linux-headers-$kabi
	[ -d "$KDIR" ] || need_pkgs "linux-headers-$kabi"
fi
[ -f "$KDIR/Makefile" ] || die "no kernel headers at $KDIR"
[ -f "$SRC/Kbuild" ] || die "no Kbuild in $SRC"

# report NAME STATUS [OUTPUT]: print the offending lines, then the verdict.
report() {
	local name=$1 status=$2 out=${3:-}
	if [ "$status" = FAILED ]; then
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
		failed+=("$name")
	fi
	echo "gate: $name $status"
}

# copy_tree DEST: the files the module build needs, nothing else.
copy_tree() {
	local dest=$1 f
	rm -rf "$dest" && mkdir -p "$dest"
	for f in Kbuild VERSION driver uapi; do
		[ -e "$SRC/$f" ] && cp -a "$SRC/$f" "$dest/"
	done
	return 0
}

# kbuild KDIR DIR ARGS...: make the module in DIR, all output on stdout.
kbuild() {
	local kdir=$1 dir=$2
	shift 2
	nice make -j2 -C "$kdir" M="$dir" "$@" modules 2>&1
}

# Lines that fail a build gate: compiler and modpost warnings and errors.
# "Skipping BTF generation" (no vmlinux in a headers package) is harmless.
bad_lines() {
	grep -iE 'warning:|error:' | grep -v 'Skipping BTF generation' || true
}

# ---- 1. W=1 build, 2. sparse -------------------------------------------
mod="$SCRATCH/mod"
copy_tree "$mod"
rc=0
out=$(kbuild "$KDIR" "$mod" W=1) || rc=$?
bad=$(printf '%s\n' "$out" | bad_lines)
if [ $rc -ne 0 ] || [ -n "$bad" ] || [ ! -f "$mod/neuron.ko" ] ||
   [ ! -f "$mod/neuron_sim.ko" ]; then
	[ -n "$bad" ] || bad=$(printf '%s\n' "$out" | tail -n 20)
	report w1 FAILED "$bad"
else
	report w1 ok
fi

# C=2 runs sparse on every file without recompiling (same W=1 flags).
# Debian's sparse 0.6.4 needs no -Wno-* flags: on the 6.1 headers it is
# silent (measured with pci, srcu, cdev, dma-mapping, debugfs, xarray, io,
# interrupt, mm, iopoll, dmapool headers), so no path is filtered: any
# sparse warning or error, in our files or in a header, fails the gate.
if [ -f "$mod/neuron.ko" ]; then
	command -v sparse >/dev/null || die "sparse not found"
	rc=0
	out=$(kbuild "$KDIR" "$mod" W=1 C=2 CHECK=sparse) || rc=$?
	bad=$(printf '%s\n' "$out" | bad_lines)
	nchecked=$(printf '%s\n' "$out" | grep -c '^ *CHECK ' || true)
	if [ $rc -ne 0 ] || [ -n "$bad" ] || [ "$nchecked" -eq 0 ]; then
		[ "$nchecked" -ne 0 ] || bad+=$'\n'"sparse checked no file"
		report sparse FAILED "$bad"
	else
		report sparse ok
	fi
else
	report sparse FAILED "no module was built (see w1)"
fi

# ---- 3. checkpatch -------------------------------------------------------
# checkpatch.pl finds spelling.txt and const_structs.checkpatch next to
# itself (linux_source_dir unpacks the three together).  Files are checked
# under the path they would have in the kernel tree, so that checkpatch
# applies its in-tree rules: uapi/X is include/uapi/X (no BIT() there,
# since BIT() is not exported to userspace), selftests/X is
# tools/testing/selftests/X (userspace C types allowed).
lsrc=$(linux_source_dir)
checkpatch="$lsrc/scripts/checkpatch.pl"
for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
	[ -f "$lsrc/scripts/$f" ] || die "missing $lsrc/scripts/$f"
done

# run_checkpatch NAME DIR...: checkpatch every .c/.h under DIR... of $SRC.
run_checkpatch() {
	local name=$1 cp="$SCRATCH/checkpatch-$1" f intree out bad files=()
	shift
	rm -rf "$cp" && mkdir -p "$cp"
	while IFS= read -r f; do
		case $f in
		uapi/*) intree=include/$f ;;
		selftests/*) intree=tools/testing/$f ;;
		libshim/* | examples/*) intree=tools/$f ;;
		*) intree=$f ;;
		esac
		mkdir -p "$cp/$(dirname "$intree")"
		cp "$SRC/$f" "$cp/$intree"
		files+=("$intree")
	done < <(cd "$SRC" && for d in "$@"; do
		[ -d "$d" ] && find "$d" -name '*.[ch]' -type f ! -path "${CP_SKIP:-/}*"; done | sort)
	if [ ${#files[@]} -eq 0 ]; then
		report "$name" "skipped (no C files in $*)"
		return
	fi
	out=$(cd "$cp" && perl "$checkpatch" --strict --no-tree --terse \
		--no-summary --show-types ${CP_IGNORE:+--ignore "$CP_IGNORE"} \
		-f "${files[@]}" 2>&1) || true
	# map the in-tree paths back to ours
	bad=$(printf '%s\n' "$out" | grep -E 'WARNING|ERROR|CHECK|No typos' |
		sed -e 's@^include/uapi/@uapi/@' \
		    -e 's@^tools/testing/selftests/@selftests/@' \
		    -e 's@^tools/libshim/@libshim/@' -e 's@^tools/examples/@examples/@' || true)
	if [ -n "$bad" ]; then
		report "$name" FAILED "$bad"
	else
		report "$name" ok
	fi
}
run_checkpatch checkpatch driver uapi
CP_SKIP=tools/fuzz/ run_checkpatch checkpatch-userspace selftests tools
# The fuzzer (tools/fuzz): libFuzzer's entry points have fixed mixed-case
# names (CAMELCASE), its extra counters need the section attribute and
# userspace has no __section() or __printf() (PREFER_DEFINED_ATTRIBUTE_MACRO);
# PICK() takes its table twice, for its size (MACRO_ARG_REUSE).
CP_IGNORE=CAMELCASE,PREFER_DEFINED_ATTRIBUTE_MACRO,MACRO_ARG_REUSE \
	run_checkpatch checkpatch-fuzz tools/fuzz
# The nrt_* library and its examples: userspace C in kernel style. The
# SDK's API mandates its typedefs (NEW_TYPEDEFS) and C types; the log lines
# name the API function a caller called, on purpose (EMBEDDED_FUNCTION_NAME);
# libFuzzer's entry point has a fixed mixed-case name (CAMELCASE).
CP_IGNORE=NEW_TYPEDEFS,EMBEDDED_FUNCTION_NAME,PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE \
	run_checkpatch checkpatch-libshim libshim examples

# ---- 4. the uapi headers alone in userspace -----------------------------
# Every struct of the uapi must have the same layout for 32- and 64-bit
# callers: no implicit padding (-Wpadded, both ABIs) and a size that is a
# multiple of 8 (static assertion).
uapi_dir="$SCRATCH/uapi-test"
rm -rf "$uapi_dir" && mkdir -p "$uapi_dir"
mapfile -t headers < <(cd "$SRC/uapi" && find . -name '*.h' -type f | sed 's@^\./@@' | sort)
{
	echo '/* generated by scripts/gates.sh */'
	for h in "${headers[@]}"; do echo "#include <$h>"; done
	# C99 has no _Static_assert: a negative array size fails in C and C++.
	(cd "$SRC/uapi" && cat "${headers[@]}") |
		sed -n 's/^struct \([a-z_0-9]*\) {.*/\1/p' | sort -u |
		while read -r s; do
			echo "typedef char ${s}_size_is_a_multiple_of_8[sizeof(struct $s) % 8 == 0 ? 1 : -1];"
		done
	echo 'int neuron_uapi_test(void);'
	echo 'int neuron_uapi_test(void) { return 0; }'
} >"$uapi_dir/t.c"
cflags=(-Wall -Wextra -Werror -Wpadded -I"$SRC/uapi" -fsyntax-only)

uapi_gate() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		report "$name" ok
	else
		report "$name" FAILED "$out"
	fi
}
uapi_gate uapi-c99 gcc -std=c99 -pedantic "${cflags[@]}" "$uapi_dir/t.c"

# -m32: with the multilib (libc6-dev-i386) the i386 asm headers exist.
# Without it, the amd64 linux-libc-dev's asm/ headers are used: the x86
# uapi asm headers are bi-arch (they select the 32-bit variants on
# __i386__), and the test includes no libc header.
m32_extra=()
if ! echo '#include <asm/types.h>' | gcc -m32 -E -x c - >/dev/null 2>&1; then
	m32_extra=(-idirafter "/usr/include/$(gcc -print-multiarch)")
fi
if echo 'int x;' | gcc -m32 -fsyntax-only -x c - >/dev/null 2>&1; then
	[ ${#m32_extra[@]} -eq 0 ] ||
		echo "    (uapi-m32: no multilib, using the bi-arch x86 asm headers of linux-libc-dev)"
	uapi_gate uapi-m32 gcc -m32 -std=c99 -pedantic "${cflags[@]}" "${m32_extra[@]}" "$uapi_dir/t.c"
else
	report uapi-m32 "skipped (gcc has no -m32 support here)"
fi
if command -v g++ >/dev/null; then
	uapi_gate uapi-c++ g++ -x c++ -std=c++11 -pedantic "${cflags[@]}" "$uapi_dir/t.c"
else
	report uapi-c++ "skipped (no g++)"
fi

# ---- 4b. lock rules ---------------------------------------------------------
# A function named *_locked must be called with a lock held: its body starts
# with lockdep_assert_held() (or another lockdep_assert*) within its first
# 12 lines, and docs/locking.md names it, so the map and the checks agree.
bad=$(cd "$SRC" && for f in $(grep -rl --include='*.c' '_locked(' driver); do
	awk -v file="$f" '
	/^[a-z].*[a-z_0-9]+_locked\(/ && !/;[ \t]*$/ {
		match($0, /[a-z_0-9]+_locked\(/); name = substr($0, RSTART, RLENGTH - 1)
		want = 1; body = 0; next }
	want && /^\{/ { body = 1; n = 0; next }
	want && body {
		n++
		if ($0 ~ /lockdep_assert/) { print "ok " name; want = 0 }
		else if (n > 12 || /^\}/) { print "bad " name " (" file "): no lockdep_assert in its first lines"; want = 0 }
	}' "$f"
done | while read -r what name rest; do
	if [ "$what" = bad ]; then
		echo "$name $rest"
	elif ! grep -q "\b$name()" docs/locking.md; then
		echo "$name: not named in docs/locking.md"
	fi
done)
nlocked=$(cd "$SRC" && grep -rh --include='*.c' -E '^[a-z].*[a-z_0-9]+_locked\(' driver | grep -vc ';[[:space:]]*$' || true)
if [ -n "$bad" ] || [ "${nlocked:-0}" -eq 0 ]; then
	report lock-rules FAILED "${bad:-no *_locked function found}"
else
	report lock-rules "ok ($nlocked *_locked functions assert their lock)"
fi

# ---- 5. builds against the 5.10, 6.12 and trixie-backports headers -------
# scripts/fetch-kernel.sh (VM loop) prints the KDIR of a kernel series;
# scripts/build-module.sh builds in the bullseye or trixie chroot when the
# headers ask.
fk="$NEURON_TOP/scripts/fetch-kernel.sh"
bm="$NEURON_TOP/scripts/build-module.sh"
for series in 5.10 6.12 trixie-bpo; do
	name=build-$series
	if [ ! -x "$fk" ] || [ ! -x "$bm" ]; then
		report "$name" "skipped (no scripts/fetch-kernel.sh or build-module.sh)"
		continue
	fi
	mkdir -p "$SCRATCH"
	if kdirx=$(envx=$("$fk" "$series" 2>"$SCRATCH/fetch-$series.log") &&
		     eval "$envx" && echo "$KDIR") &&
	   [ -f "$kdirx/Makefile" ]; then
		modx="$SCRATCH/mod-$series"
		rm -rf "$modx"
		rc=0
		out=$("$bm" "$kdirx" "$modx" W=1 2>&1) || rc=$?
		bad=$(printf '%s\n' "$out" | bad_lines)
		if [ $rc -ne 0 ] || [ -n "$bad" ] || [ ! -f "$modx/neuron.ko" ] ||
		   [ ! -f "$modx/neuron_sim.ko" ]; then
			[ -n "$bad" ] || bad=$(printf '%s\n' "$out" | tail -n 20)
			report "$name" FAILED "$bad"
		else
			report "$name" "ok (${kdirx##*/linux-headers-})"
		fi
	else
		report "$name" FAILED "$(tail -n 20 "$SCRATCH/fetch-$series.log")"
	fi
done

if [ ${#failed[@]} -ne 0 ]; then
	echo "gates: FAILED: ${failed[*]} ($((SECONDS - start)) s, KDIR $KDIR)"
	exit 1
fi
echo "gates: all ok ($((SECONDS - start)) s, KDIR $KDIR)"
