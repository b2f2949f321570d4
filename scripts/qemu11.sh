#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu11.sh [-b PATH]... [--] QEMU-ARGS...: run QEMU 11 (qemu-system-x86_64
# of Debian trixie-backports, which has the vfio-user-pci client) with the
# given arguments. Bookworm's QEMU 7.2 has no vfio-user client, and the
# backports build needs trixie's libraries, so it lives in a trixie chroot.
# qemu11.sh --version: print QEMU's version. qemu11.sh --root: print the
# chroot's folder.
#
# The chroot is made once with debootstrap --variant=minbase from the mirror
# the system already uses (checked against debian-archive-keyring), then
# trixie-backports is added to its sources and qemu-system-x86 installed
# from it. It is cached in $NEURON_CACHE/chroot/qemu11-<key>/, the key being
# a hash of the suite and package list, marked complete by .neuron-ready; a
# lock makes concurrent first calls wait for one build.
#
# QEMU runs as root inside the chroot, in the current folder if it is one of
# the PATHs (else /), in a private mount namespace (unshare -m) holding /proc,
# /dev and each PATH bind-mounted at the same path (socket folders, kernel,
# initramfs), so nobody else sees the mounts and they go with the command.
# QEMU takes over this script's process (exec), so signals reach it. Exit
# status: QEMU's.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SUITE=trixie
BPO=trixie-backports
PKGS=qemu-system-x86

binds=()
while [ $# -gt 0 ]; do
	case $1 in
	-b)
		[ $# -ge 2 ] || die "-b needs a path"
		p=$(cd "$2" 2>/dev/null && pwd) || die "$2: no such folder"
		binds+=("$p")
		shift 2
		;;
	--)
		shift
		break
		;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [-b PATH]... [--] --version | --root | QEMU-ARGS..."

key=$(printf '%s %s %s\n' "$SUITE" "$BPO" "$PKGS" | md5sum | cut -c1-8)
root="$NEURON_CACHE/chroot/qemu11-$key"

# Inside a new mount namespace: /proc and /dev of the host for apt.
mounts="$(declare -f unmount_all)"'
root=$1
shift
mounted=()
trap unmount_all EXIT
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --bind /dev "$root/dev" && mounted+=("$root/dev")
'

# add_backports ROOT: trixie-backports in the new root's sources, and PKGS
# installed from it.
add_backports() {
	local tmp=$1
	echo "deb $(debian_mirror) $BPO main" >"$tmp/etc/apt/sources.list.d/backports.list"
	log "installing $PKGS from $BPO into the chroot"
	as_root unshare -m bash -euc "$mounts"'
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -qq &&
	apt-get install -y -qq --no-install-recommends -t '"$BPO"' '"$PKGS"'"
' inner "$tmp" >>"$root.log" 2>&1 ||
		{ tail -n 20 "$root.log" >&2; die "installing $PKGS failed (log: $root.log)"; }
}

if [ ! -f "$root/.neuron-ready" ]; then
	need_pkgs debootstrap util-linux debian-archive-keyring
	debootstrap_once "$root" "$SUITE" minbase "" add_backports
fi

case $1 in
--root)
	echo "$root"
	exit 0
	;;
--version) set -- -version ;;
esac

# Every step execs the next, so that QEMU itself has this script's process
# id and gets the signals sent to it (timeout's SIGTERM ends QEMU, not a
# wrapper). The mounts need no unmounting: they live in the namespace, which
# goes away with QEMU.
inner='
root=$1 cwd=$2 nb=$3
shift 3
binds=("${@:1:$nb}")
shift "$nb"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
for p in "${binds[@]}"; do
	mkdir -p "$root$p"
	mount --bind "$p" "$root$p"
done
exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	LC_ALL=C.UTF-8 /bin/sh -c '\''cd "$1" 2>/dev/null || cd /; shift; exec "$@"'\'' \
	sh "$cwd" qemu-system-x86_64 "$@"
'
if [ "$(id -u)" -eq 0 ]; then
	exec unshare -m bash -euc "$inner" inner "$root" "$PWD" ${#binds[@]} "${binds[@]}" "$@"
fi
exec sudo unshare -m bash -euc "$inner" inner "$root" "$PWD" ${#binds[@]} "${binds[@]}" "$@"
