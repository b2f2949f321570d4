#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel resolver (scripts/kernel-pick.sh) against recorded package
# lists (kernel-lists/: the names of a suite's real packages, recorded on
# the date in the file name, or edited to the case a reviewer met; the
# .synthetic one is written by hand). Prints "N passed, M failed".
set -uo pipefail
here=$(dirname "$0")
L=$here/kernel-lists
any='[0-9]+\.[0-9]+\.[0-9]+\+[a-z0-9]+-amd64'
passed=0 failed=0

# case LIST PATTERN EXPECT [STDERR_REGEX]: EXPECT is the printed line, or
# "error" for a failure; STDERR_REGEX must then match the message.
case_() {
	local list=$1 re=$2 want=$3 msg=${4:-} out err rc
	err=$("$here/../kernel-pick.sh" "$re" "${list%.list}" <"$L/$list" 2>&1 >/dev/null)
	out=$("$here/../kernel-pick.sh" "$re" "${list%.list}" <"$L/$list" 2>/dev/null)
	rc=$?
	if [ "$want" = error ]; then
		[ "$rc" -ne 0 ] && [ -z "$out" ] || { echo "not ok: $list: expected a failure, got '$out'"; failed=$((failed + 1)); return; }
	else
		[ "$rc" -eq 0 ] && [ "$out" = "$want" ] || { echo "not ok: $list: got '$out' (status $rc), expected '$want'"; failed=$((failed + 1)); return; }
	fi
	if [ -n "$msg" ] && ! tr "\n" " " <<<"$err" | grep -qE -- "$msg"; then
		echo "not ok: $list: message '$err' does not match '$msg'"
		failed=$((failed + 1))
		return
	fi
	echo "ok: $list -> ${out:-error}"
	passed=$((passed + 1))
}

# trixie-backports as it was on 2026-12-01: the unsigned 7.3.4 image.
case_ trixie-backports-2026-12-01.list "$any" \
	'7.3.4+deb13-amd64 linux-binary-unsigned-7.3.4+deb13-amd64'
# The reviewer's mirror: 7.3.4 headers and the signed binary, no unsigned
# image for that ABI (the case that broke a cold make check).
case_ trixie-backports-review.list "$any" '7.3.4+deb13-amd64 linux-binary-7.3.4+deb13-amd64'
# Headers of 7.3.4 without any image: fall back to 7.2.12 and say why.
case_ trixie-backports-headers-only.list "$any" \
	'7.2.12+deb13-amd64 linux-binary-unsigned-7.2.12+deb13-amd64' \
	'linux-headers-7\.3\.4\+deb13-amd64 but no image.*linux-binary-unsigned-7\.3\.4\+deb13-amd64'
# Headers only: a failure that names what is missing.
case_ trixie-backports-no-image.list "$any" error \
	'no image to boot.*linux-binary-7\.3\.4\+deb13-amd64.*no release matching'
# No release matches at all.
case_ bookworm-2026-12-01.list '9\.9\.[0-9]+\+[a-z0-9]+-amd64' error 'no linux-headers-\* package'
# bookworm-backports' 6.12 and bookworm's 6.1: the linux-image-*-unsigned form.
case_ bookworm-backports-2026-12-01.list '6\.12\.[0-9]+\+[a-z0-9]+-amd64' \
	'6.12.95+deb12-amd64 linux-image-6.12.95+deb12-amd64-unsigned'
case_ bookworm-2026-12-01.list '6\.1\.0-50-amd64' '6.1.0-50-amd64 linux-image-6.1.0-50-amd64-unsigned'
# The cloud and rt flavours never match the plain amd64 pattern.
case_ bookworm-backports-2026-12-01.list '6\.12\.95\+deb12-cloud-amd64' \
	'6.12.95+deb12-cloud-amd64 linux-image-6.12.95+deb12-cloud-amd64-unsigned'
# Up to 6.18 a signed linux-image-KREL carries the kernel itself.
case_ signed-image-only.synthetic.list "$any" '6.18.3+deb13-amd64 linux-image-6.18.3+deb13-amd64'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
