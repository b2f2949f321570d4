#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/dkms-test.sh KRELEASE KDIR OUTROOT: install neuron.ko and
# neuron_sim.ko (one DKMS package, two modules) with DKMS for
# kernel KRELEASE (headers tree KDIR) into OUTROOT/lib/modules/KRELEASE,
# in a sandboxed DKMS tree that touches nothing system-wide.
#
# Pass 1: dkms add, build, install; both modules must land in
#   OUTROOT/lib/modules/KRELEASE/updates/dkms/ and be readable by busybox
#   (the VM loads them with busybox modprobe), with the version of VERSION;
#   depmod -b OUTROOT KRELEASE; modprobe resolves "neuron_sim" there to
#   neuron then neuron_sim.
# Pass 2: on a copy of pass 1's trees, dkms uninstall and remove must leave
#   no neuron file behind; a kernel without what dkms.conf's
#   BUILD_EXCLUSIVE_CONFIG names must be refused (status 77).
# OUTROOT/lib/modules/KRELEASE is recreated and left populated for the VM
# (modprobe neuron_sim sim=v2,v3).
#
# Signing: DKMS signs the module when it finds sign-file; the sandbox gives it
# a throwaway key in the sandbox (the kernel does not trust it: loading
# only taints, as with any key not enrolled), or the key pair that
# NEURON_DKMS_KEY (private key, PEM) and NEURON_DKMS_CERT (certificate,
# DER) name, as mok_signing_key and mok_certificate in
# /etc/dkms/framework.conf would: the signed-module test of the debug tier
# passes the debug kernel's test MOK key, which that kernel trusts.
# NEURON_SRC=DIR tests another copy of the tree.

. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: $0 KRELEASE KDIR OUTROOT"
krel=$1
kdir=$(cd "$2" && pwd) || die "no headers tree at $2"
mkdir -p "$3"
outroot=$(cd "$3" && pwd)
src=$(cd "${NEURON_SRC:-$NEURON_TOP}" && pwd)
work="$src/build/dkms-$krel"
start=$SECONDS

need_pkgs dkms kmod make gcc libc6-dev openssl busybox-static

step() { printf '== dkms-test: %s\n' "$*"; }
fail() { printf 'dkms-test: FAILED: %s\n' "$*" >&2; exit 1; }

[ -f "$kdir/Makefile" ] || fail "$kdir is not a kernel headers tree"

# ---- the version: one source of truth -----------------------------------
for f in VERSION dkms.conf; do [ -f "$src/$f" ] || fail "no $f in $src"; done
version=$(tr -d '[:space:]' <"$src/VERSION")
conf_name=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$src/dkms.conf")
conf_version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$src/dkms.conf")
step "$(dkms --version 2>&1 | head -n 1); VERSION $version, dkms.conf $conf_name $conf_version"
[ "$conf_name" = neuron ] || fail "dkms.conf: PACKAGE_NAME is '$conf_name', not neuron"
[ "$conf_version" = "$version" ] ||
	fail "dkms.conf PACKAGE_VERSION '$conf_version' differs from VERSION '$version'"

# What the build needs, not a version: no BUILD_EXCLUSIVE_KERNEL; the
# options of BUILD_EXCLUSIVE_CONFIG, which this kernel must have.
excl=$(bash -c '. "$1" && printf "%s|%s" "${BUILD_EXCLUSIVE_KERNEL:-}" "${BUILD_EXCLUSIVE_CONFIG:-}"' _ "$src/dkms.conf")
[ -z "${excl%%|*}" ] || fail "dkms.conf: BUILD_EXCLUSIVE_KERNEL (a version test) is set"
excl_config=${excl#*|}
[ -n "$excl_config" ] || fail "dkms.conf: no BUILD_EXCLUSIVE_CONFIG"
for c in $excl_config; do
	grep -qE "^$c=[ym]" "$kdir/.config" || fail "$krel has no $c (BUILD_EXCLUSIVE_CONFIG)"
done
step "BUILD_EXCLUSIVE_CONFIG: $excl_config, all in $krel's .config"

# ---- what must stay untouched on the host --------------------------------
host_state() {
	local d dirs=()
	for d in /var/lib/dkms /etc/dkms "/lib/modules/$krel" /usr/src; do
		[ -e "$d" ] && dirs+=("$d")
	done
	echo "${dirs[*]}"
	find "${dirs[@]}" -maxdepth 3 -path '/usr/src/linux-*' -prune -o -print | sort
	find "${dirs[@]}" -path '/usr/src/*' -prune -o -type f -exec md5sum {} + | sort
}
host_before=$(host_state)

# ---- the sandbox --------------------------------------------------------
rm -rf "$work"
mkdir -p "$work/src/neuron-$version" "$work/tree" "$work/keys"
# What dkms.conf and Kbuild need; no Makefile (MAKE[0] calls the kernel's).
for f in dkms.conf VERSION Kbuild driver uapi; do
	[ -e "$src/$f" ] || fail "missing $f in $src"
	cp -a "$src/$f" "$work/src/neuron-$version/"
done
rm -rf "$outroot/lib/modules/$krel"
mkdir -p "$outroot/lib/modules/$krel"

# The throwaway signing key (dkms reads these from the environment when
# /etc/dkms/framework.conf leaves them unset, and generates the key pair),
# or the given one.
export mok_signing_key="$work/keys/mok.key" mok_certificate="$work/keys/mok.pub"
if [ -n "${NEURON_DKMS_KEY:-}" ]; then
	cp "$NEURON_DKMS_KEY" "$mok_signing_key"
	cp "${NEURON_DKMS_CERT:?NEURON_DKMS_KEY needs NEURON_DKMS_CERT}" "$mok_certificate"
fi
if [ -x "$kdir/scripts/sign-file" ]; then
	export sign_file="$kdir/scripts/sign-file"
else
	export sign_file="$work/no-sign-file"
fi

# dk TREE INSTALLROOT ARGS...: dkms in a sandbox (the headers: $dk_kdir).
dk_kdir=$kdir
dk() {
	local tree=$1 root=$2
	shift 2
	dkms --dkmstree "$tree" --sourcetree "$work/src" \
		--installtree "$root/lib/modules" --kernelsourcedir "$dk_kdir" \
		--no-depmod -j 2 "$@"
}
mv_args=(-m neuron -v "$version")

step "pass 1: dkms add"
dk "$work/tree" "$outroot" add "${mv_args[@]}" || fail "dkms add"
step "pass 1: dkms build -k $krel"
if ! dk "$work/tree" "$outroot" build "${mv_args[@]}" -k "$krel"; then
	tail -n 30 "$work/tree/neuron/$version/build/make.log" >&2 || true
	fail "dkms build"
fi
log_file=$(find "$work/tree/neuron/$version/$krel" -path '*/log/make.log' | head -n1)
if [ -n "$log_file" ] && grep -iE 'warning:|error:' "$log_file" | grep -v 'Skipping BTF'; then
	echo "dkms-test: note: the DKMS build printed the warnings above" >&2
fi
step "pass 1: dkms install -k $krel"
inst_out=$(dk "$work/tree" "$outroot" install "${mv_args[@]}" -k "$krel" 2>&1) ||
	{ printf '%s\n' "$inst_out" >&2; fail "dkms install"; }
printf '%s\n' "$inst_out"
dk "$work/tree" "$outroot" status

# ---- what landed ---------------------------------------------------------
dest="$outroot/lib/modules/$krel/updates/dkms"
for mod in neuron neuron_sim; do
	mapfile -t kos < <(find "$dest" -maxdepth 1 -name "$mod.ko*" 2>/dev/null)
	[ ${#kos[@]} -eq 1 ] || fail "expected one $mod.ko* in $dest, found ${#kos[@]}"
	ko=${kos[0]}
	case $ko in
	*.ko) compression=none ;;
	*.ko.xz) compression=xz ;;
	*.ko.gz) compression=gzip ;;
	*.ko.zst) fail "$ko: zstd-compressed, which busybox modprobe cannot load" ;;
	*) fail "$ko: unknown module file type" ;;
	esac
	step "installed ${ko#"$outroot"/} (compression: $compression, $(stat -c %s "$ko") bytes)"

	vermagic=$(modinfo -F vermagic "$ko")
	[ "${vermagic%% *}" = "$krel" ] || fail "$mod: vermagic '$vermagic' is not for $krel"
	signer=$(modinfo -F signer "$ko" || true)
	if [ "$sign_file" = "$work/no-sign-file" ]; then
		step "$mod not signed (no sign-file in $kdir/scripts)"
		[ -z "$signer" ] || fail "$mod: unexpected signer '$signer'"
	else
		[ -n "$signer" ] || fail "$mod not signed although sign-file exists"
		[ -f "$mok_signing_key" ] || fail "dkms did not sign with the sandbox key"
		cn=$(openssl x509 -inform DER -in "$mok_certificate" -noout -subject -nameopt multiline |
			sed -n 's/^ *commonName *= *//p')
		[ "$signer" = "$cn" ] || fail "$mod signed by '$signer', not by the key given ('$cn')"
		step "$mod signed by '$signer' (${NEURON_DKMS_KEY:+given key $NEURON_DKMS_KEY}${NEURON_DKMS_KEY:-sandbox key})"
	fi
done

# This root holds only our module: empty lists of built-in and ordered
# modules keep depmod quiet.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$outroot/lib/modules/$krel/$f" ] || : >"$outroot/lib/modules/$krel/$f"
done
step "depmod -b $outroot $krel"
depmod -b "$outroot" "$krel" || fail "depmod"
grep -q '^updates/dkms/neuron\.ko[^:]*:' "$outroot/lib/modules/$krel/modules.dep" ||
	fail "neuron not in modules.dep"
grep -q '^updates/dkms/neuron_sim\.ko[^:]*: updates/dkms/neuron\.ko' \
	"$outroot/lib/modules/$krel/modules.dep" ||
	fail "neuron_sim not in modules.dep, or not depending on neuron"
resolved=$(modprobe -d "$outroot" -S "$krel" --show-depends neuron_sim 2>&1) ||
	fail "modprobe cannot resolve neuron_sim: $resolved"
[ "$(grep -c '^insmod .*/neuron\(_sim\)\{0,1\}\.ko' <<<"$resolved")" -eq 2 ] ||
	fail "modprobe neuron_sim does not load neuron then neuron_sim: $resolved"
step "kmod modprobe resolves: $resolved"

# busybox finds and reads the module the way its modprobe will in the VM
# (same modules.dep lookup, same reader, so a compression busybox cannot
# read fails here: busybox 1.35 reads gzip and xz, not zstd).  busybox looks
# in /lib/modules/$(uname -r): a chroot holding busybox and a copy of the tree.
bbroot="$work/bbroot"
rm -rf "$bbroot" && mkdir -p "$bbroot/bin" "$bbroot/lib/modules"
cp "$(command -v busybox)" "$bbroot/bin/busybox"
cp -a "$outroot/lib/modules/$krel" "$bbroot/lib/modules/$(uname -r)"
for mod in neuron neuron_sim; do
	bb_version=$(as_root chroot "$bbroot" /bin/busybox modinfo -F version $mod 2>&1) || true
	[ "$bb_version" = "$version" ] ||
		fail "busybox modinfo $mod gave version '$bb_version', not VERSION '$version'"
done
rm -rf "$bbroot"
step "module version $bb_version, vermagic $vermagic"


# ---- pass 2: uninstall and remove leave nothing behind -------------------
p2="$work/pass2"
rm -rf "$p2" && mkdir -p "$p2/root"
cp -a "$work/tree" "$p2/tree"
cp -a "$outroot/lib" "$p2/root/"
step "pass 2: dkms uninstall -k $krel"
dk "$p2/tree" "$p2/root" uninstall "${mv_args[@]}" -k "$krel" || fail "dkms uninstall"
step "pass 2: dkms remove --all"
dk "$p2/tree" "$p2/root" remove "${mv_args[@]}" --all || fail "dkms remove"
depmod -b "$p2/root" "$krel" || fail "depmod after uninstall"
# (Files and folders named after the module; a kernel release may hold
# the word too, as the debug kernel's does.)
left=$(find "$p2/root" "$p2/tree" -name 'neuron*' 2>/dev/null)
left+=$(grep -l neuron "$p2/root/lib/modules/$krel"/modules.* 2>/dev/null || true)
[ -z "$left" ] || fail "left behind after uninstall + remove: $left"
[ -z "$(ls -A "$p2/tree")" ] || fail "dkms tree not empty after remove: $(ls -A "$p2/tree")"
[ -f "$work/src/neuron-$version/dkms.conf" ] || fail "remove deleted the source tree"
step "pass 2: nothing left in the install root nor the dkms tree"

# BUILD_EXCLUSIVE_CONFIG, through dkms itself: a kernel whose .config lacks
# an option it names is refused with status 77 (a stand-in headers tree:
# this kernel's .config without the first option).
nocfg="$p2/kernel-without-option"
mkdir -p "$nocfg"
first=${excl_config%% *}
grep -vE "^$first=" "$kdir/.config" >"$nocfg/.config"
rc=0
dk_kdir=$nocfg dk "$p2/tree" "$p2/root" build "${mv_args[@]}" -k 0.0.0-without-option \
	>"$p2/exclusive.log" 2>&1 || rc=$?
[ $rc -eq 77 ] || { cat "$p2/exclusive.log" >&2; fail "a kernel without $first gave status $rc, not 77"; }
step "pass 2: dkms build for a kernel without $first refused (status 77)"
rm -rf "$p2"

# ---- the host is untouched -----------------------------------------------
host_after=$(host_state)
if [ "$host_before" != "$host_after" ]; then
	diff <(printf '%s\n' "$host_before") <(printf '%s\n' "$host_after") >&2 || true
	fail "the host's DKMS state or /lib/modules/$krel changed"
fi
step "host untouched (/var/lib/dkms, /etc/dkms, /lib/modules/$krel, /usr/src)"
step "ok: $krel in $((SECONDS - start)) s, modules in $outroot/lib/modules/$krel"
