#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deb-test.sh [--vm-root DIR] DEBDIR [KRELEASE KDIR]: install the packages that
# scripts/deb-build.sh left in DEBDIR into a throwaway Debian bookworm root
# and check what they did (docs/packaging.md, "What deb-test.sh checks").
#
# The root: a debootstrap --variant=minbase bookworm made once from the
# mirror the system's apt already uses (packages checked against
# debian-archive-keyring), with what the packages depend on and the
# tests use, cached in $NEURON_CACHE/chroot/bookworm-<key>/ (the key: a
# hash of the package list; a lock makes concurrent first calls wait for
# one debootstrap). Each run works on an overlay of it (the cached root is
# never written), inside a private mount namespace (unshare -m), so its
# mounts and changes vanish with the run; the root gets its own /dev (a
# tmpfs with the usual nodes: udevadm test applies the modes it computes)
# and a read-only /sys. The packages are installed with dpkg -i, so their
# real maintainer scripts run (addgroup, dkms add), and removed with
# dpkg --purge. Checks: the group, the udev rule (with udevadm test, also
# against the vendor's neuron-udev.rules), the sysusers.d file, the DKMS
# registration, debian/tests/smoke, the module build, the purge.
#
# KRELEASE KDIR: a kernel and its unpacked headers tree, as
# scripts/fetch-kernel.sh makes it (KDIR = .../root/usr/src/linux-headers-KRELEASE),
# default: scripts/fetch-kernel.sh 6.1. The tree is bind-mounted read-only
# at its own path and a stand-in headers package links
# /lib/modules/KRELEASE/build to it; DKMS then builds the modules from the
# installed package for that kernel, first through the kernel's own hook
# (as when headers are installed), then through Debian's dkms-autopkgtest
# (debian/tests/control).
#
# --vm-root DIR: also copy into DIR, once DKMS has built the modules, what a
# VM of that kernel boots to use the installed packages (check.sh does:
# the modules DKMS built, libnrt1's and neuron-tools' files, udev and its
# rules, the users and groups; one more check).
#
# Output: one "ok: ..." or "FAILED: ..." line per check, then
# "deb-test: N passed, M failed" (exit status 1 if M > 0). Logs in
# DEBDIR/deb-test/.

. "$(dirname "$0")/lib.sh"

# The root's packages: what neuron-dkms, libnrt1, libnrt-dev and
# neuron-tools depend on, the compiler and headers the smoke test uses,
# libelf1 for the kernel's objtool, openssl for DKMS's signing key,
# dctrl-tools for dkms-autopkgtest and udev for the rule check.
PKGS=dkms,adduser,gcc,make,libc6-dev,kmod,openssl,libelf1,pkg-config,libarchive-dev,zlib1g-dev,libnl-3-200,libnl-genl-3-200,libncurses6,dctrl-tools,udev
SUITE=bookworm

# ---------------------------------------------------------------------------
# Inside the mount namespace (re-executed by the outer part below).
inner() {
	local root=$1 debdir=$2 src=$3 krel=$4 kdir=$5 kroot=$6 logs=$7 version=$8 vmroot=${9:-}
	local passed=0 failed=0
	ok() { passed=$((passed + 1)); echo "ok: $*"; }
	bad() { failed=$((failed + 1)); echo "FAILED: $*"; }
	# check NAME CMD...: one check, CMD's output in the log on failure.
	check() {
		local name=$1 out rc=0
		shift
		out=$("$@" 2>&1) || rc=$?
		printf '== %s (status %s)\n%s\n' "$name" "$rc" "$out" >>"$logs/checks.log"
		if [ "$rc" -eq 0 ]; then ok "$name${out:+: $(printf '%s' "$out" | tail -n 1)}"; else
			bad "$name (status $rc)"
			printf '%s\n' "$out" | tail -n 15 | sed 's/^/    /'
		fi
	}
	inroot() {
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	}
	insh() { inroot /bin/sh -ec "$1"; }

	# export_vmroot: copy what the VM of check.sh boots into $vmroot, as the
	# packages installed it: the module tree that DKMS built for $krel,
	# every file of libnrt1 and neuron-tools, udev (systemd-udevd, udevadm,
	# the rules of /usr/lib/udev/rules.d, 60-neuron.rules among them), the
	# users and groups (the postinst's neuron group), the example models
	# assembled by the installed neuron-pack, and the shared libraries all
	# of these need (ldd in the root), at their paths.
	export_vmroot() {
		local files f
		rm -rf "$vmroot" && mkdir -p "$vmroot/lib/modules" "$vmroot/usr/share/neuron/models"
		cp -a "$root/lib/modules/$krel" "$vmroot/lib/modules/"
		rm -f "$vmroot/lib/modules/$krel/build"
		insh 'for s in /srv/src/examples/models/*.nms; do
			neuron-pack -o /tmp/$(basename "$s" .nms).nmodel "$s"; done'
		cp "$root"/tmp/*.nmodel "$vmroot/usr/share/neuron/models/"
		files=$(insh 'dpkg -L libnrt1 neuron-tools | while read -r f; do
				[ -f "$f" ] && echo "$f"; done
			echo /usr/lib/systemd/systemd-udevd; echo /usr/bin/udevadm
			ls -d /usr/lib/udev/rules.d/*.rules /etc/udev/udev.conf /etc/passwd /etc/group')
		files+=$'\n'$(insh 'for f in $(dpkg -L libnrt1 neuron-tools) /usr/lib/systemd/systemd-udevd /usr/bin/udevadm; do
				[ -f "$f" ] && ldd "$f" 2>/dev/null | grep -o "/[^ ]*"; done | sort -u')
		# Each file with what it resolves to inside the root (symbolic links
		# there may be absolute: systemd-udevd -> /bin/udevadm).
		insh "for f in $(echo $files); do echo \"\$f \$(readlink -f \$f)\"; done" |
			while read -r f real; do
				mkdir -p "$vmroot$(dirname "$f")"
				cp "$root$real" "$vmroot$f"
			done
		[ -x "$vmroot/usr/lib/systemd/systemd-udevd" ] && [ -f "$vmroot/usr/lib/udev/rules.d/60-neuron.rules" ] &&
			ls "$vmroot/lib/modules/$krel/updates/dkms/"neuron*.ko* >/dev/null &&
			echo "$(find "$vmroot" -type f | wc -l) files, $(du -sh "$vmroot" | cut -f1)"
	}

	# Our own /dev (a tmpfs with the usual nodes): nothing in the root, udevadm
	# test included (which applies the modes it computes), reaches the
	# host's device nodes. /sys read-only, without its submounts.
	mounted=()
	trap unmount_all EXIT
	mount -t proc proc "$root/proc" && mounted+=("$root/proc")
	mount -t tmpfs -o mode=0755,nosuid devtmp "$root/dev" && mounted+=("$root/dev")
	local node
	for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		IFS=: read -r n maj min <<<"$node"
		mknod -m 0666 "$root/dev/$n" c "$maj" "$min"
	done
	ln -s /proc/self/fd "$root/dev/fd"
	for n in 0:stdin 1:stdout 2:stderr; do ln -s "/proc/self/fd/${n%%:*}" "$root/dev/${n#*:}"; done
	mount --bind /sys "$root/sys" && mounted+=("$root/sys")
	mount -o remount,bind,ro "$root/sys"
	mkdir -p "$root$kroot"
	mount --bind "$kroot" "$root$kroot" && mounted+=("$root$kroot")
	mount -o remount,bind,ro "$root$kroot"

	mkdir -p "$root/srv/debs" "$root/srv/src"
	cp "$debdir"/*.deb "$root/srv/debs/"
	rm -f "$root"/srv/debs/*-dbgsym_*.deb
	cp -a "$src/." "$root/srv/src/"

	# ---- 1. install with dpkg: the real maintainer scripts ---------------
	local pkgs=(neuron-dkms libnrt1 libnrt-dev neuron-tools) p debs=()
	for p in "${pkgs[@]}"; do debs+=("/srv/debs/$(basename "$(ls "$debdir/${p}_"*.deb)")"); done
	check "dpkg -i ${pkgs[*]}" inroot dpkg -i "${debs[@]}"
	for p in "${pkgs[@]}"; do
		check "$p installed" insh "dpkg-query -W -f '\${Status} \${Version}' $p | grep '^install ok installed $version\$'"
	done

	# ---- 2. the group -------------------------------------------------------
	check "group neuron exists, a system group" insh '
		line=$(getent group neuron); gid=$(echo "$line" | cut -d: -f3)
		[ "$gid" -ge 100 ] && [ "$gid" -lt 1000 ]; echo "$line"'

	# ---- 3. the udev rule -----------------------------------------------------
	local rule='KERNEL=="neuron[0-9]*", GROUP:="neuron", MODE:="0660"'
	check "udev rule /lib/udev/rules.d/60-neuron.rules from neuron-dkms" insh "
		dpkg -S /lib/udev/rules.d/60-neuron.rules | grep -q '^neuron-dkms: '
		[ \"\$(grep -v '^#' /lib/udev/rules.d/60-neuron.rules | grep .)\" = '$rule' ]
		echo '$rule'"
	# udev reads it (udevadm test lists the rule files it parses), and what
	# := does against the vendor's rule: ours with its match made to fit a
	# device every system has (/dev/null, the root's own node), the vendor's
	# (MODE="0666", the content its package writes) under its name
	# neuron-udev.rules with the same match. First the vendor's alone, then
	# both.
	local utest='
		r=/lib/udev/rules.d
		udevadm test /sys/class/mem/null 2>&1 | grep "Reading rules file: .*$r/60-neuron.rules" ||
			{ echo "udevadm test did not read $r/60-neuron.rules"; exit 1; }
		# run: udevadm test on /dev/null, its log kept; prints "GID MODE" set.
		run() { chmod 0600 /dev/null; udevadm test /sys/class/mem/null >/tmp/udev.$1.log 2>&1
			sed -n "s/.*Setting permissions \/dev\/null, uid=[0-9]*, gid=\([0-9]*\), mode=0*\([0-7]*\).*/\1 \2/p" /tmp/udev.$1.log | tail -n 1; }
		cp $r/60-neuron.rules /tmp/60-neuron.rules
		echo "KERNEL==\"null\", MODE=\"0666\"" >$r/neuron-udev.rules
		rm $r/60-neuron.rules
		vendor=$(run vendor)
		sed "s/KERNEL==\"neuron\[0-9\]\*\"/KERNEL==\"null\"/" /tmp/60-neuron.rules >$r/60-neuron.rules
		grep -q "^KERNEL==\"null\", GROUP:=\"neuron\", MODE:=\"0660\"$" $r/60-neuron.rules
		both=$(run both)
		cp /tmp/60-neuron.rules $r/60-neuron.rules
		rm $r/neuron-udev.rules
		chown root:root /dev/null && chmod 0666 /dev/null
		gid=$(getent group neuron | cut -d: -f3)
		grep "rules.d/neuron-udev.rules:1 MODE" /tmp/udev.vendor.log
		grep "rules.d/60-neuron.rules:1" /tmp/udev.both.log
		echo "vendor rule alone: gid/mode $vendor; with 60-neuron.rules: $both"
		grep -q "rules.d/neuron-udev.rules:1 MODE 0666" /tmp/udev.vendor.log &&
			! grep -q "rules.d/neuron-udev.rules:1 MODE" /tmp/udev.both.log &&
			[ "$vendor" = "0 666" ] && [ "$both" = "$gid 660" ]'
	check "udev: the vendor's neuron-udev.rules alone gives 0666, with 60-neuron.rules group neuron 0660" insh "$utest"

	# ---- 4. the sysusers.d file -------------------------------------------------
	check "sysusers.d file /usr/lib/sysusers.d/neuron.conf from neuron-dkms" insh '
		dpkg -S /usr/lib/sysusers.d/neuron.conf | grep -q "^neuron-dkms: "
		grep -v "^#" /usr/lib/sysusers.d/neuron.conf | grep -x "g neuron -"'

	# The same file read by systemd-sysusers (the host's; the root has no
	# systemd) into an empty scratch root: it makes the same system group.
	if command -v systemd-sysusers >/dev/null 2>&1; then
		check "systemd-sysusers makes a system group neuron from neuron.conf" sh -ec '
			rm -rf "$1" && mkdir -p "$1/etc"
			systemd-sysusers --root="$1" "$2"
			gid=$(sed -n "s/^neuron:x:\([0-9]*\):.*/\1/p" "$1/etc/group")
			[ -n "$gid" ] && [ "$gid" -lt 1000 ]; grep "^neuron:" "$1/etc/group"' _ \
			"$logs/sysusers-root" "$root/usr/lib/sysusers.d/neuron.conf"
	else
		echo "skip: systemd-sysusers on neuron.conf (no systemd-sysusers on this host)"
	fi

	# ---- 5. DKMS: the package is registered -------------------------------------
	check "dkms status: neuron/$version added" insh "
		test -f /usr/src/neuron-$version/dkms.conf
		test \"\$(readlink /var/lib/dkms/neuron/$version/source)\" = /usr/src/neuron-$version
		dkms status neuron | tee /dev/stderr | grep -qx 'neuron/$version: added'
		dkms status neuron"

	# ---- 6. the library, the headers, the tools -------------------------------
	check "debian/tests/smoke (library, headers, tools)" insh 'cd /srv/src && debian/tests/smoke'

	# ---- 7. DKMS builds the modules when the kernel's headers come --------------
	local hdr="$logs/hdr"
	rm -rf "$hdr" && mkdir -p "$hdr/DEBIAN" "$hdr/lib/modules/$krel"
	ln -s "$kdir" "$hdr/lib/modules/$krel/build"
	cat >"$hdr/DEBIAN/control" <<-EOF
		Package: linux-headers-bind-$krel
		Version: 1
		Architecture: all
		Maintainer: deb-test <deb-test@localhost>
		Description: test stand-in: /lib/modules/$krel/build, a bind-mounted headers tree
	EOF
	dpkg-deb --root-owner-group -b "$hdr" "$root/srv/linux-headers-bind.deb" >/dev/null
	check "stand-in headers for $krel (/lib/modules/$krel/build -> $kdir)" \
		inroot dpkg -i /srv/linux-headers-bind.deb
	check "kernel hook header_postinst.d/dkms $krel builds and installs neuron" insh "
		/etc/kernel/header_postinst.d/dkms $krel
		dkms status neuron -k $krel | grep -qx 'neuron/$version, $krel, x86_64: installed'
		dkms status neuron -k $krel"
	local m
	for m in neuron neuron_sim; do
		check "$m.ko for $krel: version $version, vermagic $krel" insh "
			ko=\$(ls /lib/modules/$krel/updates/dkms/$m.ko*)
			[ \"\$(modinfo -F version \$ko)\" = $version ]
			[ \"\$(modinfo -F vermagic \$ko | cut -d' ' -f1)\" = $krel ]
			echo \"\$ko, signer: \$(modinfo -F signer \$ko)\""
	done
	check "modprobe resolves neuron_sim to neuron, neuron_sim ($krel)" insh "
		modprobe -S $krel --show-depends neuron_sim | grep -c '^insmod .*/neuron\(_sim\)\{0,1\}\.ko' | grep -qx 2"

	# ---- 7b. what a VM boots (check.sh): the installed system's parts -------
	[ -z "$vmroot" ] || check "the installed packages' files for a VM in $vmroot" export_vmroot

	# ---- 8. purge: nothing of the package left, the group kept ------------------
	check "dpkg --purge neuron-dkms" inroot dpkg --purge neuron-dkms
	check "after the purge: no sources, no dkms entry, no module, no rule" insh "
		! ls -d /usr/src/neuron-* 2>/dev/null
		[ ! -e /var/lib/dkms/neuron ]
		[ -z \"\$(find /lib/modules/$krel -name 'neuron*.ko*')\" ]
		! grep -q neuron /lib/modules/$krel/modules.dep
		[ ! -e /lib/udev/rules.d/60-neuron.rules ] && [ ! -e /usr/lib/sysusers.d/neuron.conf ]
		echo clean"
	check "after the purge: the group neuron stays (files may belong to it)" insh 'getent group neuron'

	# ---- 9. Debian's dkms-autopkgtest (debian/tests/control) ---------------------
	# It installs neuron-dkms with apt: a local repository of DEBDIR only.
	insh 'cd /srv/debs && dpkg-scanpackages . >Packages 2>/dev/null
		rm -f /etc/apt/sources.list.d/*
		echo "deb [trusted=yes] file:/srv/debs ./" >/etc/apt/sources.list
		apt-get update -qq' >>"$logs/checks.log" 2>&1
	local out rc=0
	out=$(insh 'mkdir -p /tmp/artifacts; cd /srv/src && AUTOPKGTEST_ARTIFACTS=/tmp/artifacts /usr/lib/dkms/dkms-autopkgtest' 2>&1) || rc=$?
	printf '%s\n' "$out" >"$logs/dkms-autopkgtest.log"
	if [ "$rc" -eq 0 ] && grep -qx "I: PASS $krel" <<<"$out"; then
		ok "dkms-autopkgtest: PASS $krel"
	else
		bad "dkms-autopkgtest (status $rc, log: $logs/dkms-autopkgtest.log)"
		tail -n 20 <<<"$out" | sed 's/^/    /'
	fi

	echo "deb-test: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

if [ "${1:-}" = --inner ]; then
	shift
	inner "$@"
	exit
fi

# ---------------------------------------------------------------------------
# Outside: arguments, the cached root, the overlay, then the namespace.
vmroot=
if [ "${1:-}" = --vm-root ]; then
	[ $# -ge 2 ] || die "--vm-root needs a folder"
	mkdir -p "$2"
	vmroot=$(cd "$2" && pwd)
	shift 2
fi
[ $# -eq 1 ] || [ $# -eq 3 ] || die "usage: $0 [--vm-root DIR] DEBDIR [KRELEASE KDIR]"
debdir=$(cd "$1" && pwd) || die "no folder $1"
start=$SECONDS
need_pkgs debootstrap util-linux dpkg-dev xz-utils

for p in neuron-dkms libnrt1 libnrt-dev neuron-tools; do
	[ "$(ls "$debdir/${p}_"*.deb 2>/dev/null | wc -l)" -eq 1 ] ||
		die "expected one ${p}_*.deb in $debdir (scripts/deb-build.sh $debdir)"
done
version=$(dpkg-deb -f "$(ls "$debdir"/neuron-dkms_*.deb)" Version)

if [ $# -eq 3 ]; then
	krel=$2 kdir=$(cd "$3" && pwd) || die "no headers tree $3"
else
	eval "$("$NEURON_TOP/scripts/fetch-kernel.sh" 6.1 | grep -E '^(KREL|KDIR)=')"
	krel=$KREL kdir=$KDIR
fi
[ -f "$kdir/Makefile" ] || die "$kdir is not a kernel headers tree"
# The unpacked tree's root (its Makefile includes the common headers by an
# absolute path, its scripts link into linux-kbuild): bound whole.
kroot=${kdir%/usr/src/*}
[ -n "$kroot" ] && [ "$kroot" != "$kdir" ] ||
	die "$kdir: give an unpacked tree .../usr/src/linux-headers-$krel (scripts/fetch-kernel.sh)"

logs="$debdir/deb-test"
rm -rf "$logs" && mkdir -p "$logs"

# The source the packages came from: their .dsc if it is there, else the checkout.
src="$logs/src"
dsc=$(ls "$debdir"/*.dsc 2>/dev/null | head -n 1 || true)
if [ -n "$dsc" ]; then
	dpkg-source --no-check -x "$dsc" "$src" >/dev/null
else
	mkdir -p "$src" && cp -a "$NEURON_TOP/debian" "$NEURON_TOP/libshim" "$NEURON_TOP/examples" "$src/"
fi

# ---- the cached root ----------------------------------------------------------
key=$(printf '%s %s\n' "$SUITE" "$PKGS" | md5sum | cut -c1-8)
base="$NEURON_CACHE/chroot/$SUITE-$key"
debootstrap_once "$base" "$SUITE" minbase "$PKGS"
echo "== deb-test: $(ls "$debdir"/*.deb | grep -vc dbgsym) packages of $version, root $base, kernel $krel"

# ---- the overlay, in the namespace ----------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-test.XXXXXX")
trap 'as_root rm -rf "$work"' EXIT
mkdir -p "$work/upper" "$work/ovl" "$work/root"
rc=0
as_root unshare -m bash -c '
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/ovl" "$2/root" || exit 1
	shift 2
	exec "$@"' _ "$base" "$work" \
	"$0" --inner "$work/root" "$debdir" "$src" "$krel" "$kdir" "$kroot" "$logs" "$version" "$vmroot" |
	tee "$logs/deb-test.log" || rc=$?
echo "deb-test: $((SECONDS - start)) s, logs in $logs"
exit "$rc"
