#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh -o OUT (-k neuron.ko | -r ROOT) PROGRAM...: pack a busybox
# initramfs (uncompressed cpio) whose /init loads the module with sim=v2,v3,
# runs each PROGRAM in order, unloads the module and powers off.
#   -k KO    insmod this module
#   -r ROOT  ROOT holds lib/modules/<release>/ (a DKMS install): copy it in
#            and load with modprobe
# Serial log protocol (read by scripts/verdict.sh), each marker on its own line:
#   ### NEURON LOAD status=N ###
#   ### NEURON BEGIN <program> ###  its stdout+stderr  ### NEURON END <program> status=N ###
#   ### NEURON RMMOD status=N ###
#   ### NEURON DMESG-BEGIN ###  dmesg  ### NEURON DMESG-END ###
#   ### NEURON DONE tainted=N ###

. "$(dirname "$0")/lib.sh"

out='' ko='' modroot=''
while getopts o:k:r: opt; do
	case $opt in
	o) out=$OPTARG ;;
	k) ko=$OPTARG ;;
	r) modroot=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$out" ] && [ -n "$ko$modroot" ] && [ $# -gt 0 ] ||
	die "usage: $0 -o OUT (-k neuron.ko | -r ROOT) PROGRAM..."

need_pkgs busybox-static cpio binutils

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests}
cp /bin/busybox "$stage/bin/"
for app in $(/bin/busybox --list); do
	[ "$app" = busybox ] || ln -s busybox "$stage/bin/$app"
done
[ "$(id -u)" -ne 0 ] || mknod "$stage/dev/console" c 5 1
if [ -n "$modroot" ]; then
	[ -d "$modroot/lib/modules" ] || die "$modroot/lib/modules: missing"
	cp -a "$modroot/lib" "$stage/"
	load='modprobe neuron sim=v2,v3'
else
	strip --strip-debug -o "$stage/neuron.ko" "$ko"
	load='insmod /neuron.ko sim=v2,v3'
fi
cp "$@" "$stage/tests/"

cat >"$stage/init" <<INIT
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mark() { echo "### NEURON \$* ###"; }
$load
mark "LOAD status=\$?"
for t in $(for p in "$@"; do printf '/tests/%s ' "${p##*/}"; done); do
	timeout 300 "\$t" >/tmp/out 2>&1
	rc=\$?
	mark "BEGIN \${t##*/}"
	cat /tmp/out
	mark "END \${t##*/} status=\$rc"
done
rmmod neuron
mark "RMMOD status=\$?"
mark DMESG-BEGIN
dmesg
mark DMESG-END
mark "DONE tainted=\$(cat /proc/sys/kernel/tainted)"
poweroff -f
INIT
chmod +x "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out"
