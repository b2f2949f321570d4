#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# chroot.sh [-b PATH]... SUITE [CMD [ARG...]]: a minimal Debian SUITE
# userland that builds kernel modules, for kernels whose headers name
# another compiler than the host's: trixie's kernels need gcc-14 and glibc
# 2.38+ (the host tools of linux-kbuild are linked against them); bullseye's
# 5.10 kernel was built with gcc-10, which bookworm does not have, and its
# modules are built with that compiler in a bullseye userland.
#
# Made once with debootstrap (--variant=minbase plus $PKGS, about 1 minute,
# the packages checked against debian-archive-keyring) from the mirror the
# system already uses, and cached in $NEURON_CACHE/chroot/SUITE-<key>/, the
# key being a hash of the package list: a new list makes a new chroot, later
# runs and fresh clones reuse it. A lock makes concurrent first calls wait
# for one debootstrap.
#
# Without CMD: print the chroot's folder. With CMD: run it inside the chroot
# as root, in the current folder (if one of the PATHs or present in the
# chroot, else in /), with each PATH bind-mounted at the same path (so absolute
# paths such as a headers tree's include line stay valid), plus /proc and
# /dev. The mounts live in a private mount namespace (unshare -m): nobody
# else sees them, and they go away with the command whatever happens to it;
# an exit trap also unmounts them in order. The mount points stay in the
# chroot as empty folders: removing one while another build has it mounted
# in its own namespace would detach that mount. Exit status: CMD's.

. "$(dirname "$0")/lib.sh"


binds=()
while [ $# -gt 0 ] && [ "$1" = -b ]; do
	[ $# -ge 2 ] || die "-b needs a path"
	p=$(cd "$2" 2>/dev/null && pwd) || die "$2: no such folder"
	binds+=("$p")
	shift 2
done
[ $# -ge 1 ] || die "usage: $0 [-b PATH]... SUITE [CMD [ARG...]]"
suite=$1
shift
# What each suite's chroot holds: the compiler of that suite's kernel
# headers, make, the C library headers and pahole (BTF of the module;
# bullseye's is in dwarves). trixie-dkms: trixie with its dkms (3.2) and
# what scripts/dkms-test.sh uses, for the install test with that dkms.
dist=$suite
case $suite in
trixie) PKGS=gcc-14,make,libc6-dev,pahole ;;
trixie-dkms) dist=trixie PKGS=gcc-14,gcc,make,libc6-dev,pahole,dkms,kmod,openssl,busybox-static ;;
bullseye) PKGS=gcc-10,make,libc6-dev,dwarves ;;
*) die "$suite: unknown suite (known: trixie, trixie-dkms, bullseye)" ;;
esac

key=$(printf '%s %s\n' "$suite" "$PKGS" | md5sum | cut -c1-8)
root="$NEURON_CACHE/chroot/$suite-$key"

if [ ! -f "$root/.neuron-ready" ]; then
	need_pkgs debootstrap util-linux
	debootstrap_once "$root" "$dist" minbase "$PKGS"
fi

if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi

# Inside the new mount namespace: mount, trap the unmount, run.
inner="$(declare -f unmount_all)"'
root=$1 cwd=$2 nb=$3
shift 3
binds=("${@:1:$nb}")
shift "$nb"
mounted=()
trap unmount_all EXIT
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --bind /dev "$root/dev" && mounted+=("$root/dev")
for p in "${binds[@]}"; do
	mkdir -p "$root$p"
	mount --bind "$p" "$root$p" && mounted+=("$root$p")
done
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	LC_ALL=C.UTF-8 /bin/sh -c '\''cd "$1" 2>/dev/null || cd /; shift; exec "$@"'\'' sh "$cwd" "$@"
'
as_root unshare -m bash -euc "$inner" inner "$root" "$PWD" ${#binds[@]} "${binds[@]}" "$@"
