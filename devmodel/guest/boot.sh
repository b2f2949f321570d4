#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh trn1|trn2 report|dma [QEMU-ARG...]: boot a guest (Debian's 6.1
# kernel, a busybox initramfs) under QEMU 11 (scripts/qemu11.sh) with the
# device model as a vfio-user-pci device, and print what the guest saw.
#   report  lists the PCI devices and the model's BARs
#   dma     drives a copy and an engine error from inside the guest
#           (guest/init-dma); exit status 1 when a guest check failed
# Extra QEMU arguments follow (e.g. -device intel-iommu,caching-mode=on);
# APPEND adds to the kernel command line; VMLINUX names a PVH-bootable kernel
# (default: scripts/fetch-kernel.sh 6.1). Logs stay in $NEURON_CACHE/devmodel-boot/.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

[ $# -ge 2 ] || die "usage: $0 trn1|trn2 report|dma [QEMU-ARG...]"
pers=$1 what=$2
shift 2
case $what in report | dma) ;; *) die "$what: report or dma" ;; esac
need_pkgs busybox-static cpio
make -s -C "$NEURON_TOP/devmodel"
# VMLINUX from the environment, else Debian's 6.1 (fetched once, cached)
if [ -z "${VMLINUX:-}" ] || [ ! -f "$VMLINUX" ]; then
	eval "$("$NEURON_TOP/scripts/fetch-kernel.sh" 6.1)"
fi

work="$NEURON_CACHE/devmodel-boot/$pers-$what"
rm -rf "$work" && mkdir -p "$work/ird/bin" "$work/ird/proc" "$work/ird/sys" "$work/ird/dev"
cp /bin/busybox "$work/ird/bin/"
cp "$NEURON_TOP/devmodel/guest/init-$what" "$work/ird/init"
chmod +x "$work/ird/init"
(cd "$work/ird" && find . | cpio -o -H newc 2>/dev/null | gzip >"$work/initramfs.cpio.gz")
append="console=ttyS0 panic=-1 quiet ${APPEND:-}"
[ "$what" = dma ] && append="$append memmap=16M\$0x30000000"

"$NEURON_TOP/devmodel/build/neuron-devmodel" -s "$work/vfu.sock" -p "$pers" >"$work/model.log" 2>&1 &
model=$!
for _ in $(seq 100); do [ -S "$work/vfu.sock" ] && break; sleep 0.1; done
log "booting $pers ($what); log in $work"
rc=0
timeout 300 "$NEURON_TOP/scripts/qemu11.sh" -b "$work" -b "$(dirname "$VMLINUX")" -- \
	-machine q35,memory-backend=mem \
	-object memory-backend-memfd,id=mem,size=1G,share=on -m 1G \
	-nodefaults -display none -serial stdio -no-reboot \
	-kernel "$VMLINUX" -initrd "$work/initramfs.cpio.gz" -append "$append" "$@" \
	-device "{\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":\"$work/vfu.sock\",\"type\":\"unix\"}}" \
	>"$work/guest.log" 2>&1 || rc=$?
wait "$model" || rc=$?
sed -n '/=== guest/,/=== guest: done/p' "$work/guest.log"
grep -E 'warning|error' "$work/guest.log" | grep -v '^\[' || true
grep -E 'version|closed|warn' "$work/model.log" | cut -c 15- || true
[ $rc -eq 0 ] || die "QEMU or the model ended with status $rc"
! grep -q 'guest-check .* FAIL' "$work/guest.log" || die "a guest check failed"
grep -q '=== guest: done' "$work/guest.log" || die "the guest did not finish"
