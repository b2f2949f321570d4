#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh -o OUT (-k neuron.ko | -r ROOT) [-d KUNIT_KO] PROGRAM...: pack a
# busybox initramfs (uncompressed cpio) whose /init loads the module with
# sim=v2,v3, runs each PROGRAM in order, unloads the module and powers off.
#   -k KO        insmod this module
#   -r ROOT      ROOT holds lib/modules/<release>/ (a DKMS install): copy it
#                in and load with modprobe
#   -d KUNIT_KO  debug test kernel (scripts/debug-kernel.sh): set up fault
#                injection before loading, load KUNIT_KO after the programs
#                and print its KTAP results, then (after rmmod) a kmemleak
#                scan, the lockdep state and the module's gcov data
# Serial log protocol (read by scripts/verdict.sh), each marker on its own line:
#   ### NEURON LOAD status=N ###
#   ### NEURON BEGIN <program> ###  its stdout+stderr  ### NEURON END <program> status=N ###
#   ### NEURON RMMOD status=N ###
#   ### NEURON DMESG-BEGIN ###  dmesg  ### NEURON DMESG-END ###
#   ### NEURON DONE tainted=N ###
# and with -d, in this order:
#   ### NEURON MODE debug ###                     (first)
#   ### NEURON SETUP status=N ###                 (fault injection knobs)
#   after the programs, KUnit (each suite as a program "kunit:<suite>",
#   its debugfs results between BEGIN and END, status 1 if they are empty;
#   debugfs files stat as size 0, so test the content):
#   ### NEURON KUNIT-LOAD status=N ###  suite blocks  ### NEURON KUNIT-RMMOD status=N ###
#   after RMMOD:
#   ### NEURON KMEMLEAK-BEGIN ###  report  ### NEURON KMEMLEAK-END status=N ###
#   ### NEURON LOCKDEP debug_locks=N ###
#   ### NEURON GCOV-BEGIN ###  base64 of a .tar.gz of the .gcda files,
#                              paths relative to /sys/kernel/debug/gcov
#   ### NEURON GCOV-END files=N ###

. "$(dirname "$0")/lib.sh"

out='' ko='' modroot='' kunit=''
while getopts o:k:r:d: opt; do
	case $opt in
	o) out=$OPTARG ;;
	k) ko=$OPTARG ;;
	r) modroot=$OPTARG ;;
	d) kunit=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$out" ] && [ -n "$ko$modroot" ] && [ $# -gt 0 ] ||
	die "usage: $0 -o OUT (-k neuron.ko | -r ROOT) [-d KUNIT_KO] PROGRAM..."

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

# The debug steps: shell functions in /debug.sh, which /init calls when it
# exists. Without -d they do nothing.
if [ -n "$kunit" ]; then
	strip --strip-debug -o "$stage/neuron_kunit.ko" "$kunit"
	cat >"$stage/debug.sh" <<'DEBUG'
D=/sys/kernel/debug
# Fault injection for neuron_fault (/proc/thread-self/fail-nth): failslab
# and fail_page_alloc also fail allocations that may sleep (GFP_KERNEL) and
# order-0 pages; one line per forced failure, no stack trace (verbose=1).
# probability stays 0: only the task that arms fail-nth sees failures.
debug_setup() {
	mark "MODE debug"
	echo N >$D/failslab/ignore-gfp-wait &&
		echo N >$D/fail_page_alloc/ignore-gfp-wait &&
		echo N >$D/fail_page_alloc/ignore-gfp-highmem &&
		echo 0 >$D/fail_page_alloc/min-order &&
		echo 1 >$D/failslab/verbose &&
		echo 1 >$D/fail_page_alloc/verbose
	mark "SETUP status=$?"
}
# Load the KUnit module (its suites run at insmod) and print the results of
# each suite it added.
debug_kunit() {
	ls $D/kunit >/tmp/suites-before
	insmod /neuron_kunit.ko
	mark "KUNIT-LOAD status=$?"
	for s in $(ls $D/kunit); do
		grep -qx "$s" /tmp/suites-before && continue
		mark "BEGIN kunit:$s"
		cat $D/kunit/$s/results
		grep -q . $D/kunit/$s/results
		mark "END kunit:$s status=$?"
	done
	rmmod neuron_kunit
	mark "KUNIT-RMMOD status=$?"
}
# After rmmod: kmemleak, the lockdep state (0 once lock checking turned
# itself off), and the gcov data (the .gcda files read as size 0: copy with
# cat). kmemleak reports an object found unreferenced by two scans in a row
# with the same content and older than 5 s at the second: scan at once, then
# again once 6 s have passed since rmmod (a scan takes seconds by itself).
debug_finish() {
	t0=$(cut -d. -f1 /proc/uptime)
	mark KMEMLEAK-BEGIN
	echo scan >$D/kmemleak &&
		while [ "$(cut -d. -f1 /proc/uptime)" -lt $((t0 + 6)) ]; do sleep 1; done &&
		echo scan >$D/kmemleak && cat $D/kmemleak
	mark "KMEMLEAK-END status=$?"
	mark "LOCKDEP $(grep -o 'debug_locks: *[0-9]*' /proc/lockdep_stats | tr -d ' ' | tr : =)"
	mkdir /tmp/gcov
	cd $D/gcov
	for f in $(find . -name '*.gcda'); do
		mkdir -p /tmp/gcov/${f%/*} && cat $f >/tmp/gcov/$f
	done
	cd /
	mark GCOV-BEGIN
	tar -C /tmp/gcov -cz . | base64
	mark "GCOV-END files=$(find /tmp/gcov -name '*.gcda' | wc -l)"
}
DEBUG
fi

cat >"$stage/init" <<INIT
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mark() { echo "### NEURON \$* ###"; }
debug_setup() { :; }; debug_kunit() { :; }; debug_finish() { :; }
[ ! -f /debug.sh ] || . /debug.sh
debug_setup
$load
mark "LOAD status=\$?"
for t in $(for p in "$@"; do printf '/tests/%s ' "${p##*/}"; done); do
	timeout 300 "\$t" >/tmp/out 2>&1
	rc=\$?
	mark "BEGIN \${t##*/}"
	cat /tmp/out
	mark "END \${t##*/} status=\$rc"
done
debug_kunit
rmmod neuron
mark "RMMOD status=\$?"
debug_finish
mark DMESG-BEGIN
dmesg
mark DMESG-END
mark "DONE tainted=\$(cat /proc/sys/kernel/tainted)"
poweroff -f
INIT
chmod +x "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out"
