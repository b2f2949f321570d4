#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-pick.sh PATTERN [SUITE]: choose the kernel to fetch from a list of
# the package names a suite really has (one per line on standard input:
# `apt-cache dumpavail | sed -n 's/^Package: //p'`, not `pkgnames`, which
# also lists names that are only provided).
#
# PATTERN is an extended regular expression for the kernel release (the
# ABI), e.g. '6\.12\.[0-9]+\+[a-z0-9]+-amd64'. The newest release (sort -V)
# that has a headers package and a bootable image wins; an image is, in this
# order of preference (QEMU checks no signature, so a signed image boots as
# well as an unsigned one):
#   linux-binary-unsigned-KREL   from 6.19 on
#   linux-image-KREL-unsigned    up to 6.18
#   linux-binary-KREL            signed, from 6.19 on
#   linux-image-KREL             signed, up to 6.18 (from 6.19 on a
#                                metapackage without the kernel)
# Prints "KREL IMAGE_PACKAGE". Every newer release that was passed over is
# named on standard error with what it lacks; with no usable release the
# message names what is missing and the status is 1. scripts/tests/
# kernel-pick.sh checks this against recorded package lists.

kernel_pick() { # PATTERN SUITE < names
	local pattern=$1 suite=${2:-the apt lists} names krel img c found
	names=$(cat)
	local -a krels
	mapfile -t krels < <(sed -nE "s/^linux-headers-($pattern)\$/\1/p" <<<"$names" |
		sort -uV -r)
	if [ ${#krels[@]} -eq 0 ]; then
		echo "kernel-pick: $suite has no linux-headers-* package for a release matching $pattern" >&2
		return 1
	fi
	for krel in "${krels[@]}"; do
		found=
		for c in "linux-binary-unsigned-$krel" "linux-image-$krel-unsigned" \
			"linux-binary-$krel" "linux-image-$krel"; do
			if grep -qxF -- "$c" <<<"$names"; then
				found=$c
				break
			fi
		done
		if [ -n "$found" ]; then
			echo "$krel $found"
			return 0
		fi
		echo "kernel-pick: $suite has linux-headers-$krel but no image to boot" \
			"(none of linux-binary-unsigned-$krel, linux-image-$krel-unsigned," \
			"linux-binary-$krel, linux-image-$krel); trying an older release" >&2
	done
	echo "kernel-pick: no release matching $pattern in $suite has both headers and an image to boot" >&2
	return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	[ $# -ge 1 ] || { echo "usage: $0 PATTERN [SUITE] < package-names" >&2; exit 2; }
	kernel_pick "$@"
fi
