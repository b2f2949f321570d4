#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh SERIES: fetch a Debian kernel to boot and build against.
#   6.1   Debian bookworm's current amd64 ABI
#   6.12  the newest 6.12 ABI of bookworm-backports
# Prints shell assignments (eval them, or source the env file they name):
#   KREL=<kernel release>  VMLINUX=<PVH-bootable ELF>  KDIR=<headers tree>
#   KENV=<this same list as a file>
# Everything lands in $NEURON_CACHE/kernels/<release>/; packages are fetched
# with `apt-get download` and unpacked with `dpkg -x`, never installed. A warm
# call does no network work.

. "$(dirname "$0")/lib.sh"

series=${1:-}
case "$series" in
6.1 | 6.12) ;;
*) die "usage: $0 6.1|6.12" ;;
esac

need_pkgs xz-utils zstd

# Private apt configuration for bookworm-backports: own lists and cache under
# $NEURON_CACHE, the mirror the system already uses; the system's apt state
# stays untouched.
bpo_dir="$NEURON_CACHE/apt-bookworm-backports"
bpo_opts=(-o "Dir::Etc::SourceList=$bpo_dir/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$bpo_dir/lists"
	-o "Dir::Cache=$bpo_dir/cache" -o APT::Sandbox::User=root)

bpo_update() {
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg opt=
	[ -f "$keyring" ] && opt="[signed-by=$keyring] "
	mkdir -p "$bpo_dir/lists/partial" "$bpo_dir/cache/archives/partial"
	echo "deb ${opt}$(debian_mirror) bookworm-backports main" >"$bpo_dir/sources.list"
	log "apt-get update (private, bookworm-backports)"
	apt-get "${bpo_opts[@]}" update -qq >&2
}

# resolve: print the kernel release of $series from the apt lists at hand.
resolve() {
	if [ "$series" = 6.1 ]; then
		current_kabi
	else
		[ -f "$bpo_dir/sources.list" ] || return 0
		apt-cache "${bpo_opts[@]}" pkgnames linux-headers-6.12 2>/dev/null |
			sed -n 's/^linux-headers-\(6\.12\.[0-9]*+[a-z0-9]*-amd64\)$/\1/p' |
			sort -V | tail -n1
	fi
}

apt_() { # get|cache ARGS...: apt-get or apt-cache with the right configuration
	local tool=apt-$1
	shift
	if [ "$series" = 6.1 ]; then "$tool" "$@"; else "$tool" "${bpo_opts[@]}" "$@"; fi
}

emit() {
	printf 'KREL=%q\nVMLINUX=%q\nKDIR=%q\nKENV=%q\n' "$krel" "$dir/vmlinux" \
		"$dir/root/usr/src/linux-headers-$krel" "$dir/env"
}

krel=$(resolve)
dir="$NEURON_CACHE/kernels/$krel"
if [ -n "$krel" ] && [ -f "$dir/env" ]; then
	cat "$dir/env"
	exit 0
fi

# Cold: refresh the lists (we touch the network anyway), resolve again.
if [ "$series" = 6.1 ]; then
	log "apt-get update (system)"
	as_root apt-get update -qq >&2
else
	bpo_update
fi
krel=$(resolve)
[ -n "$krel" ] || die "no $series kernel found in the apt lists"
dir="$NEURON_CACHE/kernels/$krel"
[ -f "$dir/env" ] && { cat "$dir/env"; exit 0; }

log "fetching kernel $krel"
rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root"
# The headers package names its -common and kbuild companions.
mapfile -t pkgs < <(apt_ cache depends "linux-headers-$krel" 2>/dev/null |
	sed -n 's/.*Depends: \(linux-\(headers\|kbuild\)-.*\)$/\1/p')
pkgs+=("linux-image-$krel-unsigned" "linux-headers-$krel")
[ ${#pkgs[@]} -ge 4 ] || die "cannot resolve the headers packages of $krel"
(cd "$dir/debs" && apt_ get -o APT::Sandbox::User=root download -qq "${pkgs[@]}" >&2)

# Headers: merge the three packages, point the Makefile at the merged tree.
for deb in "$dir"/debs/linux-{headers,kbuild}-*.deb; do
	dpkg -x "$deb" "$dir/root"
done
hdr="$dir/root/usr/src/linux-headers-$krel"
sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hdr/Makefile"
grep -q "^include $dir/root/" "$hdr/Makefile" || die "unexpected $hdr/Makefile"

# Image: only /boot, then the ELF vmlinux from the compressed payload.
dpkg-deb --fsys-tarfile "$dir"/debs/linux-image-*.deb |
	tar -x -C "$dir" ./boot
vmlinuz="$dir/boot/vmlinuz-$krel"
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
rm -rf "$dir/debs"

emit >"$dir/env.tmp" && mv "$dir/env.tmp" "$dir/env"
cat "$dir/env"
