#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh SERIES: fetch a Debian kernel to boot and build against.
#   5.10        the newest 5.10 ABI of bullseye-security (Debian 11's
#               kernel, the oldest the module supports); its headers name
#               gcc-10: modules for it are built in a bullseye chroot
#               (scripts/chroot.sh, made once)
#   6.1         Debian bookworm's current amd64 ABI
#   6.12        the newest 6.12 ABI of bookworm-backports
#   trixie-bpo  the newest amd64 ABI of trixie-backports (7.x in late 2026)
#               that has an image to boot (scripts/kernel-pick.sh),
#               whatever its version: a new upload is picked up by itself.
#               Its headers need trixie's gcc-14 and glibc: modules for it
#               are built in a trixie chroot (scripts/chroot.sh), which this
#               makes once; the headers tree names that suite in its
#               .neuron-chroot file, read by scripts/build-module.sh.
# Prints shell assignments (eval them, or source the env file they name):
#   KREL=<kernel release>  VMLINUX=<PVH-bootable ELF>  KDIR=<headers tree>
#   KENV=<this same list as a file>
# Everything lands in $NEURON_CACHE/kernels/<release>/; packages are fetched
# with `apt-get download` and unpacked with `dpkg -x`, never installed. A warm
# call does no network work.

. "$(dirname "$0")/lib.sh"

series=${1:-}
case "$series" in
5.10) suite=bullseye-security chroot_suite=bullseye ;;
6.1) suite='' chroot_suite='' ;;
6.12) suite=bookworm-backports chroot_suite='' ;;
trixie-bpo) suite=trixie-backports chroot_suite=trixie ;;
*) die "usage: $0 5.10|6.1|6.12|trixie-bpo" ;;
esac

need_pkgs xz-utils zstd

# Private apt configuration for another suite (backports, bullseye-security):
# own lists and cache under $NEURON_CACHE, the mirror the system already
# uses (its security archive for a -security suite); the system's apt state
# stays untouched. Release files are checked against debian-archive-keyring
# (bookworm's package holds the bullseye and trixie keys too).
bpo_dir="$NEURON_CACHE/apt-$suite"
bpo_opts=(-o "Dir::Etc::SourceList=$bpo_dir/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$bpo_dir/lists"
	-o "Dir::Cache=$bpo_dir/cache" -o APT::Sandbox::User=root)

bpo_update() {
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg opt=
	[ -f "$keyring" ] && opt="[signed-by=$keyring] "
	mkdir -p "$bpo_dir/lists/partial" "$bpo_dir/cache/archives/partial"
	local mirror
	case $suite in
	*-security) mirror=$(debian_security_mirror) ;;
	*) mirror=$(debian_mirror) ;;
	esac
	echo "deb ${opt}$mirror $suite main" >"$bpo_dir/sources.list"
	log "apt-get update (private, $suite)"
	apt-get "${bpo_opts[@]}" update -qq >&2
}

# names: the package names the suite really has (dumpavail, not pkgnames:
# a name that is only provided cannot be downloaded), kernel packages only.
names() {
	if [ -z "$suite" ]; then
		apt-cache dumpavail 2>/dev/null
	else
		[ -f "$bpo_dir/sources.list" ] || return 0
		apt-cache "${bpo_opts[@]}" dumpavail 2>/dev/null
	fi | sed -n 's/^Package: \(linux-\(headers\|image\|binary\|kbuild\)-.*\)$/\1/p'
}

# resolve: set krel and image from the apt lists at hand (scripts/
# kernel-pick.sh: the newest release with headers and a bootable image);
# on failure its message names what is missing.
. "$(dirname "$0")/kernel-pick.sh"
resolve() {
	local re out
	krel='' image=''
	case $series in
	6.1)
		re=$(current_kabi | sed 's/[.+]/\\&/g')
		[ -n "$re" ] || { echo "no linux-headers-amd64 in the system's apt lists" >&2; return 1; }
		;;
	5.10) re='5\.10\.0-[0-9]+-amd64' ;;
	6.12) re='6\.12\.[0-9]+\+[a-z0-9]+-amd64' ;;
	*) re='[0-9]+\.[0-9]+\.[0-9]+\+[a-z0-9]+-amd64' ;;
	esac
	out=$(names | kernel_pick "$re" "${suite:-bookworm}") || return 1
	read -r krel image <<<"$out"
}

apt_() { # get|cache ARGS...: apt-get or apt-cache with the right configuration
	local tool=apt-$1
	shift
	if [ -z "$suite" ]; then "$tool" "$@"; else "$tool" "${bpo_opts[@]}" "$@"; fi
}

emit() {
	printf 'KREL=%q\nVMLINUX=%q\nKDIR=%q\nKENV=%q\n' "$krel" "$dir/vmlinux" \
		"$dir/root/usr/src/linux-headers-$krel" "$dir/env"
}

# The userland that builds modules for this kernel (once; warm: at once).
[ -z "$chroot_suite" ] || "$(dirname "$0")/chroot.sh" "$chroot_suite" >/dev/null

resolve 2>/dev/null || true
dir="$NEURON_CACHE/kernels/$krel"
if [ -n "$krel" ] && [ -f "$dir/env" ]; then
	cat "$dir/env"
	exit 0
fi

# Cold: one fetch of a series at a time (the cache is shared by every
# checkout of the machine); refresh the lists (we touch the network anyway),
# resolve again.
mkdir -p "$NEURON_CACHE/kernels"
exec 9>"$NEURON_CACHE/kernels/.fetch-$series.lock"
flock 9
if [ "$series" = 6.1 ]; then
	log "apt-get update (system)"
	as_root apt-get update -qq >&2
else
	bpo_update
fi
resolve || die "no $series kernel can be fetched (see above)"
log "$series: $krel, image from $image"
dir="$NEURON_CACHE/kernels/$krel"
[ -f "$dir/env" ] && { cat "$dir/env"; exit 0; }

log "fetching kernel $krel"
rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root" "$dir/image"
# The headers package names its -common and kbuild companions.
mapfile -t pkgs < <(apt_ cache depends "linux-headers-$krel" 2>/dev/null |
	sed -n 's/.*Depends: \(linux-\(headers\|kbuild\)-.*\)$/\1/p')
pkgs+=("$image" "linux-headers-$krel")
[ ${#pkgs[@]} -ge 4 ] || die "cannot resolve the headers packages of $krel"
(cd "$dir/debs" && apt_ get -o APT::Sandbox::User=root download -qq "${pkgs[@]}" >&2)

# Headers: merge the three packages, point the Makefile (its include line,
# and the KBUILD_OUTPUT line that 7.x headers have) at the merged tree.
for deb in "$dir"/debs/linux-{headers,kbuild}-*.deb; do
	dpkg -x "$deb" "$dir/root"
done
hdr="$dir/root/usr/src/linux-headers-$krel"
sed -i -e "s|^include /usr/src/|include $dir/root/usr/src/|" \
	-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$dir/root/usr/src/|" "$hdr/Makefile"
grep -q "^include $dir/root/" "$hdr/Makefile" || die "unexpected $hdr/Makefile"
! grep -q '^KBUILD_OUTPUT=/usr/' "$hdr/Makefile" || die "unexpected $hdr/Makefile"
[ -z "$chroot_suite" ] || echo "$chroot_suite" >"$hdr/.neuron-chroot"

# Image: only the compressed kernel, then the ELF vmlinux from its payload.
# Up to 6.18 it is boot/vmlinuz-KREL; from 6.19 on it is under
# usr/lib/modules/KREL/ (vmlinuz, or vmlinuz.unsigned in the unsigned
# package). A signed image boots the same (QEMU checks no signature).
dpkg-deb --fsys-tarfile "$dir/debs/${image}_"*.deb |
	tar -x -C "$dir/image" --wildcards '*vmlinuz*'
vmlinuz=
for f in "boot/vmlinuz-$krel" "usr/lib/modules/$krel/vmlinuz" \
	"usr/lib/modules/$krel/vmlinuz.unsigned"; do
	[ -f "$dir/image/$f" ] && vmlinuz="$dir/image/$f" && break
done
[ -n "$vmlinuz" ] || die "no vmlinuz in $image"
extract() { # MAGIC DECOMPRESSOR...
	local off
	off=$(LC_ALL=C grep -m1 -abo -P "$1" "$vmlinuz" | head -n1 | cut -d: -f1 || true)
	[ -n "$off" ] || return 1
	shift
	tail -c +$((off + 1)) "$vmlinuz" | "$@" >"$dir/vmlinux" 2>/dev/null || true
	[ "$(head -c4 "$dir/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]
}
extract '\xFD7zXZ\x00' xz -dc || extract '\x28\xB5\x2F\xFD' zstd -dc ||
	die "cannot extract vmlinux from $vmlinuz"
rm -rf "$dir/debs" "$dir/image"

emit >"$dir/env.tmp" && mv "$dir/env.tmp" "$dir/env"
cat "$dir/env"
