#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh (`make demo`): boot Debian 6.1 in QEMU, load neuron.ko, then
# neuron_sim.ko with sim=v2,v3 (two simulated devices) and print what
# neuron-info reads from each /dev/neuron*. Exits non-zero if the run was not clean (see verdict.sh).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop.sh"

vm_run_prep demo
progs="$BUILD/demo-progs"
info_build "$progs"
log "booting $KREL with neuron.ko and neuron_sim.ko sim=v2,v3"
rc=0
vm_test "$VMLINUX" "$RUN" -k "$BUILD/$KREL/neuron.ko" "$progs/neuron-info" || rc=1

echo "\$ insmod neuron.ko; insmod neuron_sim.ko sim=v2,v3; neuron-info   (Linux $KREL in QEMU)"
program_output "$RUN/serial.log" neuron-info
[ $rc -eq 0 ] || { cat "$RUN/verdict.txt" >&2; die "the demo run was not clean: $RUN/serial.log"; }
