#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh (`make demo`): boot Debian 6.1 in QEMU, load neuron.ko, then
# neuron_sim.ko with sim=v2,v3 (two simulated devices: 10 NeuronCores);
# print what neuron-info reads from each /dev/neuron*, then run the example
# MLP (examples/models/mlp.nms) through libnrt.so.1 (installed into the
# VM's /usr) on four cores with examples/nrt_mlp_demo.c: nrt_load,
# nrt_execute, each output checked against the CPU, with timings. Exits
# non-zero if the run was not clean (see verdict.sh) or an output differs.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop.sh"

vm_run_prep demo
progs="$BUILD/demo-progs"
info_build "$progs"
log "building libnrt.so.1, the example models and nrt_mlp_demo"
shim_build "$BUILD/demo-shim" "$RUN/shim-build.log" ||
	{ bad_lines "$RUN/shim-build.log" | tail -n 20; die "libshim build failed: $RUN/shim-build.log"; }
log "booting $KREL with neuron.ko and neuron_sim.ko sim=v2,v3"
rc=0
vm_test "$VMLINUX" "$RUN" -k "$BUILD/$KREL/neuron.ko" -l "$BUILD/demo-shim/root" \
	"$progs/neuron-info" "$BUILD/demo-shim/progs/nrt_mlp_demo" || rc=1

echo "\$ insmod neuron.ko; insmod neuron_sim.ko sim=v2,v3; neuron-info   (Linux $KREL in QEMU)"
program_output "$RUN/serial.log" neuron-info
echo
echo "\$ nrt_mlp_demo   (libnrt.so.1 from /usr/lib, the MLP on 4 NeuronCores)"
program_output "$RUN/serial.log" nrt_mlp_demo
[ $rc -eq 0 ] || { cat "$RUN/verdict.txt" >&2; die "the demo run was not clean: $RUN/serial.log"; }
