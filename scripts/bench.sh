#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh (`make bench`): boot Debian 6.1 in QEMU (2 GiB) with neuron.ko and
# neuron_sim.ko, and run tools/neuron-bench.c on a simulated device it creates: ratios of the
# copy ioctl and of mmap against memcpy, of the query against getppid(),
# and of the allocator with 100k against 1k live handles, of executions,
# each measured in the same run (docs/performance.md); then
# libshim/tests/bench_nrt.c against libnrt.so.1 (installed into the VM's
# /usr): nrt_tensor_write/read of 64 MiB against memcpy, nrt_execute
# against the raw EXECUTE ioctl; then tools/neuron-nlbench.c: the generic
# netlink dump of 16 devices of 8 NCs against the query ioctl, and the
# latency of an event. Then the PCI path: Debian 6.1 in QEMU 11 with the
# device model (devmodel/, its -O2 build: the ASan build of the tests is an
# instrument, not a device) as a trn1, neuron.ko with pci_engines=1, and
# `neuron-bench -c /dev/neuron0`: the copy ioctl through the model's UDMA
# engines against memcpy in that VM; once without an IOMMU (the target),
# once behind a vIOMMU (context). Exits non-zero if a run was not clean
# (see verdict.sh).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop.sh"

vm_run_prep bench
progs="$BUILD/bench-progs"
mkdir -p "$progs"
make -s -C "$SRC/tools/lib/neuron" O="$progs/lib/libneuron" >"$RUN/libneuron-build.log" 2>&1 ||
	die "libneuron build failed: $RUN/libneuron-build.log"
gcc -static -O2 -pthread -Wall -Wextra -Werror -I "$SRC/uapi" -I "$SRC/tools/lib/neuron" \
	-o "$progs/neuron-bench" "$SRC/tools/neuron-bench.c" "$progs/lib/libneuron/libneuron.a"
# Static (the VM has no libnl): glibc warns about getaddrinfo() in libnl-3.a.
make -s -f "$SRC/tools/Makefile.nl" O="$progs" >"$RUN/nlbench-build.log" 2>&1 ||
	{ tail "$RUN/nlbench-build.log"; die "neuron-nlbench build failed"; }
# libnrt.so.1 installed with PREFIX=/usr into the VM's root, bench_nrt built
# against it (dynamic: initramfs.sh -l brings the libraries it needs).
shim="$BUILD/bench-shim"
rm -rf "$shim"
{
	make -C "$SRC/libshim" O="$shim/lib" all &&
		make -C "$SRC/libshim" O="$shim/lib" install DESTDIR="$shim/root" PREFIX=/usr &&
		gcc -O2 -pthread -Wall -Wextra -Werror -I"$shim/root/usr/include" -I"$SRC/uapi" \
			-I"$SRC/libshim/tests" -I"$SRC/tools/lib/neuron" -o "$progs/bench_nrt" "$SRC/libshim/tests/bench_nrt.c" \
			-L"$shim/root/usr/lib" -lnrt
} >"$RUN/shim-build.log" 2>&1 && [ -z "$(bad_lines "$RUN/shim-build.log")" ] ||
	{ tail "$RUN/shim-build.log"; die "libnrt or bench_nrt build failed: $RUN/shim-build.log"; }
log "booting $KREL (2 GiB) with neuron.ko and neuron_sim.ko; neuron-bench, bench_nrt, neuron-nlbench"
rc=0
NEURON_VM_MEM=2G NEURON_VM_TIMEOUT=900 \
	vm_test "$VMLINUX" "$RUN" -k "$BUILD/$KREL/neuron.ko" -l "$shim/root" \
	"$progs/neuron-bench" "$progs/bench_nrt" "$progs/neuron-nlbench" || rc=1
program_output "$RUN/serial.log" neuron-bench
program_output "$RUN/serial.log" bench_nrt
program_output "$RUN/serial.log" neuron-nlbench
[ $rc -eq 0 ] || { cat "$RUN/verdict.txt" >&2; die "the bench run was not clean: $RUN/serial.log"; }

# The PCI path: the model's -O2 build, QEMU 11 (scripts/qemu11.sh, cached).
make -s -C "$SRC/devmodel" build/neuron-devmodel >"$RUN/devmodel-build.log" 2>&1 &&
	"$S/qemu11.sh" --version >>"$RUN/devmodel-build.log" 2>&1 ||
	{ tail "$RUN/devmodel-build.log"; die "device model build or QEMU 11 failed: $RUN/devmodel-build.log"; }
for io in 0 1; do
	d="$RUN/pci-trn1-iommu$io"
	mkdir -p "$d"
	what="PCI trn1, device model"
	[ $io = 0 ] || what+=" behind a vIOMMU (context)"
	printf '#!/bin/sh\necho "bench: %s"\nexec /tests/neuron-bench -c "$NEURON_DEVICE"\n' \
		"$what" >"$d/neuron-bench-pci"
	chmod +x "$d/neuron-bench-pci"
	log "booting $KREL in QEMU 11 with the device model ($what); neuron-bench -c"
	VM_PCI=trn1 NEURON_VM_IOMMU=$io NEURON_DEVMODEL="$SRC/devmodel/build/neuron-devmodel" \
		NEURON_VM_TIMEOUT=900 vm_test "$VMLINUX" "$d" -P -k "$BUILD/$KREL/neuron.ko" \
		-x "$progs/neuron-bench" "$d/neuron-bench-pci" ||
		{ cat "$d/verdict.txt" >&2; die "the PCI bench run was not clean: $d/serial.log"; }
	program_output "$d/serial.log" neuron-bench-pci
done
