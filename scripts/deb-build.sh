#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deb-build.sh [--clean-root] OUTDIR: build the Debian packages
# (debian/, docs/packaging.md) into OUTDIR and check them with lintian.
#
# --clean-root: build in a Debian bookworm root that has only
# build-essential (debootstrap --variant=buildd, made once from the mirror
# the system's apt uses and cached in $NEURON_CACHE/chroot/, each run on an
# overlay of it in a private mount namespace) plus what
# `apt-get build-dep` installs from debian/control's Build-Depends: the
# build fails there if Build-Depends lacks something it needs. Downloaded
# packages are kept in $NEURON_CACHE/apt-archives-bookworm/.
#
# The build runs on a clean copy of the tree (the files git tracks or would
# track, as they are in the work tree, uncommitted changes included) in a
# temporary folder: nothing is written into the checkout, which is checked
# afterwards. dpkg-buildpackage -us -uc (source and binaries, unsigned),
# with DEB_BUILD_OPTIONS parallel=1 unless DEB_BUILD_OPTIONS says otherwise.
# Then lintian --pedantic -I on the .changes: any error or warning fails
# (the pedantic and informational tags are shown and counted, and do not
# fail the build). OUTDIR gets the .debs, the .dsc and its tarball, the
# .changes, the .buildinfo, build.log and lintian.log.
#
# Exit status: 0 built and lintian-clean, 1 otherwise. The last line is
# "deb-build: ok ..." or "deb-build: FAILED ...".

. "$(dirname "$0")/lib.sh"

clean_root=
if [ "${1:-}" = --clean-root ]; then
	clean_root=1
	shift
fi
[ $# -eq 1 ] || die "usage: $0 [--clean-root] OUTDIR"
mkdir -p "$1"
out=$(cd "$1" && pwd)
start=$SECONDS

# The build's needs: the Build-Depends of debian/control and the tools.
need_pkgs build-essential dpkg-dev fakeroot debhelper dh-dkms dkms lintian \
	libarchive-dev zlib1g-dev libnl-3-dev libnl-genl-3-dev libncurses-dev pkg-config git

fail() {
	printf 'deb-build: FAILED: %s\n' "$*" >&2
	exit 1
}
step() { printf '== deb-build: %s\n' "$*"; }

# ---- a clean copy ---------------------------------------------------------
version=$(tr -d '[:space:]' <"$NEURON_TOP/VERSION")
source=$(sed -n 's/^Source: *//p' "$NEURON_TOP/debian/control")
[ -n "$source" ] || fail "no Source: in debian/control"
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-build.XXXXXX")
ovl=
trap 'as_root rm -rf "$work" ${ovl:+"$ovl"}' EXIT
tree="$work/$source-$version"
mkdir -p "$tree"

# checkout_state: what is not committed in the checkout (git status, with
# each such path's size and time), or every file outside git; OUTDIR left out.
checkout_state() {
	if git -C "$NEURON_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$NEURON_TOP" status --porcelain=v1 --untracked-files=all --ignored=matching |
			{ grep -v -F -- "${out#"$NEURON_TOP"/}" || true; } |
			while IFS= read -r line; do
				printf '%s %s\n' "$line" "$(stat -c '%s %Y' "$NEURON_TOP/${line:3}" 2>/dev/null)"
			done
	else
		find "$NEURON_TOP" -path "$out" -prune -o -printf '%P %s %T@\n' | sort
	fi
}
before=$(checkout_state)

if git -C "$NEURON_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and untracked-but-not-ignored files that exist.
	git -C "$NEURON_TOP" ls-files -z --cached --others --exclude-standard |
		(cd "$NEURON_TOP" && xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' _) |
		tar -C "$NEURON_TOP" --null -T - -cf - | tar -C "$tree" -xf -
else
	tar -C "$NEURON_TOP" --exclude=./build --exclude=./out --exclude=./.git -cf - . |
		tar -C "$tree" -xf -
fi
step "clean copy of $NEURON_TOP in $tree ($(find "$tree" -type f | wc -l) files)"

# ---- one version everywhere ----------------------------------------------
deb_version=$(cd "$tree" && dpkg-parsechangelog -S Version)
conf_version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$tree/dkms.conf")
[ "$deb_version" = "$version" ] ||
	fail "debian/changelog is at $deb_version, VERSION says $version (add a changelog entry: dch -v $version)"
[ "$conf_version" = "$version" ] || fail "dkms.conf PACKAGE_VERSION $conf_version, VERSION $version"
step "version $version (VERSION, debian/changelog, dkms.conf)"

# ---- build ----------------------------------------------------------------
export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=1}

# build_in_root: dpkg-buildpackage in an overlay of the cached buildd root,
# the work folder bind-mounted at its own path.
build_in_root() {
	local suite=bookworm base key archives="$NEURON_CACHE/apt-archives-bookworm"
	key=$(printf '%s buildd\n' "$suite" | md5sum | cut -c1-8)
	base="$NEURON_CACHE/chroot/$suite-buildd-$key"
	need_pkgs debootstrap util-linux
	debootstrap_once "$base" "$suite" buildd ""
	# The overlay's folders apart from the work folder, which is bound inside.
	ovl=$(mktemp -d "${TMPDIR:-/tmp}/deb-build-root.XXXXXX")
	mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root" "$archives/partial"
	step "in a clean $suite root ($base): apt-get build-dep, dpkg-buildpackage -us -uc"
	# shellcheck disable=SC2016 # expanded by the inner shell
	as_root unshare -m bash -ec '
		base=$1 work=$2 tree=$3 archives=$4 ovl=$5 opts=$6 root=$5/root
		mount -t overlay overlay -o "lowerdir=$base,upperdir=$ovl/upper,workdir=$ovl/work" "$root"
		mount -t proc proc "$root/proc"
		mount -t tmpfs -o mode=0755 devtmp "$root/dev"
		for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
			IFS=: read -r d maj min <<<"$n"; mknod -m 0666 "$root/dev/$d" c "$maj" "$min"
		done
		ln -s /proc/self/fd "$root/dev/fd"
		mkdir -p "$root$work"
		mount --bind "$work" "$root$work"
		mount --bind "$archives" "$root/var/cache/apt/archives"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			DEB_BUILD_OPTIONS="$opts" /bin/sh -ec "
			apt-get update -qq
			apt-get build-dep -y -q --no-install-recommends $tree
			cd $tree && dpkg-buildpackage -us -uc"
		' _ "$base" "$work" "$tree" "$archives" "$ovl" "$DEB_BUILD_OPTIONS"
}

step "dpkg-buildpackage -us -uc (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)"
b0=$SECONDS
if [ -n "$clean_root" ]; then
	build=build_in_root
else
	build=host_build
fi
host_build() { (cd "$tree" && dpkg-buildpackage -us -uc); }
if ! DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS "$build" >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	fail "dpkg-buildpackage (log: $out/build.log)"
fi
build_s=$((SECONDS - b0))
grep -E 'dpkg-gensymbols|symbols-from-map|test_abi|header-test' "$out/build.log" | sed 's/^/   /' || true

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
changes="$work/${source}_${version}_$arch.changes"
[ -f "$changes" ] || fail "no $changes"
# The files the .changes lists, and itself.
files=("$changes")
mapfile -t -O 1 files < <(sed -n '/^Files:/,/^[A-Z]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes" | sed "s,^,$work/,")
rm -f "$out"/*.deb "$out"/*.dsc "$out"/*.tar.* "$out"/*.changes "$out"/*.buildinfo
cp "${files[@]}" "$out/"

# ---- lintian ---------------------------------------------------------------
step "lintian --pedantic -I $(basename "$changes")"
l0=$SECONDS
lrc=0
(cd "$work" && lintian --pedantic -I --fail-on error,warning "$changes") >"$out/lintian.log" 2>&1 || lrc=$?
lint_s=$((SECONDS - l0))
sed 's/^/   /' "$out/lintian.log"
count() { grep -c "^$1: " "$out/lintian.log" || true; }
le=$(count E) lw=$(count W) li=$(count I) lp=$(count P) lo=$(count O)
overrides=$(grep -h -v '^#' "$tree"/debian/*lintian-overrides "$tree"/debian/source/lintian-overrides 2>/dev/null | grep -c . || true)

# ---- the checkout is untouched ----------------------------------------------
after=$(checkout_state)
if [ "$before" != "$after" ]; then
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep '^[<>]' | head -n 20 >&2 || true
	fail "files in $NEURON_TOP changed during the build (above; by the build, or by someone else)"
fi

# ---- summary ----------------------------------------------------------------
echo
printf '%-44s %8s %6s\n' package bytes files
for deb in "$out"/*.deb; do
	printf '%-44s %8s %6s\n' "$(basename "$deb")" "$(stat -c %s "$deb")" \
		"$(dpkg-deb -c "$deb" | grep -vc '/$')"
done
for f in "$out"/*.dsc "$out"/*.tar.*; do printf '%-44s %8s\n' "$(basename "$f")" "$(stat -c %s "$f")"; done
echo "lintian: $le errors, $lw warnings, $li info, $lp pedantic, $lo overridden ($overrides overrides in debian/)"
echo "times: build ${build_s} s, lintian ${lint_s} s, total $((SECONDS - start)) s"
if [ "$lrc" -ne 0 ] || [ "$le" -ne 0 ] || [ "$lw" -ne 0 ]; then
	fail "lintian found errors or warnings (status $lrc; log: $out/lintian.log)"
fi
echo "deb-build: ok: $(ls "$out"/*.deb | wc -l) packages of $source $version in $out"
