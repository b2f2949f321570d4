#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh KERNEL INITRD LOG: boot KERNEL (an ELF vmlinux, through its PVH entry,
# or a bzImage) with INITRD in QEMU under `timeout`, the serial console saved
# to LOG. Exits with QEMU's status (124: timed out). Environment:
#   NEURON_VM_TIMEOUT  seconds before the VM is killed (default 600)
#   NEURON_VM_MEM      guest memory (default 1G)
#   NEURON_VM_ACCEL    QEMU accelerator (default tcg: software emulation)
#   NEURON_VM_VERBOSE  1: also copy the serial console to stderr
#   NEURON_VM_APPEND   more kernel command line (e.g. module.sig_enforce=1)

. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: $0 KERNEL INITRD LOG"
need_pkgs qemu-system-x86

qemu=(qemu-system-x86_64 -accel "${NEURON_VM_ACCEL:-tcg}" -nographic -no-reboot
	-m "${NEURON_VM_MEM:-1G}" -smp 2 -nic none -kernel "$1" -initrd "$2"
	-append "console=ttyS0 panic=-1 oops=panic quiet${NEURON_VM_APPEND:+ $NEURON_VM_APPEND}")
mkdir -p "$(dirname "$3")"
rc=0
vm_run "$3" "${qemu[@]}" || rc=$?
exit $rc
