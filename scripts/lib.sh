# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the neuron scripts. Source it: . "$(dirname "$0")/lib.sh"
#
# Cache: everything downloaded or built outside the checkout lives under
# $NEURON_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/neuron), so a fresh
# clone on the same machine (as CI uses) reuses it.

set -euo pipefail

NEURON_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NEURON_CACHE=${NEURON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/neuron}
export NEURON_TOP NEURON_CACHE
mkdir -p "$NEURON_CACHE"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# as_root CMD...: run CMD as root (directly when we are root, else sudo).
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# need_pkgs PKG...: install the Debian packages that are missing.
_apt_updated=
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	if [ -z "$_apt_updated" ]; then
		as_root apt-get update -qq >&2
		_apt_updated=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# debian_mirror: the Debian mirror URI the system's apt already uses (no host
# name is written into the repository).
debian_mirror() {
	local uri
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '{print $2}' | grep -v -- '-security' | head -n1 || true)
	if [ -z "$uri" ]; then
		uri=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' |
			grep -v -- '-security' | head -n1 || true)
	fi
	[ -n "$uri" ] || die "no Debian mirror found in the apt sources"
	echo "${uri%/}"
}

# debootstrap_once ROOT SUITE VARIANT PKGS [SETUP]: make the cached Debian
# root ROOT once (debootstrap --variant=VARIANT SUITE from debian_mirror,
# checked against debian-archive-keyring, with --include=PKGS unless PKGS is
# empty), under the lock ROOT.lock so that concurrent first calls wait for
# one build. SETUP, if given, is a command run with the unfinished root's
# folder as its last argument. The root is marked complete by .neuron-ready
# and its downloaded packages and lists are dropped.
debootstrap_once() {
	local root=$1 suite=$2 variant=$3 pkgs=$4 tmp=$1.tmp inc=()
	shift 4
	[ ! -f "$root/.neuron-ready" ] || return 0
	mkdir -p "$(dirname "$root")"
	exec 9>"$root.lock"
	flock 9
	if [ ! -f "$root/.neuron-ready" ]; then
		# A leftover of an interrupted run (the lock is ours): start over.
		rm -rf "$tmp" "$root"
		[ -z "$pkgs" ] || inc=(--include="$pkgs")
		log "debootstrap --variant=$variant $suite${pkgs:+ ($pkgs)} into $root (once, a few minutes)"
		# In its own mount namespace: the /proc and /sys debootstrap
		# mounts in the target cannot outlive it, even if it is killed.
		as_root unshare -m debootstrap --variant="$variant" "${inc[@]}" \
			--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
			"$suite" "$tmp" "$(debian_mirror)" >"$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2; die "debootstrap $suite failed (log: $root.log)"; }
		[ $# -eq 0 ] || "$@" "$tmp"
		as_root rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
		touch "$tmp/.neuron-ready"
		mv "$tmp" "$root"
	fi
	exec 9>&-
}

# The mounts a script makes in its own mount namespace (unshare -m) are
# listed in mounted; unmount_all undoes them, last first (lazily when one is
# busy): `trap unmount_all EXIT`. Code run by a new bash defines it with
# "$(declare -f unmount_all)".
mounted=()
unmount_all() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"
	done
}

# debian_security_mirror: the URI of Debian's security archive as the
# system's apt sources name it (the one ending in -security), else the main
# mirror's URI with -security appended (the layout of Debian's own mirror).
debian_security_mirror() {
	local uri
	uri=$({
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
		grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }'
	} | grep -- '-security/\{0,1\}$' | head -n1 || true)
	[ -n "$uri" ] || uri="$(debian_mirror)-security"
	echo "${uri%/}"
}

# current_kabi: the ABI of Debian's current amd64 kernel, e.g. 6.1.0-57-amd64.
current_kabi() {
	apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-//p' | head -n1
}

# linux_source_dir: unpack (once) the parts of Debian's linux-source-6.1 that
# the scripts use (checkpatch, kselftest headers) and print the folder.
linux_source_dir() {
	local tarball dir
	need_pkgs linux-source-6.1 xz-utils
	tarball=$(ls /usr/src/linux-source-6.1.tar.xz)
	dir="$NEURON_CACHE/linux-source-6.1-parts"
	local stamp="$dir/.stamp-$(stat -c %s-%Y "$tarball")"
	if [ ! -f "$stamp" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		log "unpacking checkpatch and kselftest headers from $tarball"
		tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
			'linux-source-6.1/scripts/checkpatch.pl' \
			'linux-source-6.1/scripts/spelling.txt' \
			'linux-source-6.1/scripts/const_structs.checkpatch' \
			'linux-source-6.1/tools/testing/selftests/kselftest_harness.h' \
			'linux-source-6.1/tools/testing/selftests/kselftest.h'
		touch "$stamp"
	fi
	echo "$dir"
}

# vm_run LOG COMMAND...: run a VM's COMMAND under `timeout`
# (NEURON_VM_TIMEOUT seconds, default 600), its console to LOG (and to
# stderr too with NEURON_VM_VERBOSE=1). Returns its status (124: timed out,
# which is logged).
vm_run() {
	local out=$1 rc=0
	shift
	if [ "${NEURON_VM_VERBOSE:-0}" = 1 ]; then
		timeout "${NEURON_VM_TIMEOUT:-600}" "$@" </dev/null 2>&1 | tee "$out" >&2 || rc=$?
	else
		timeout "${NEURON_VM_TIMEOUT:-600}" "$@" </dev/null >"$out" 2>&1 || rc=$?
	fi
	[ $rc -ne 124 ] || log "VM timed out after ${NEURON_VM_TIMEOUT:-600} s: $out"
	return $rc
}
