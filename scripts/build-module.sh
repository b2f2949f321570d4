#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR OUTDIR [MAKE_ARG...]: build neuron.ko and
# neuron_sim.ko (and neuron_kunit.ko, see Kbuild) against the
# kernel headers tree KDIR, out of tree in OUTDIR (e.g. build/<release>/).
# OUTDIR is recreated from the sources (Kbuild, VERSION, driver/, uapi/) each
# time, so every file is compiled and every warning shows. Extra arguments go
# to make (W=1, C=2, ...; NEURON_GCOV=1 profiles the module with gcov, for a
# kernel with CONFIG_GCOV_KERNEL: see Kbuild). NEURON_SRC: another source
# tree (default: this one).
#
# A headers tree holding a .neuron-chroot file (scripts/fetch-kernel.sh
# writes it for kernels built with a newer toolchain than the host's, e.g.
# trixie-backports) names a Debian suite: make then runs inside that suite's
# chroot (scripts/chroot.sh, made once and cached), with the headers tree
# and OUTDIR bind-mounted at their own paths. The output is the same.

. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 KDIR OUTDIR [MAKE_ARG...]"
kdir=$1 out=$2
shift 2
src=${NEURON_SRC:-$NEURON_TOP}
[ -f "$kdir/Makefile" ] || die "$kdir: not a kernel headers tree"
[ -f "$src/Kbuild" ] || die "$src/Kbuild: no module sources"

need_pkgs make gcc libc6-dev bc kmod dwarves
if [ -e "$out" ]; then
	[ -f "$out/.neuron-build" ] || [ -z "$(ls -A "$out")" ] ||
		die "$out: not a build folder of this script, not wiping it"
	rm -rf "$out"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
touch "$out/.neuron-build"
for f in Kbuild VERSION driver uapi; do
	[ ! -e "$src/$f" ] || cp -a "$src/$f" "$out/"
done
kdir=$(cd "$kdir" && pwd)
if [ -f "$kdir/.neuron-chroot" ]; then
	# The whole unpacked kernel (KDIR is <kernel>/root/usr/src/<headers>:
	# its Makefile includes the -common tree, whose scripts link to kbuild).
	kroot=$(cd "$kdir/../../.." && pwd)
	nice "$(dirname "$0")/chroot.sh" -b "$kroot" -b "$out" "$(cat "$kdir/.neuron-chroot")" \
		make -j2 -C "$kdir" M="$out" "$@" modules
else
	nice make -j2 -C "$kdir" M="$out" "$@" modules
fi
