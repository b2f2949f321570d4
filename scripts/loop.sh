# SPDX-License-Identifier: GPL-2.0
# Steps of the VM test loop shared by check.sh, demo.sh and bench.sh. Source
# it after lib.sh. Each step writes its output to a log file and returns
# non-zero on failure. NEURON_SRC selects another source tree to test
# (default: this one).

S="$NEURON_TOP/scripts"
SRC=$(cd "${NEURON_SRC:-$NEURON_TOP}" && pwd)
BUILD="$NEURON_TOP/build"

loop_prereqs() {
	need_pkgs qemu-system-x86 busybox-static cpio kmod gcc make libc6-dev \
		gcc-multilib libc6-dev-i386 binutils bc xz-utils zstd dwarves \
		linux-source-6.1 g++ pkg-config libarchive-dev zlib1g-dev clang clang-14 libclang-rt-14-dev \
		libnl-3-dev libnl-genl-3-dev libncurses-dev ncurses-base
}

# vm_run_prep NAME: the start of a one-off VM run (demo.sh, bench.sh): the
# packages, a fresh log folder RUN for NAME, the 6.1 kernel (KREL, VMLINUX,
# KDIR) and neuron.ko in $BUILD/$KREL. Build warnings are shown but do not
# stop the run; a failed build or fetch ends the script.
vm_run_prep() {
	loop_prereqs
	RUN=$(new_run_dir "$1")
	kernel_env 6.1 "$RUN/fetch.log" || { tail "$RUN/fetch.log"; die "cannot fetch the kernel"; }
	log "building neuron.ko for $KREL"
	if ! module_build "$KDIR" "$BUILD/$KREL" "$RUN/build.log"; then
		bad_lines "$RUN/build.log" | tail -n 20
		[ -f "$BUILD/$KREL/neuron.ko" ] || die "build failed: $RUN/build.log"
	fi
}

# new_run_dir NAME: print a fresh log folder build/logs/<time>-NAME (also
# reachable as build/logs/latest); only the newest 10 runs are kept.
new_run_dir() {
	local d
	d="$BUILD/logs/$(date +%Y%m%d-%H%M%S)-$1"
	mkdir -p "$d"
	ls -1d "$BUILD"/logs/*-*/ | head -n -10 | xargs -r rm -rf
	ln -sfn "${d##*/}" "$BUILD/logs/latest"
	echo "$d"
}

# Lines of a build log that fail the build: compiler/modpost warnings, errors.
bad_lines() { grep -iE 'warning:|error:' "$1" || true; }

# kernel_env SERIES LOG: fetch kernel SERIES; sets KREL, VMLINUX, KDIR.
kernel_env() {
	local env
	env=$("$S/fetch-kernel.sh" "$1" 2>>"$2") || return 1
	eval "$env"
}

# debug_env LOG: build (once, cached) the debug test kernel; sets KDIR,
# IMAGE (its bzImage) and KRELEASE.
debug_env() {
	local env
	env=$("$S/debug-kernel.sh" 2>>"$1") || return 1
	eval "$env"
}

# module_build KDIR OUTDIR LOG [MAKE_ARG...]: build neuron.ko and
# neuron_sim.ko into OUTDIR (and neuron_kunit.ko when KDIR has KUnit: it
# must then be there too).
# Fails on a build error and on any warning (OUTDIR/neuron.ko may exist then).
module_build() {
	local kdir=$1 out=$2 logf=$3
	shift 3
	"$S/build-module.sh" "$kdir" "$out" "$@" >"$logf" 2>&1 && [ -f "$out/neuron.ko" ] &&
		[ -f "$out/neuron_sim.ko" ] &&
		{ ! grep -q '^CONFIG_KUNIT=y' "$kdir/.config" 2>/dev/null ||
			[ -f "$out/neuron_kunit.ko" ]; } &&
		[ -z "$(bad_lines "$logf")" ]
}

# info_build OUTDIR: build the static neuron-info tool into OUTDIR (with
# libneuron, built into OUTDIR/lib/libneuron).
info_build() {
	mkdir -p "$1"
	make -C "$SRC/tools/lib/neuron" O="$1/lib/libneuron" &&
		gcc -static -O2 -Wall -I "$SRC/uapi" -I "$SRC/tools/lib/neuron" -o "$1/neuron-info" \
			"$SRC/tools/neuron-info.c" "$1/lib/libneuron/libneuron.a"
}

# progs_build OUTDIR LOG: build the static selftests (neuron_*) and
# neuron-info into OUTDIR, and the 32-bit selftests (neuron_*_32) into
# OUTDIR-32; and the netlink tools (neuron-ls, neuron-monitor,
# neuron-nlbench, tools/Makefile.nl) into OUTDIR, linked with the shared
# libnl-3 (a VM gets the libraries with initramfs.sh -l; a static link of
# libnl draws glibc's warnings about getaddrinfo). Fails on a build error
# or any warning.
progs_build() {
	local inc
	rm -rf "$1" "$1-32" && mkdir -p "$1"
	{
		inc=$(linux_source_dir)/tools/testing/selftests &&
			make -C "$SRC/selftests/neuron" OUTPUT="$1" OUTPUT_32="$1-32" \
				KSFT_INC="$inc" M32=1 &&
			info_build "$1" &&
			make -f "$SRC/tools/Makefile.nl" O="$1" STATIC=0
	} >"$2" 2>&1 && ls "$1"/neuron_* "$1-32"/neuron_*_32 >/dev/null 2>&1 &&
		[ -z "$(bad_lines "$2")" ]
}

# shim_build DIR LOG: libnrt.so.1 and nrt.pc, neuron-pack and neuron-dump,
# the example models (.nmodel), all installed with PREFIX=/usr into
# DIR/root (the VM's /usr: scripts/initramfs.sh -l); then, against that
# install, the VM's API tests (DIR/progs/test_nrt) and the examples
# (DIR/progs/nrt_example, nrt_mlp_demo, built through pkg-config as a
# user would: --define-prefix finds the install from nrt.pc's place). Fails
# on a build error or any warning.
shim_build() {
	local d=$1 inc
	rm -rf "$d" && mkdir -p "$d/progs"
	{
		inc=$(linux_source_dir)/tools/testing/selftests &&
			make -C "$SRC/libshim" O="$d/lib" all &&
			make -C "$SRC/libshim" O="$d/lib" install DESTDIR="$d/root" PREFIX=/usr &&
			make -f "$SRC/libshim/Makefile.container" O="$d/lib" container-tools &&
			install -d "$d/root/usr/bin" "$d/root/usr/share/neuron/models" &&
			install -m 0755 "$d/lib/neuron-pack" "$d/lib/neuron-dump" "$d/root/usr/bin/" &&
			install -m 0644 "$d"/lib/models/*.nmodel "$d/root/usr/share/neuron/models/" &&
			gcc -O2 -Wall -Wextra -Werror -I"$d/root/usr/include" -I"$SRC/uapi" \
				-I"$inc" -I"$SRC/tools/lib/neuron" -o "$d/progs/test_nrt" \
				"$SRC/libshim/tests/test_nrt.c" "$d/lib/libneuron/libneuron.a" \
				-L"$d/root/usr/lib" -lnrt -pthread -lm &&
			PKG_CONFIG_PATH="$d/root/usr/lib/pkgconfig" \
				make -C "$SRC/examples" O="$d/progs" CFLAGS="-O2 -Wall -Wextra -Werror" \
				PKG_CONFIG="pkg-config --define-prefix"
	} >"$2" 2>&1 && [ -x "$d/progs/test_nrt" ] && [ -z "$(bad_lines "$2")" ]
}

# vm_test VMLINUX DIR INITRAMFS_ARG...: pack an initramfs (scripts/
# initramfs.sh arguments), boot it, judge DIR/serial.log. With VM_PCI set
# (trn1 or trn2), the VM has the device model of that personality
# (scripts/vm-pci.sh; NEURON_VM_IOMMU=1 adds a vIOMMU). Sets COUNTS to
# "PASSED FAILED SKIPPED"; the problems found are in DIR/verdict.txt.
vm_test() {
	local vmlinux=$1 dir=$2 rc=0
	shift 2
	mkdir -p "$dir"
	: >"$dir/verdict.txt"
	COUNTS="0 0 0"
	if ! "$S/initramfs.sh" -o "$dir/initramfs.cpio" "$@" 2>"$dir/verdict.txt"; then
		echo "verdict: initramfs.sh failed" >>"$dir/verdict.txt"
		return 1
	fi
	if [ -n "${VM_PCI:-}" ]; then
		"$S/vm-pci.sh" "$VM_PCI" "$vmlinux" "$dir/initramfs.cpio" "$dir/serial.log" \
			2>>"$dir/verdict.txt" || echo "verdict: QEMU exit status $?" >>"$dir/verdict.txt"
	else
		"$S/vm.sh" "$vmlinux" "$dir/initramfs.cpio" "$dir/serial.log" 2>>"$dir/verdict.txt" ||
			echo "verdict: QEMU exit status $?" >>"$dir/verdict.txt"
	fi
	COUNTS=$("$S/verdict.sh" "$dir/serial.log" 2>>"$dir/verdict.txt") || rc=1
	return $rc
}

# gcov_unpack LOG BUILDDIR: put the .gcda files that the debug VM sent in
# its serial LOG (base64 between GCOV markers, paths relative to the guest's
# /sys/kernel/debug/gcov, i.e. the absolute build path) beside the .gcno
# files of BUILDDIR, the unchanged build folder of that run.
gcov_unpack() {
	local tmp rc=0
	tmp=$(mktemp -d)
	tr -d '\r' <"$1" | sed -n '/^### NEURON GCOV-BEGIN ###$/,/^### NEURON GCOV-END /p' |
		grep -E '^[A-Za-z0-9+/=]+$' | base64 -d | tar -xz -C "$tmp" || rc=1
	if [ $rc -eq 0 ] && [ -d "$tmp$2" ] && [ -n "$(find "$tmp$2" -name '*.gcda')" ]; then
		find "$2" -name '*.gcda' -delete
		cp -r "$tmp$2/." "$2/"
	else
		echo "gcov_unpack: no .gcda files of $2 in $1" >&2
		rc=1
	fi
	rm -rf "$tmp"
	return $rc
}

# coverage_table BUILDDIR: run gcov on the driver's sources in BUILDDIR
# (after gcov_unpack) and print "FILE PERCENT LINES" per file of driver/
# (KUnit suites left out) and a TOTAL line (executed lines / all lines).
coverage_table() {
	local f dir
	dir=$(cd "$1" && pwd)
	(cd "$dir" && for f in $(find driver -name '*.c' ! -path 'driver/tests/*' | sort); do
		gcov -n -o "$(dirname "$f")" "$f" 2>/dev/null
	done) | awk -v dir="$dir/" '
		/^File / { file = $2; gsub(/\047/, "", file); if (index(file, dir) == 1) file = substr(file, length(dir) + 1) }
		/^Lines executed:/ && file ~ /^driver\/.*\.c$/ && !(file in seen) {
			seen[file] = 1; split($2, a, "%"); sub(/.*:/, "", a[1])
			n = $NF; pct = a[1]; hit += pct * n / 100; all += n
			printf "%-28s %6.1f%% %5d\n", file, pct, n
			file = ""
		}
		END {
			if (!all) { print "coverage_table: no gcov data" > "/dev/stderr"; exit 1 }
			printf "%-28s %6.1f%% %5d\n", "TOTAL", 100 * hit / all, all
		}'
}

# program_output LOG NAME: what program NAME printed in the VM.
program_output() {
	tr -d '\r' <"$1" | awk -v b="### NEURON BEGIN $2 ###" -v e="### NEURON END $2 " '
		index($0, e) { on = 0 } on { print } index($0, b) { on = 1 }'
}
