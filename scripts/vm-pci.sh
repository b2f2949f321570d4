#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-pci.sh PERSONALITY KERNEL INITRD LOG: boot KERNEL (a PVH-bootable
# vmlinux or a bzImage) with INITRD as vm.sh does, but under QEMU 11
# (scripts/qemu11.sh) with the device model of devmodel/ as a vfio-user PCI
# device of PERSONALITY (trn1 or trn2), the guest's memory shared with it
# (memory-backend-memfd,share=on). The serial console goes to LOG, the
# model's log to LOG.model; when both have ended, one line is appended to
# LOG:
#   ### NEURON DEVMODEL status=N ###   (the model's exit status)
# which scripts/check.sh judges: the model (the ASan build by default) must
# exit 0, that is with no error, leak or undefined behaviour. The model's
# control socket (docs/devmodel.md, "Control protocol") is the guest's
# second serial port: QEMU connects to it as a client, so what the guest
# writes to /dev/ttyS1 (raw, no echo) are commands and it reads the answers
# there (scripts/tests/neuron_pci_ready sets the model not ready that way).
# Exits with QEMU's status (124: timed out). Environment: those of vm.sh, and
#   NEURON_VM_IOMMU     1: a vIOMMU (intel-iommu with caching mode, which
#                       QEMU's vfio-user client needs), intel_iommu=on and
#                       no_timer_check
#   NEURON_DEVMODEL     the model's binary (default: devmodel's ASan build,
#                       built here)
#   NEURON_DEVMODEL_ARGS more arguments of the model
#   NEURON_VM_HOTPLUG   1: a board whose root bus has a hotplug controller,
#                       so that QEMU's device_del reaches the guest
#                       (docs/devmodel.md, "Hot removal"): i440fx (`-M pc`,
#                       ACPI PCI hotplug of PIIX4) instead of q35, the device
#                       with the qdev id "neuron0", and a QMP monitor on the
#                       guest's third serial port: the guest writes QMP
#                       commands to /dev/ttyS2 and reads the answers and
#                       events (DEVICE_DELETED) there. QEMU's two ends of a
#                       unix socket make the link (the port listens, the
#                       monitor connects), so nothing runs on the host. No
#                       vIOMMU (intel-iommu needs q35).
#   NEURON_VM_MODEL_KILL 1: the guest kills the model (its control command
#                       `die`, SIGKILL to itself: surprise removal for
#                       real), so its status must be 137; the line then reads
#                       "status=0" for 137 and "status=1" for anything else
#                       (a model that was not killed); the guest gets
#                       NEURON_DEVMODEL_KILL=1 (scripts/initramfs.sh)

. "$(dirname "$0")/lib.sh"

[ $# -eq 4 ] || die "usage: $0 trn1|trn2 KERNEL INITRD LOG"
pers=$1 kernel=$2 initrd=$3 log=$4
case $pers in trn1 | trn2) ;; *) die "$pers: trn1 or trn2" ;; esac
model=${NEURON_DEVMODEL:-}
if [ -z "$model" ]; then
	need_pkgs gcc make libc6-dev
	make -s -C "$NEURON_TOP/devmodel" build/asan/neuron-devmodel >&2
	model=$NEURON_TOP/devmodel/build/asan/neuron-devmodel
fi

mkdir -p "$(dirname "$log")"
sock=$(mktemp -d)
trap 'rm -rf "$sock"' EXIT
kdir=$(cd "$(dirname "$kernel")" && pwd)
idir=$(cd "$(dirname "$initrd")" && pwd)
append='console=ttyS0 panic=-1 oops=panic quiet'
iommu=()
if [ "${NEURON_VM_IOMMU:-0}" = 1 ]; then
	iommu=(-device 'intel-iommu,caching-mode=on')
	# no_timer_check: with interrupt remapping on, a guest whose boot-time
	# timer check sees too few ticks panics ("timer doesn't work through
	# Interrupt-remapped IO-APIC"); under TCG at load average 19 a trn1
	# boot did. The check tests the board's wiring, not the driver.
	append+=' intel_iommu=on no_timer_check'
fi
mem=${NEURON_VM_MEM:-1G}
machine=q35 hotplug=() devid=''
if [ "${NEURON_VM_HOTPLUG:-0}" = 1 ]; then
	[ ${#iommu[@]} -eq 0 ] || die "NEURON_VM_HOTPLUG=1: no vIOMMU on i440fx"
	machine=pc devid='"id":"neuron0",'
	# The port's chardev listens first; the monitor's connects to it.
	hotplug=(-chardev "socket,id=qmpser,path=$sock/qmp.sock,server=on,wait=off"
		-serial chardev:qmpser
		-chardev "socket,id=qmpmon,path=$sock/qmp.sock"
		-mon "chardev=qmpmon,mode=control")
fi

# shellcheck disable=SC2086 # NEURON_DEVMODEL_ARGS: words on purpose
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	"$model" -s "$sock/vfu.sock" -c "$sock/ctl.sock" -p "$pers" ${NEURON_DEVMODEL_ARGS:-} \
	>"$log.model" 2>&1 &
mpid=$!
# (the model listens on the vfio-user socket first, then the control one)
for _ in $(seq 100); do [ -S "$sock/ctl.sock" ] && break; sleep 0.1; done
[ -S "$sock/ctl.sock" ] || { kill $mpid 2>/dev/null; die "the device model did not start: $log.model"; }

qemu=("$NEURON_TOP/scripts/qemu11.sh" -b "$sock" -b "$kdir" -b "$idir" --
	-machine "$machine,memory-backend=mem" -accel "${NEURON_VM_ACCEL:-tcg}"
	-object "memory-backend-memfd,id=mem,size=$mem,share=on" -m "$mem" -smp 2
	-nodefaults -display none -serial stdio -serial "unix:$sock/ctl.sock" -no-reboot -nic none
	"${iommu[@]}" "${hotplug[@]}"
	-kernel "$kdir/${kernel##*/}" -initrd "$idir/${initrd##*/}" -append "$append"
	-device "{$devid\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":\"$sock/vfu.sock\",\"type\":\"unix\"}}")
rc=0
vm_run "$log" "${qemu[@]}" || rc=$?
# The model ends when its client goes; give it a moment, then ask it to.
for _ in $(seq 50); do kill -0 $mpid 2>/dev/null || break; sleep 0.1; done
kill -TERM $mpid 2>/dev/null || true
mrc=0
# (after a `die`, bash writes a "Killed" line for the model on stderr,
# into the VM's verdict.txt; the status line below is what is judged)
wait $mpid || mrc=$?
if [ "${NEURON_VM_MODEL_KILL:-0}" = 1 ]; then
	echo "### NEURON DEVMODEL killed: exit status $mrc (137 expected) ###" >>"$log"
	[ "$mrc" = 137 ] && mrc=0 || mrc=1
fi
echo "### NEURON DEVMODEL status=$mrc ###" >>"$log"
exit $rc
