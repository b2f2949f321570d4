#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh -o OUT (-k neuron.ko | -r ROOT) [-P] [-d KUNIT_KO] [-l DESTDIR]
# PROGRAM...: pack a
# busybox initramfs (uncompressed cpio) whose /init loads neuron.ko, then
# neuron_sim.ko with sim=v2,v3, runs each PROGRAM in order, then the module
# lifecycle checks (program "neuron_modules", TAP: rmmod neuron refused
# while neuron_sim is loaded, rmmod neuron_sim with devices present and with
# a file open, loading it again), unloads both (neuron_sim first) and powers
# off.
#   -k KO        insmod this neuron.ko and the neuron_sim.ko beside it
#   -r ROOT      ROOT holds lib/modules/<release>/ (a DKMS install): copy it
#                in and load with modprobe neuron_sim (which loads neuron)
#   -d KUNIT_KO  debug test kernel (scripts/debug-kernel.sh): set up fault
#                injection before loading, load KUNIT_KO after the programs
#                and print its KTAP results, then (after rmmod) a kmemleak
#                scan, the lockdep state and the module's gcov data
#   -P           a PCI device instead of the simulator (the pci tier, under
#                scripts/vm-pci.sh): load neuron.ko with pci_engines=1 only,
#                wait for /dev/neuron0, run the programs with
#                NEURON_DEVICE=/dev/neuron0 and NEURON_DEVMODEL_CTL=/dev/ttyS1
#                (the device model's control socket, vm-pci.sh), then the
#                PCI lifecycle checks
#                (program "neuron_pci_modules": unbind and bind with a file
#                open, rmmod and insmod) instead of neuron_sim's; with -d,
#                no KUnit (its suites need neuron_sim.ko) and a marker
#                "### NEURON MODE pci ###". With NEURON_VM_HOTPLUG=1 in
#                the environment (the hotplug VM, vm-pci.sh), also
#                NEURON_DEVMODEL_QMP=/dev/ttyS2 (QEMU's QMP monitor), and
#                a program deletes the device (device_del), so the PCI
#                lifecycle checks are those of a machine without it: no
#                neuron PCI device, rmmod and insmod with none. With
#                NEURON_VM_MODEL_KILL=1 (the kill VM), NEURON_DEVMODEL_KILL=1
#                (a program kills the model), and the lifecycle checks are
#                those of a dead device: on the bus, unbound, no probe takes
#                it after rmmod and insmod
#   -x FILE      copy FILE into /tests too, without running it (a PROGRAM
#                may run it: a script picking some tests, for a quick loop)
#                A PROGRAM or FILE named neuron_top brings the tool
#                neuron-top of its folder and the terminfo entry vt100.
#   -l DESTDIR   an install tree (`make -C libshim install DESTDIR=...
#                PREFIX=/usr`): copied into the root, with the host's copies
#                of every shared library that the programs and the
#                libraries in it need (ldd), at the same paths, so dynamic
#                programs run as on an installed system
# Each PROGRAM may run NEURON_VM_PROG_TIMEOUT seconds (default 300; the
# fuzzer's soak, scripts/fuzz.sh, sets more). Before anything else the init
# makes a memory cgroup and removes it (docs/testing.md, "The kernels' own
# problems"); NEURON_VM_MEMCG=0 leaves that out.
# Serial log protocol (read by scripts/verdict.sh), each marker on its own line:
#   ### NEURON MEMCG status=N ###               (first: the memory cgroups'
#                                                kernel memory accounting on;
#                                                "MEMCG skipped" with
#                                                NEURON_VM_MEMCG=0)
#   ### NEURON LOAD status=N ###
#   ### NEURON BEGIN <program> ###  its stdout+stderr  ### NEURON END <program> status=N ###
#   ### NEURON RMMOD status=N ###                (rmmod neuron_sim neuron)
#   ### NEURON DMESG-BEGIN ###  dmesg  ### NEURON DMESG-END ###
#   ### NEURON DONE tainted=N ###
# and with -d, in this order:
#   ### NEURON MODE debug ###                     (after MEMCG)
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

out='' ko='' modroot='' kunit='' libroot='' pci=0 extra=()
while getopts o:k:r:d:l:x:P opt; do
	case $opt in
	o) out=$OPTARG ;;
	P) pci=1 ;;
	k) ko=$OPTARG ;;
	r) modroot=$OPTARG ;;
	d) kunit=$OPTARG ;;
	l) libroot=$OPTARG ;;
	x) extra+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$out" ] && [ -n "$ko$modroot" ] && [ $# -gt 0 ] ||
	die "usage: $0 -o OUT (-k neuron.ko | -r ROOT) [-d KUNIT_KO] [-l DESTDIR] PROGRAM..."

need_pkgs busybox-static cpio binutils

stage=$(mktemp -d)
# The root of the VM: mode 755 as on a real system (mktemp makes it 700),
# so that tests that drop privileges can still follow absolute paths.
chmod 755 "$stage"
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
	simload='modprobe neuron_sim'
	load="$simload sim=v2,v3"
else
	simko=$(dirname "$ko")/neuron_sim.ko
	[ -f "$simko" ] || die "$simko: missing (built with $ko)"
	strip --strip-debug -o "$stage/neuron.ko" "$ko"
	strip --strip-debug -o "$stage/neuron_sim.ko" "$simko"
	simload='insmod /neuron_sim.ko'
	load="insmod /neuron.ko && $simload sim=v2,v3"
fi
# The PCI device: probe waits for the firmware, so wait for the node.
if [ $pci = 1 ]; then
	[ -z "$modroot" ] || die "-P takes -k"
	load='mark "MODE pci"; insmod /neuron.ko pci_engines=1 && wait_node'
	export_dev='export NEURON_DEVICE=/dev/neuron0 NEURON_DEVMODEL_CTL=/dev/ttyS1'
	lifecycle="/pci-modules.sh"
	if [ "${NEURON_VM_HOTPLUG:-0}" = 1 ]; then
		export_dev+=' NEURON_DEVMODEL_QMP=/dev/ttyS2'
		lifecycle="/pci-modules.sh deleted"
	fi
	if [ "${NEURON_VM_MODEL_KILL:-0}" = 1 ]; then
		export_dev+=' NEURON_DEVMODEL_KILL=1'
		lifecycle="/pci-modules.sh killed"
	fi
	lifecycle_name=neuron_pci_modules
	unload='rmmod neuron'
else
	export_dev=':'
	lifecycle="/modules.sh '$simload'"
	lifecycle_name=neuron_modules
	unload='rmmod neuron_sim && rmmod neuron'
fi
cp "$@" ${extra[0]:+"${extra[@]}"} "$stage/tests/"
# neuron_top (selftests/neuron) runs the tool neuron-top that
# tools/Makefile.nl builds into the same folder, on a terminal of type
# vt100: the tool goes into /tests beside it, the terminfo entry into
# /lib/terminfo, where Debian's ncurses looks (ncurses-base).
for p in "$@" ${extra[0]:+"${extra[@]}"}; do
	[ "${p##*/}" = neuron_top ] && [ -x "${p%/*}/neuron-top" ] || continue
	need_pkgs ncurses-base
	cp "${p%/*}/neuron-top" "$stage/tests/"
	ti=$(find /lib/terminfo /usr/lib/terminfo /usr/share/terminfo -path '*/v/vt100' \
		2>/dev/null | head -n 1)
	[ -n "$ti" ] || die "no terminfo entry vt100 (ncurses-base)"
	mkdir -p "$stage/lib/terminfo/v"
	cp -L "$ti" "$stage/lib/terminfo/v/vt100"
done

# The install tree and the shared libraries its programs and libraries and
# the test programs need: the host's copies (the same Debian userland).
if [ -n "$libroot" ]; then
	[ -d "$libroot" ] || die "$libroot: no such install tree"
	cp -a "$libroot/." "$stage/"
	find "$stage/tests" "$stage/usr" -type f | while read -r f; do
		LD_LIBRARY_PATH="$stage/usr/lib:$stage/usr/lib/x86_64-linux-gnu" \
			ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
	done | sort -u | while read -r lib; do
		case $lib in "$stage"/*) continue ;; esac
		[ -e "$stage$lib" ] || { mkdir -p "$stage${lib%/*}" && cp -L "$lib" "$stage$lib"; }
	done
fi

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

# The PCI lifecycle checks, TAP on stdout (the device is 0000:00:01.0's
# neuron0, whichever slot it has: found through the class link).
cat >"$stage/pci-modules.sh" <<'PCIMODULES'
#!/bin/sh
n=0
fails=0
t() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi
}
wait_node() {
	i=0
	while [ ! -c /dev/neuron0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -c /dev/neuron0 ]
}
echo "TAP version 13"
if [ "$1" = deleted ]; then
	# The device was deleted from the machine (device_del): the driver
	# holds none, and loads and unloads without one.
	echo "1..2"
	! grep -qx 0x1d0f /sys/bus/pci/devices/*/vendor && [ ! -e /dev/neuron0 ] &&
		[ -z "$(ls /sys/class/neuron)" ]
	t $? "no neuron PCI device, no /dev/neuron0"
	rmmod neuron && insmod /neuron.ko pci_engines=1 && sleep 1 && [ ! -e /dev/neuron0 ]
	t $? "rmmod neuron, insmod again: no device"
	[ $fails -eq 0 ]
	exit
fi
if [ "$1" = killed ]; then
	# The model was killed (neuron_pci_unplug's kill_live): the device is
	# still on the bus (QEMU keeps its config space) but reads all ones, so
	# the driver let go of it and no probe takes it again.
	echo "1..2"
	dev=$(grep -lx 0x1d0f /sys/bus/pci/devices/*/vendor | head -n1)
	dev=$(basename "$(dirname "$dev")")
	[ -n "$dev" ] && [ ! -e "/sys/bus/pci/drivers/neuron/$dev" ] && [ ! -e /dev/neuron0 ]
	t $? "the dead device $dev is there, unbound, no /dev/neuron0"
	rmmod neuron && insmod /neuron.ko pci_engines=1 && sleep 1 && [ ! -e /dev/neuron0 ] &&
		[ ! -e "/sys/bus/pci/drivers/neuron/$dev" ]
	t $? "rmmod neuron, insmod again: the probe does not take it"
	[ $fails -eq 0 ]
	exit
fi
echo "1..4"
dev=$(basename "$(readlink /sys/class/neuron/neuron0/device)")
[ -n "$dev" ] && [ -e /sys/bus/pci/drivers/neuron/$dev ]
t $? "neuron0 is PCI device $dev, bound to neuron"
# A file open across the unbind: its next call fails, its close works.
sleep 2 </dev/neuron0 &
holder=$!
sleep 0.5
echo "$dev" >/sys/bus/pci/drivers/neuron/unbind && [ ! -e /dev/neuron0 ]
t $? "unbind with a file open: the node goes"
wait $holder
echo "$dev" >/sys/bus/pci/drivers/neuron/bind && wait_node
t $? "bind again: probe (readiness, engines) gives /dev/neuron0"
rmmod neuron && [ ! -e /dev/neuron0 ] && insmod /neuron.ko pci_engines=1 && wait_node
t $? "rmmod neuron, insmod again: the device is back"
[ $fails -eq 0 ]
PCIMODULES
chmod +x "$stage/pci-modules.sh"

# The module lifecycle checks, TAP on stdout; $1 loads neuron_sim.ko.
cat >"$stage/modules.sh" <<'MODULES'
#!/bin/sh
simload=$1
n=0
fails=0
t() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi
}
nodes() { ls /dev | grep -c '^neuron[0-9]'; }
echo "TAP version 13"
echo "1..6"
rmmod neuron 2>/dev/null
[ $? -ne 0 ] && [ -d /sys/module/neuron ] && [ -d /sys/module/neuron_sim ]
t $? "rmmod neuron is refused while neuron_sim is loaded"
before=$(nodes)
rmmod neuron_sim && [ "$before" -gt 0 ] && [ "$(nodes)" -eq 0 ] &&
	[ ! -e /sys/bus/neuron_sim ] && [ -z "$(ls /sys/class/neuron)" ] &&
	[ -d /sys/module/neuron ]
t $? "rmmod neuron_sim removes its $before devices, neuron stays"
$simload sim=v2 && [ -c /dev/neuron0 ] &&
	[ "$(readlink /sys/bus/neuron_sim/devices/neuron_sim0/driver)" != "" ] &&
	[ -d /sys/bus/neuron_sim/devices/neuron_sim0/neuron/neuron0 ]
t $? "neuron_sim loads again: neuron_sim0 bound, /dev/neuron0"
# An open file of a removed device: rmmod waits until it is closed.
sleep 3 </dev/neuron0 &
holder=$!
sleep 1
t0=$(cut -d. -f1 /proc/uptime)
rmmod neuron_sim
rc=$?
t1=$(cut -d. -f1 /proc/uptime)
wait $holder
[ $rc -eq 0 ] && [ $((t1 - t0)) -ge 1 ] && [ "$(nodes)" -eq 0 ]
t $? "rmmod neuron_sim with a file open: waits for its close ($((t1 - t0)) s), then unloads"
$simload sim=v3 && [ -c /dev/neuron0 ]
t $? "neuron_sim loads again after that"
echo 1 >/sys/bus/neuron_sim/del_device 2>/dev/null
[ $? -ne 0 ] && echo 0 >/sys/bus/neuron_sim/del_device && [ "$(nodes)" -eq 0 ] &&
	echo "0 v2" >/sys/bus/neuron_sim/new_device && [ -c /dev/neuron0 ]
t $? "del_device and new_device on the reloaded module"
[ $fails -eq 0 ]
MODULES
chmod +x "$stage/modules.sh"

# The memory cgroup set-up of the init (below); NEURON_VM_MEMCG=0 leaves it
# out (scripts/tests/memcg_key_race: the kernel problem it avoids).
memcg_setup='mkdir -p /tmp/cg && mount -t cgroup2 none /tmp/cg &&
	echo +memory >/tmp/cg/cgroup.subtree_control && mkdir /tmp/cg/kmem-on &&
	rmdir /tmp/cg/kmem-on && umount /tmp/cg
mark "MEMCG status=$?"'
[ "${NEURON_VM_MEMCG:-1}" != 0 ] || memcg_setup='mark "MEMCG skipped (NEURON_VM_MEMCG=0)"'

cat >"$stage/init" <<INIT
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Pseudo-terminals (neuron_top runs neuron-top on one).
mkdir -p /dev/pts && mount -t devpts -o ptmxmode=0666 devpts /dev/pts
mount -t debugfs debugfs /sys/kernel/debug
# The memory cgroups' accounting of kernel memory switched on now, while
# nothing else runs: the first memory cgroup makes the kernel patch the
# code of its slab allocator (a static key), and Debian's 6.12.95 under
# QEMU's TCG was seen to oops (int3 in kmem_cache_alloc_noprof) when that
# patching raced an allocation on the other CPU (docs/testing.md, "The
# kernels' own problems"). The tests that make a memory cgroup later find
# the key on, so no code is patched under their load.
mark() { echo "### NEURON \$* ###"; }
$memcg_setup
wait_node() {
	i=0
	while [ ! -c /dev/neuron0 ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	[ -c /dev/neuron0 ]
}
debug_setup() { :; }; debug_kunit() { :; }; debug_finish() { :; }
[ ! -f /debug.sh ] || . /debug.sh
[ $pci = 0 ] || debug_kunit() { :; }
debug_setup
$load
mark "LOAD status=\$?"
$export_dev
for t in $(for p in "$@"; do printf '/tests/%s ' "${p##*/}"; done); do
	timeout ${NEURON_VM_PROG_TIMEOUT:-300} "\$t" >/tmp/out 2>&1
	rc=\$?
	mark "BEGIN \${t##*/}"
	cat /tmp/out
	mark "END \${t##*/} status=\$rc"
done
debug_kunit
$lifecycle >/tmp/out 2>&1
rc=\$?
mark "BEGIN $lifecycle_name"
cat /tmp/out
mark "END $lifecycle_name status=\$rc"
$unload
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
