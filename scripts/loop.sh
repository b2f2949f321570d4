# SPDX-License-Identifier: GPL-2.0
# Steps of the VM test loop shared by check.sh and demo.sh. Source it after
# lib.sh. Each step writes its output to a log file and returns non-zero on
# failure. NEURON_SRC selects another source tree to test (default: this one).

S="$NEURON_TOP/scripts"
SRC=$(cd "${NEURON_SRC:-$NEURON_TOP}" && pwd)
BUILD="$NEURON_TOP/build"

loop_prereqs() {
	need_pkgs qemu-system-x86 busybox-static cpio kmod gcc make libc6-dev \
		binutils bc xz-utils zstd dwarves linux-source-6.1
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

# module_build KDIR OUTDIR LOG: build neuron.ko into OUTDIR. Fails on a
# build error and on any warning (OUTDIR/neuron.ko may exist then).
module_build() {
	"$S/build-module.sh" "$1" "$2" >"$3" 2>&1 && [ -f "$2/neuron.ko" ] &&
		[ -z "$(bad_lines "$3")" ]
}

# info_build OUTDIR: build the static neuron-info tool into OUTDIR.
info_build() {
	mkdir -p "$1"
	gcc -static -O2 -Wall -I "$SRC/uapi" -o "$1/neuron-info" "$SRC/tools/neuron-info.c"
}

# progs_build OUTDIR LOG: build the static selftests (neuron_*) and
# neuron-info into OUTDIR. Fails on a build error or any warning.
progs_build() {
	local inc
	rm -rf "$1" && mkdir -p "$1"
	{
		inc=$(linux_source_dir)/tools/testing/selftests &&
			make -C "$SRC/selftests/neuron" OUTPUT="$1" KSFT_INC="$inc" &&
			info_build "$1"
	} >"$2" 2>&1 && ls "$1"/neuron_* >/dev/null 2>&1 && [ -z "$(bad_lines "$2")" ]
}

# vm_test VMLINUX DIR INITRAMFS_ARG...: pack an initramfs (scripts/
# initramfs.sh arguments), boot it, judge DIR/serial.log. Sets COUNTS to
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
	"$S/vm.sh" "$vmlinux" "$dir/initramfs.cpio" "$dir/serial.log" 2>>"$dir/verdict.txt" ||
		echo "verdict: QEMU exit status $?" >>"$dir/verdict.txt"
	COUNTS=$("$S/verdict.sh" "$dir/serial.log" 2>>"$dir/verdict.txt") || rc=1
	return $rc
}

# program_output LOG NAME: what program NAME printed in the VM.
program_output() {
	tr -d '\r' <"$1" | awk -v b="### NEURON BEGIN $2 ###" -v e="### NEURON END $2 " '
		index($0, e) { on = 0 } on { print } index($0, b) { on = 1 }'
}
