#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [TIER...] (`make check`): the whole test loop, in tiers (default:
# all of them, in this order):
#   distro  for Debian 5.10 (bullseye), 6.1, 6.12 and the newest
#           trixie-backports kernel (7.x); the modules of 5.10 and 7.x are
#           built in a bullseye and a trixie chroot, with the compiler of
#           their headers (scripts/fetch-kernel.sh): fetch the kernel, build neuron.ko
#           (warning-free), boot it in QEMU with the selftests and judge the
#           serial log (scripts/verdict.sh); then the style gates
#           (scripts/gates.sh), the DKMS test (scripts/dkms-test.sh) with
#           bookworm's dkms against 6.1 and trixie's dkms 3.2 against 7.x,
#           the Debian packages (scripts/deb-build.sh, deb-test.sh) and a VM
#           of 6.1 booting what they installed (the module DKMS built,
#           loaded with modprobe; udev's rule applied by Debian's
#           systemd-udevd; the packaged library and tools); the DKMS and
#           package tests need 6.1. NEURON_KERNELS="6.1 ..." limits the distro
#           kernels (series names of scripts/fetch-kernel.sh: 5.10, 6.1,
#           6.12, trixie-bpo) for a quick local loop; `make check` runs all
#           four.
#   debug   the debug test kernel (scripts/debug-kernel.sh: KUnit, KASAN,
#           lockdep, kmemleak, UBSAN, fault injection, gcov): neuron.ko and
#           neuron_kunit.ko built with gcov, one VM boot running the
#           selftests, neuron_fault and the KUnit suites, then a kmemleak
#           scan; the gcov data is put beside the build (in the run's log
#           folder) for `make coverage`. Then signed modules: dkms signs
#           the modules with the kernel's test MOK key, and a VM booted with
#           module.sig_enforce=1 loads them and refuses an unsigned and an
#           untrusted one (scripts/tests/neuron_modsig).
#   Both tiers' VMs also run libshim's API tests (test_nrt) and the MLP
#   demo against libnrt.so.1 installed into the VM's /usr; before them, the
#   host tests of libshim (headers, ABI, container reader, fuzzing).
# Counts: each TAP test result and KUnit case, plus one check per build, VM
# verdict, gate run, DKMS run and gcov data set; the container reader's
# own counts. The last line is
# "N passed, M failed[, K skipped]"; the exit status is non-zero if anything
# failed. Logs: build/logs/latest/.

. "$(dirname "$0")/lib.sh"

start=$SECONDS
passed=0 failed=0 skipped=0 summary=() finished='' RUN=''

final() {
	local line="$passed passed, $failed failed"
	[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
	echo
	[ ${#summary[@]} -eq 0 ] || printf '%s\n' "${summary[@]}"
	[ -z "$RUN" ] || echo "logs: ${RUN#"$NEURON_TOP"/} ($((SECONDS - start)) s)"
	echo "$line"
}
# An unexpected error still ends with the count line, one failure more.
trap 'rc=$?; [ -n "$finished" ] || { echo "check.sh: aborted (status $rc)";
	failed=$((failed + 1)); final; exit 1; }' EXIT
. "$(dirname "$0")/loop.sh"

# details LOG: the lines worth showing of a failed step's log.
# A verdict shows its kernel splats first (the report titles), then the rest.
details() {
	case $1 in
	*build.log) bad_lines "$1" | grep . || tail -n 25 "$1" ;;
	*verdict.txt) grep 'kernel splat' "$1" | head -n 20; grep -v 'kernel splat' "$1" ;;
	*) tail -n 25 "$1" ;;
	esac | head -n 40 | sed 's/^/    /' || true # (head may cut a pipe short)
}

# word OK: "ok" for status 0, else "FAILED".
word() { if [ "$1" = 0 ]; then echo ok; else echo FAILED; fi; }

# check NAME OK [LOG]: count one check; on failure show details of LOG.
check() {
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $1"
		[ -z "${3:-}" ] || [ ! -s "$3" ] || details "$3"
	fi
}

# vm_check NAME KERNEL DIR INITRAMFS_ARG...: boot, count the verdict as one
# check, add the TAP counts; sets VM_SUMMARY.
vm_check() {
	local name=$1 kernel=$2 dir=$3 ok=0 p f s k
	shift 3
	log "$name: booting"
	vm_test "$kernel" "$dir" "$@" || ok=1
	read -r p f s k <<<"$COUNTS"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	check "$name VM verdict ($dir/serial.log)" "$ok" "$dir/verdict.txt"
	VM_SUMMARY="vm $(word "$ok"): $p passed, $f failed, $s skipped"
	[ "$k" = 0 ] || VM_SUMMARY+=" ($k of them KUnit cases)"
}

# VMs two at a time (NEURON_VM_JOBS): the machine has two cores and a VM's
# guest is mostly one busy vCPU. vm_start NAME LINE KERNEL DIR
# INITRAMFS_ARG...: vm_check in the background once a slot is free (the
# caller's environment assignments go with it); LINE starts the summary
# line that vm_collect finishes with the VM's counts.
pend_name=() pend_dir=() pend_line=()
vm_start() {
	local name=$1 line=$2 kernel=$3 dir=$4
	shift 4
	while [ "$(jobs -rp | wc -l)" -ge "${NEURON_VM_JOBS:-2}" ]; do wait -n || true; done
	log "$name: booting"
	mkdir -p "$dir"
	rm -f "$dir/result"
	(
		rc=0
		vm_test "$kernel" "$dir" "$@" || rc=1
		echo "$rc $COUNTS" >"$dir/result"
	) &
	pend_name+=("$name") pend_dir+=("$dir") pend_line+=("$line")
}

# vm_collect: wait for the VMs of vm_start and count them, in start order.
vm_collect() {
	local i ok p f s k
	wait || true
	for i in "${!pend_name[@]}"; do
		ok=1 p=0 f=0 s=0 k=0
		[ ! -s "${pend_dir[$i]}/result" ] ||
			read -r ok p f s k <"${pend_dir[$i]}/result"
		[ -s "${pend_dir[$i]}/result" ] ||
			echo "verdict: the VM run ended without a result" >>"${pend_dir[$i]}/verdict.txt"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		check "${pend_name[$i]} VM verdict (${pend_dir[$i]}/serial.log)" "$ok" \
			"${pend_dir[$i]}/verdict.txt"
		VM_SUMMARY="vm $(word "$ok"): $p passed, $f failed, $s skipped"
		[ "$k" = 0 ] || VM_SUMMARY+=" ($k of them KUnit cases)"
		summary+=("${pend_line[$i]}$VM_SUMMARY")
	done
	pend_name=() pend_dir=() pend_line=()
}

tiers=("$@")
[ $# -gt 0 ] || tiers=(distro debug pci)
for t in "${tiers[@]}"; do
	case $t in distro | debug | pci) ;; *) die "usage: $0 [distro] [debug] [pci]" ;; esac
done
# tier NAME: true if tier NAME was asked for.
tier() { [[ " ${tiers[*]} " == *" $1 "* ]]; }
kernels=()
if tier distro; then
	read -ra kernels <<<"${NEURON_KERNELS:-5.10 6.1 6.12 trixie-bpo}"
	for series in "${kernels[@]}"; do
		case $series in 5.10 | 6.1 | 6.12 | trixie-bpo) ;;
		*) die "NEURON_KERNELS: $series is not 5.10, 6.1, 6.12 or trixie-bpo" ;;
		esac
	done
	[ ${#kernels[@]} -gt 0 ] || die "NEURON_KERNELS names no kernel"
	[ -z "${NEURON_KERNELS:-}" ] || log "NEURON_KERNELS: only ${kernels[*]}"
fi

loop_prereqs
RUN=$(new_run_dir check)
log "logs in $RUN"

# The kernel resolver against recorded package lists (a fetch must find a
# bootable image on any mirror state, scripts/kernel-pick.sh).
"$S/tests/kernel-pick.sh" >"$RUN/kernel-pick.log" 2>&1 && ok=0 || ok=1
read -r p _ f _ < <(tail -n 1 "$RUN/kernel-pick.log" | tr -d ',') || true
passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
check "kernel resolver tests ($RUN/kernel-pick.log)" "$ok" "$RUN/kernel-pick.log"
summary+=("kernel resolver: ${p:-?} passed, ${f:-?} failed")

# The privilege model's table (docs/privilege-model.md) names only tests
# that exist, and every test that drops privileges has its row.
"$S/privilege-table.sh" >"$RUN/privilege-table.log" 2>&1 && ok=0 || ok=1
check "privilege table against the tests ($RUN/privilege-table.log)" "$ok" "$RUN/privilege-table.log"
summary+=("privilege table: $(tail -n 1 "$RUN/privilege-table.log")")
# The syzkaller description (tools/syzkaller/) against uapi/.
"$S/syz-check.sh" >"$RUN/syz-check.log" 2>&1 && ok=0 || ok=1
check "syzkaller description against uapi/ ($RUN/syz-check.log)" "$ok" "$RUN/syz-check.log"
summary+=("syzkaller description: $(tail -n 1 "$RUN/syz-check.log")")

log "building the selftests and neuron-info"
PROGS="$BUILD/progs"
progs_build "$PROGS" "$RUN/progs-build.log" && ok=0 || ok=1
check "selftests/neuron-info build" "$ok" "$RUN/progs-build.log"
# neuron_fault needs fault injection: only the debug kernel has it (on the
# Debian kernels it would skip, and a skip is a failure in the VM);
# neuron_pci_fault needs the device model's control channel: only the pci
# tier's VMs have it; neuron_pci_unplug too, and it removes the PCI device
# (and finds it again): last in those VMs, and alone in the tier's hotplug
# VM, where it deletes the device through QEMU's device_del. The 32-bit
# builds (neuron_*_32) run after the 64-bit ones, on kernels with IA32
# emulation (Debian's and the debug kernel, see debug_tier).
progs=() fault=() pcifault=() pciunplug=() progs32=() fault32=()
# neuron-ls runs first (it prints the vendor's table); neuron-monitor, which
# streams reports until it is stopped, is only put into /tests (-x), where
# neuron_tools runs both with their options.
tools=("$PROGS/neuron-ls") xtools=()
for p in "$PROGS"/neuron_* "$PROGS/neuron-info"; do
	case ${p##*/} in
	neuron_fault) fault=("$p") ;;
	neuron_pci_fault) pcifault=("$p") ;;
	neuron_pci_unplug) pciunplug=("$p") ;;
	*) progs+=("$p") ;;
	esac
done
for p in "$PROGS-32"/neuron_*_32; do
	if [ "${p##*/}" = neuron_fault_32 ]; then fault32=("$p"); else progs32+=("$p"); fi
done

# libshim: libnrt.so.1, its tools and the example models installed into
# $SHIM/root (the VM's /usr), the VM's API tests and the examples built
# against that install; then the host tests: each public header alone (C,
# C++), the ABI (layouts, enum values, exported symbols), the container
# reader against corrupt inputs (its own counts) and a short fuzz run. Every
# VM then runs test_nrt and nrt_mlp_demo against the installed library.
SHIM="$BUILD/shim" shim_opt=() shim_progs=()
log "building libnrt.so.1, the tools, the example models, test_nrt and the examples"
shim_build "$SHIM" "$RUN/shim-build.log" && ok=0 || ok=1
check "libshim build (library, tools, models, test_nrt, examples)" "$ok" "$RUN/shim-build.log"
if [ "$ok" = 0 ]; then
	shim_opt=(-l "$SHIM/root")
	shim_progs=("$SHIM/progs/test_nrt" "$SHIM/progs/nrt_mlp_demo")
	progs=("${tools[@]}" "${progs[@]}")
	xtools=(-x "$PROGS/neuron-monitor")
	make -C "$SRC/libshim" O="$SHIM/lib" header-test >"$RUN/shim-headers.log" 2>&1 && ok=0 || ok=1
	check "libshim headers alone in C and C++" "$ok" "$RUN/shim-headers.log"
	make -C "$SRC/libshim" O="$SHIM/lib" abi-test \
		HDRDIR="$SHIM/root/usr/include" LIBFILE="$SHIM/root/usr/lib/libnrt.so.1" \
		>"$RUN/shim-abi.log" 2>&1 && ok=0 || ok=1
	check "libshim ABI of the installed library and headers" "$ok" "$RUN/shim-abi.log"
	make -f "$SRC/libshim/Makefile.container" O="$SHIM/lib" container-test \
		>"$RUN/shim-container.log" 2>&1 && ok=0 || ok=1
	# "N passed, M failed"
	read -r p _ f _ < <(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$RUN/shim-container.log" |
		tail -n 1 | tr -d ',') || true
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
	check "container reader tests ($RUN/shim-container.log)" "$ok" "$RUN/shim-container.log"
	make -f "$SRC/libshim/Makefile.container" O="$SHIM/lib" FUZZ_TIME=20 container-fuzz \
		>"$RUN/shim-fuzz.log" 2>&1 && ok=0 || ok=1
	check "container reader fuzzing, 20 s" "$ok" "$RUN/shim-fuzz.log"
	summary+=("libshim: build ok, container tests ${p:-?} passed ${f:-?} failed, $(grep -o 'Done [0-9]* runs' "$RUN/shim-fuzz.log" | tail -n 1 || echo 'fuzz failed')")
fi

# The PCI device model (devmodel/, docs/devmodel.md): its host tests (the
# vfio-user parser, the UDMA walker, the register file, the mailbox, a fake
# client end to end; under ASan and UBSan) with their own counts, and a
# 20 s run of the message parser's fuzz target.
DM="$BUILD/devmodel"
log "devmodel: host tests and a 20 s fuzz run"
make -C "$SRC/devmodel" B="$DM" test >"$RUN/devmodel-test.log" 2>&1 && ok=0 || ok=1
read -r p _ f _ < <(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$RUN/devmodel-test.log" |
	tail -n 1 | tr -d ',') || true
passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
check "devmodel tests ($RUN/devmodel-test.log)" "$ok" "$RUN/devmodel-test.log"
make -C "$SRC/devmodel" B="$DM" FUZZ_TIME=20 fuzz >"$RUN/devmodel-fuzz.log" 2>&1 && ok=0 || ok=1
check "devmodel message parser fuzzing, 20 s" "$ok" "$RUN/devmodel-fuzz.log"
summary+=("devmodel: tests ${p:-?} passed ${f:-?} failed, fuzz $(grep -o 'Done [0-9]* runs' "$RUN/devmodel-fuzz.log" | tail -n 1 || echo 'failed')")

for series in "${kernels[@]}"; do
	log "$series: fetching the kernel (cached after the first run)"
	if ! kernel_env "$series" "$RUN/fetch-$series.log"; then
		check "fetch kernel $series" 1 "$RUN/fetch-$series.log"
		summary+=("$series: FAILED to fetch the kernel")
		continue
	fi
	[ "$series" != 6.1 ] || { KREL61=$KREL KDIR61=$KDIR VMLINUX61=$VMLINUX; }
	[ "$series" != trixie-bpo ] || { KRELT=$KREL KDIRT=$KDIR; }
	log "$KREL: building neuron.ko"
	d="$RUN/$KREL"
	mkdir -p "$d"
	module_build "$KDIR" "$BUILD/$KREL" "$d/build.log" && ok=0 || ok=1
	check "$KREL build (warnings and errors fail)" "$ok" "$d/build.log"
	line="$KREL: build $(word "$ok")"
	if [ -f "$BUILD/$KREL/neuron.ko" ] && [ -e "${progs[0]}" ]; then
		vm_start "$KREL" "$line, " "$VMLINUX" "$d" -k "$BUILD/$KREL/neuron.ko" \
			"${shim_opt[@]}" "${xtools[@]}" "${progs[@]}" "${progs32[@]}" "${shim_progs[@]}"
	else
		summary+=("$line")
	fi
done
vm_collect

# run_optional NAME SCRIPT ARG...: another part's script, one check.
run_optional() {
	local name=$1 script=$2
	shift 2
	if [ ! -x "$script" ]; then
		summary+=("$name: not run (no $script)")
		return 1
	fi
	log "$name: running ${script#"$NEURON_TOP"/}"
	"$script" "$@" >"$RUN/$name.log" 2>&1 && ok=0 || ok=1
	check "$name (${script#"$NEURON_TOP"/})" "$ok" "$RUN/$name.log"
	summary+=("$name: $(word "$ok")")
	return "$ok"
}

# The gates build against the 6.1 headers: the cached tree, fetched here
# when NEURON_KERNELS leaves 6.1 out (gates.sh alone would install Debian's
# headers package on the system).
gkdir=${KDIR61:-}
tier distro && [ -z "$gkdir" ] &&
	gkdir=$(kernel_env 6.1 "$RUN/fetch-6.1.log" && echo "$KDIR") || true
tier distro && run_optional gates "$S/gates.sh" ${gkdir:+"$gkdir"} || true

tier distro && [ -z "${KREL61:-}" ] && [[ " ${kernels[*]} " != *" 6.1 "* ]] &&
	summary+=("dkms: not run (NEURON_KERNELS has no 6.1)")

# The DKMS test installs the module into R/lib/modules/<release>/ (a
# sandboxed DKMS tree, the real dkms, dkms.conf's rules; docs/dkms.md).
R="$BUILD/dkms-root"
tier distro && [ -n "${KREL61:-}" ] &&
	run_optional dkms "$S/dkms-test.sh" "$KREL61" "$KDIR61" "$R" || true
# The same test with trixie's dkms (3.2), in a trixie chroot that has it
# (scripts/chroot.sh trixie-dkms), against the trixie-backports kernel:
# the tree and the kernel bind-mounted at their own paths.
if tier distro && [ -n "${KRELT:-}" ]; then
	tb=(-b "$NEURON_TOP")
	[ "$SRC" = "$NEURON_TOP" ] || tb+=(-b "$SRC")
	run_optional dkms-trixie "$S/chroot.sh" "${tb[@]}" -b "${KDIRT%/usr/src/*}" \
		trixie-dkms env NEURON_SRC="$SRC" bash "$S/dkms-test.sh" "$KRELT" "$KDIRT" \
		"$BUILD/dkms-root-trixie" || true
elif tier distro; then
	summary+=("dkms-trixie: not run (NEURON_KERNELS has no trixie-bpo)")
fi

# The Debian packages (debian/, docs/packaging.md): built from a clean copy
# of the tree and checked with lintian (deb-build.sh), then installed in a
# throwaway bookworm root with their maintainer scripts, DKMS building the
# module against the 6.1 headers (deb-test.sh, its own counts). The DKMS
# VM then boots what they installed (deb-test.sh --vm-root): the modules
# that DKMS built, loaded with modprobe; Debian's systemd-udevd applying
# the packaged rule (scripts/tests/neuron_udev); the packaged tools and
# libnrt.so.1 running the tool tests, test_nrt and the demo
# (scripts/tests/neuron_debs, neuron_tools_pkg); and the selftests.
DEBS="$BUILD/debs" DEBROOT="$BUILD/deb-root"
if tier distro && run_optional deb-build "$S/deb-build.sh" "$DEBS" && [ -n "${KREL61:-}" ]; then
	log "deb-test: installing the packages in a bookworm root"
	"$S/deb-test.sh" --vm-root "$DEBROOT" "$DEBS" "$KREL61" "$KDIR61" >"$RUN/deb-test.log" 2>&1 &&
		ok=0 || ok=1
	read -r p _ f _ < <(grep -E '^deb-test: [0-9]+ passed, [0-9]+ failed$' "$RUN/deb-test.log" |
		tail -n 1 | sed 's/^deb-test: //' | tr -d ',') || true
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
	check "deb-test ($RUN/deb-test.log)" "$ok" "$RUN/deb-test.log"
	summary+=("deb-test: ${p:-?} passed, ${f:-?} failed")
	if [ -x "$DEBROOT/usr/bin/neuron-ls" ] && [ -e "${progs[0]}" ] && [ ${#shim_progs[@]} -gt 0 ]; then
		debprogs=()
		for p in "${progs[@]}" "${progs32[@]}"; do
			case ${p##*/} in neuron-ls | neuron-monitor | neuron_tools | neuron_tools_32) ;; *) debprogs+=("$p") ;; esac
		done
		# In the background: the debug tier's builds and first boot
		# start beside it (vm_collect counts it with theirs).
		vm_start "$KREL61 (Debian packages: DKMS, udev, libnrt1, neuron-tools)" \
			"$KREL61 (Debian packages): " "$VMLINUX61" \
			"$RUN/$KREL61-debs" -r "$DEBROOT" -l "$DEBROOT" -x "$PROGS/neuron_tools" \
			"$S/tests/neuron_udev" "$S/tests/neuron_debs" "$S/tests/neuron_tools_pkg" \
			"${debprogs[@]}" "${shim_progs[@]}"
	fi
fi

# gcov_build DIR BUILD WHAT [MAKE_ARG...]: neuron.ko, neuron_sim.ko and
# neuron_kunit.ko for the debug kernel with gcov into BUILD (logs in DIR),
# one check; WHAT ends the check's name.
gcov_build() {
	local ok
	mkdir -p "$1"
	log "$KRELEASE: building neuron.ko and neuron_kunit.ko with gcov$3"
	module_build "$KDIR" "$2" "$1/build.log" NEURON_GCOV=1 "${@:4}" && ok=0 || ok=1
	check "$KRELEASE build$3 (KUnit, gcov; warnings and errors fail)" "$ok" "$1/build.log"
	return "$ok"
}

# gcov_merge BUILDDIR LOG...: the .gcda files of each debug boot's serial
# LOG (gcov_unpack), added together with gcov-tool (gcc's) beside the .gcno
# files of BUILDDIR.
gcov_merge() {
	local b=$1 tmp log i=0 rc=0
	shift
	tmp=$(mktemp -d)
	for log in "$@"; do
		i=$((i + 1))
		gcov_unpack "$log" "$b" || { rc=1; continue; }
		mkdir -p "$tmp/$i"
		(cd "$b" && find . -name '*.gcda' -print0 | xargs -0 cp --parents -t "$tmp/$i") || rc=1
		[ "$i" = 1 ] || { gcov-tool merge -o "$tmp/m$i" "$tmp/$((i - 1))" "$tmp/$i" &&
			rm -rf "${tmp:?}/$i" && mv "$tmp/m$i" "$tmp/$i"; } || rc=1
	done
	if [ "$rc" = 0 ]; then
		find "$b" -name '*.gcda' -delete
		cp -r "$tmp/$i/." "$b/"
	fi
	rm -rf "$tmp"
	return $rc
}
# The debug tier: two boots of the debug kernel side by side (one boot of
# everything took more than the 1500 s limit), 2400 s each and 1200 s per
# program unless NEURON_VM_TIMEOUT and NEURON_VM_PROG_TIMEOUT say otherwise
# (KASAN, lockdep and kmemleak make everything slow, more so when the two
# boots share the two cores), their gcov data merged: the
# 64-bit selftests, libnrt's tests and neuron_fault; and the 32-bit
# selftests, the fuzzer and the 32-bit neuron_fault. In each, lock-order
# checking sees the normal paths (selftests) before the error paths
# (neuron_fault) and the KUnit suites: the first KASAN report would turn
# lockdep off. The modules have KCOV too (NEURON_KCOV=1): the fuzzer's
# bounded run (tools/fuzz/neuron_fuzz_vm: NEURON_FUZZ_RUNS executions from
# the seed corpus, then the proof that its accounting check fails on a
# leak).
dbg_d='' dbg_b='' dbg_kdir='' dbg_logs=()
debug_tier() {
	local d b p32=() fzx=() fz=() xls=()
	log "debug kernel: building it or reusing the cached one (scripts/debug-kernel.sh)"
	if ! debug_env "$RUN/debug-kernel.log"; then
		check "debug kernel build" 1 "$RUN/debug-kernel.log"
		summary+=("debug: FAILED to build the debug kernel")
		return
	fi
	dbg_kdir=$KDIR
	# The build stays in the run's folder: its .gcno files must match the
	# .gcda files of this boot (make coverage), whatever runs later.
	d="$RUN/$KRELEASE" b="$RUN/$KRELEASE/module"
	gcov_build "$d" "$b" "" NEURON_KCOV=1 && ok=0 || ok=1
	line="$KRELEASE (debug): build $(word "$ok")"
	log "$KRELEASE: building neuron_fuzz (clang, libFuzzer)"
	make -C "$SRC/tools/fuzz" O="$d/fuzz" >"$d/fuzz-build.log" 2>&1 &&
		echo "RUNS=${NEURON_FUZZ_RUNS:-300}" >"$d/fuzz/neuron_fuzz.conf" && ok=0 || ok=1
	check "neuron_fuzz build (clang, libFuzzer)" "$ok" "$d/fuzz-build.log"
	[ "$ok" != 0 ] || fzx=(-x "$d/fuzz/neuron_fuzz" -x "$d/fuzz/neuron_fuzz_corpus.tar"
		-x "$d/fuzz/neuron_fuzz.conf") fz=("$d/fuzz/neuron_fuzz_vm")
	# neuron_fuzz is dynamic: the VM needs an install tree (-l) for its libraries.
	[ "$ok" != 0 ] || [ ${#shim_opt[@]} -gt 0 ] || fzx+=(-l "$d/fuzz/root")
	# 32-bit programs only if the kernel runs them (IA32 emulation).
	! grep -q '^CONFIG_IA32_EMULATION=y' "$KDIR/.config" 2>/dev/null ||
		p32=("${progs32[@]}")
	if [ -f "$b/neuron.ko" ] && [ -f "$b/neuron_kunit.ko" ] && [ -e "${progs[0]}" ]; then
		NEURON_VM_MEM=512M NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-2400} \
			NEURON_VM_PROG_TIMEOUT=${NEURON_VM_PROG_TIMEOUT:-1200} \
			vm_start "$KRELEASE (debug)" "$line, " "$IMAGE" "$d" -k "$b/neuron.ko" \
				-d "$b/neuron_kunit.ko" "${shim_opt[@]}" "${xtools[@]}" \
				"${progs[@]}" "${shim_progs[@]}" "${fault[@]}"
		dbg_logs=("$d/serial.log")
		if [ ${#p32[@]} -gt 0 ] || [ ${#fz[@]} -gt 0 ]; then
			# neuron_tools_32 runs the netlink tools of /tests: neuron-ls
			# is a program of the first boot only, so it comes in with -x.
			[ ${#shim_opt[@]} -eq 0 ] || xls=(-x "${tools[0]}")
			NEURON_VM_MEM=512M NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-2400} \
				NEURON_VM_PROG_TIMEOUT=${NEURON_VM_PROG_TIMEOUT:-1200} \
				vm_start "$KRELEASE (debug, 32-bit and fuzzer)" \
					"$KRELEASE (debug, 32-bit and fuzzer): " "$IMAGE" "$d-32" \
					-k "$b/neuron.ko" -d "$b/neuron_kunit.ko" "${shim_opt[@]}" \
					"${xtools[@]}" ${xls[0]:+"${xls[@]}"} ${fzx[0]:+"${fzx[@]}"} \
					${p32[0]:+"${p32[@]}"} \
					${fz[0]:+"${fz[@]}"} ${p32[0]:+"${fault32[@]}"}
			dbg_logs+=("$d-32/serial.log")
		fi
	else
		summary+=("$line")
	fi
	dbg_d=$d dbg_b=$b
}

# debug_tier_end: once the debug boots are collected (vm_collect), their
# gcov data merged, and the signed modules' VM.
debug_tier_end() {
	local d=$dbg_d b=$dbg_b ok
	[ -n "$b" ] || return 0
	KDIR=$dbg_kdir
	if [ ${#dbg_logs[@]} -gt 0 ]; then
		gcov_merge "$b" "${dbg_logs[@]}" 2>"$d/coverage.txt" &&
			coverage_table "$b" >>"$d/coverage.txt" 2>&1 && ok=0 || ok=1
		check "gcov data of the debug runs ($d/coverage.txt)" "$ok" "$d/coverage.txt"
		summary+=("$KRELEASE (debug): coverage: $(awk '$1 == "TOTAL" { print $2 " of " $3 " lines" }' "$d/coverage.txt")")
	fi
	[ -f "$b/neuron.ko" ] && [ -e "${progs[0]}" ] && modsig_test "$b/neuron.ko"
}

# modsig_test UNSIGNED_KO: signed modules (docs/dkms.md, "Secure Boot"). The
# real dkms installs the modules for the debug kernel in a sandbox, signing
# them with the test MOK key that kernel trusts (scripts/debug-kernel.sh),
# as it would with the key /etc/dkms/framework.conf names; a VM booted with
# module.sig_enforce=1 loads them with modprobe and runs
# scripts/tests/neuron_modsig, which must see UNSIGNED_KO (this run's build)
# and a copy signed with a throwaway key refused.
modsig_test() {
	local d="$RUN/$KRELEASE-modsig" r="$BUILD/dkms-root-signed" ok
	mkdir -p "$d"
	log "$KRELEASE: DKMS install signed with the test MOK key"
	NEURON_DKMS_KEY="$KDIR/certs/neuron-test-mok.key" \
		NEURON_DKMS_CERT="$KDIR/certs/neuron-test-mok.der" \
		"$S/dkms-test.sh" "$KRELEASE" "$KDIR" "$r" >"$d/dkms.log" 2>&1 && ok=0 || ok=1
	check "dkms install for $KRELEASE, signed with the test MOK key ($d/dkms.log)" "$ok" "$d/dkms.log"
	if [ "$ok" != 0 ]; then
		summary+=("$KRELEASE (signed modules): FAILED to install with dkms")
		return
	fi
	cp "$1" "$d/neuron-unsigned.ko"
	cp "$1" "$d/neuron-untrusted.ko"
	{
		openssl req -new -x509 -nodes -days 1 -subj "/CN=neuron untrusted test key/" \
			-newkey rsa:2048 -keyout "$d/untrusted.key" -outform DER -out "$d/untrusted.der" &&
			"$KDIR/scripts/sign-file" sha512 "$d/untrusted.key" "$d/untrusted.der" \
				"$d/neuron-untrusted.ko"
	} >"$d/sign.log" 2>&1 && ok=0 || ok=1
	check "a copy of neuron.ko signed with a throwaway key" "$ok" "$d/sign.log"
	NEURON_VM_MEM=512M NEURON_VM_APPEND=module.sig_enforce=1 \
		vm_check "$KRELEASE (signed modules, module.sig_enforce=1)" "$IMAGE" "$d" \
		-r "$r" -x "$d/neuron-unsigned.ko" -x "$d/neuron-untrusted.ko" \
		"$S/tests/neuron_modsig" "$PROGS/neuron_query" "$PROGS/neuron-info"
	summary+=("$KRELEASE (signed modules, module.sig_enforce=1): $VM_SUMMARY")
}

# The pci tier (docs/testing.md, docs/devmodel.md): Debian's 6.1 in QEMU 11
# with the device model (scripts/vm-pci.sh, its ASan build) as a trn1 and a
# trn2, each without and with a vIOMMU; neuron.ko loaded with
# pci_engines=1 drives the model's engines through its registers, and the
# selftests run against /dev/neuron0 (what the device lacks skips and counts
# as skipped; scripts/tests/neuron_pci_mbox reads the serial number and ECC
# counters through the firmware mailbox and makes it silent;
# scripts/tests/neuron_pci_ready, last, makes the model not
# ready for a while and for ever through its control socket, which is the
# guest's /dev/ttyS1, before it neuron_pci_fault makes engine faults through
# the same socket; after it neuron_pci_unplug removes the PCI device with a
# file open, memory mapped, waits asleep and a copy held by a hung engine,
# then rescans the bus; initramfs.sh -P adds unbind, bind and reload with a
# file open). Then the debug kernel boots a trn2 behind a vIOMMU and a trn1 with
# the gcov build, for the coverage of the register code (make coverage) and its
# kmemleak and lockdep verdicts (-d: the debug steps; the KUnit suites,
# which need neuron_sim.ko, are not run on a PCI device). The device model must exit
# 0 in every run (scripts/verdict.sh). The install tree of libshim goes in
# as in the other tiers (-l: the netlink tools' shared libraries come with
# it); libnrt's tests are left out: they need execution, which the PCI
# backend does not have.
pci_tier() {
	local pers io name d b ok kmod f p
	if [ -z "${KREL61:-}" ]; then
		log "pci: fetching the 6.1 kernel"
		if ! kernel_env 6.1 "$RUN/fetch-6.1.log"; then
			check "fetch kernel 6.1 (pci)" 1 "$RUN/fetch-6.1.log"
			summary+=("pci: FAILED to fetch the kernel")
			return
		fi
		KREL61=$KREL KDIR61=$KDIR VMLINUX61=$VMLINUX
	fi
	kmod="$BUILD/$KREL61/neuron.ko"
	if [ ! -f "$kmod" ]; then
		mkdir -p "$RUN/$KREL61"
		module_build "$KDIR61" "$BUILD/$KREL61" "$RUN/$KREL61/build.log" && ok=0 || ok=1
		check "$KREL61 build (pci)" "$ok" "$RUN/$KREL61/build.log"
	fi
	if [ ! -f "$kmod" ] || [ ! -e "${progs[0]}" ]; then
		summary+=("pci: not run (no neuron.ko or selftests)")
		return
	fi
	log "pci: the device model's ASan build, QEMU 11 (scripts/qemu11.sh, cached)"
	make -s -C "$SRC/devmodel" build/asan/neuron-devmodel >"$RUN/pci-devmodel-build.log" 2>&1 &&
		"$S/qemu11.sh" --version >>"$RUN/pci-devmodel-build.log" 2>&1 && ok=0 || ok=1
	check "pci: device model build and QEMU 11" "$ok" "$RUN/pci-devmodel-build.log"
	[ "$ok" = 0 ] || { summary+=("pci: FAILED to build the device model or get QEMU 11"); return; }
	for pers in trn1 trn2; do
		for io in 0 1; do
			name="$KREL61 PCI $pers"
			[ "$io" = 0 ] || name+=" vIOMMU"
			d="$RUN/pci-$pers-iommu$io"
			VM_PCI=$pers NEURON_VM_IOMMU=$io vm_start "$name" "$name: " "$VMLINUX61" "$d" \
				-P -k "$kmod" "${shim_opt[@]}" "${xtools[@]}" "${progs[@]}" "${pcifault[@]}" \
				"$S/tests/neuron_pci_mbox" "$S/tests/neuron_pci_ready" "${pciunplug[@]}"
		done
	done
	# A real hot unplug: QEMU's device_del of a trn1 on i440fx, whose root
	# bus has ACPI hotplug (vm-pci.sh NEURON_VM_HOTPLUG=1, docs/devmodel.md
	# "Hot removal"); neuron_pci_unplug alone, which deletes the device.
	VM_PCI=trn1 NEURON_VM_IOMMU=0 NEURON_VM_HOTPLUG=1 vm_start "$KREL61 PCI trn1 hotplug" \
		"$KREL61 PCI trn1 hotplug: " "$VMLINUX61" "$RUN/pci-trn1-hotplug" -P -k "$kmod" \
		"${pciunplug[@]}"
	# Surprise removal for real: the model killed (its `die`) under the
	# driver; neuron_pci_unplug's kill_idle alone, the model's status 137.
	VM_PCI=trn1 NEURON_VM_IOMMU=0 NEURON_VM_MODEL_KILL=1 vm_start "$KREL61 PCI trn1 kill" \
		"$KREL61 PCI trn1 kill: " "$VMLINUX61" "$RUN/pci-trn1-kill" -P -k "$kmod" \
		"${pciunplug[@]}"
	pci_started=1
}

# pci_tier_debug: the pci tier's boots of the debug kernel, after the VMs
# of pci_tier are collected.
pci_started=''
pci_tier_debug() {
	local d b f p ok
	[ -n "$pci_started" ] || return 0
	tier debug || return 0
	# pci_tier may have fetched the 6.1 kernel since (KDIR).
	if [ -n "$dbg_kdir" ]; then
		KDIR=$dbg_kdir
	elif ! debug_env "$RUN/debug-kernel.log"; then
		check "debug kernel build (pci)" 1 "$RUN/debug-kernel.log"
		return
	fi
	d="$RUN/$KRELEASE-pci" b="$RUN/$KRELEASE-pci/module"
	gcov_build "$d" "$b" " for the pci tier" || true
	[ -f "$b/neuron.ko" ] || return 0
	# Three boots of the same gcov build, two at a time: a trn2 (v3) behind a
	# vIOMMU with every selftest, neuron_pci_mbox, neuron_pci_ready and
	# neuron_pci_unplug, and a trn1 (v2, ndhal_v2.c) with the
	# selftests of the register code only (memory, copies, notification
	# queues, semaphores, the engine faults), to keep the tier short; then
	# the hotplug boot below. Their data is merged.
	p=()
	for f in "${progs[@]}"; do
		case ${f##*/} in neuron_query | neuron_mem | neuron_copy | neuron_notify | neuron_reserve) p+=("$f") ;; esac
	done
	VM_PCI=trn2 NEURON_VM_IOMMU=1 NEURON_VM_MEM=1G NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-1500} \
		vm_start "$KRELEASE PCI trn2 vIOMMU (debug)" "$KRELEASE PCI trn2 vIOMMU (debug): " \
		"$IMAGE" "$d" -P -k "$b/neuron.ko" -d "$b/neuron_kunit.ko" "${shim_opt[@]}" \
		"${xtools[@]}" "${progs[@]}" "${pcifault[@]}" "$S/tests/neuron_pci_mbox" \
		"$S/tests/neuron_pci_ready" "${pciunplug[@]}"
	VM_PCI=trn1 NEURON_VM_IOMMU=0 NEURON_VM_MEM=1G NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-1500} \
		vm_start "$KRELEASE PCI trn1 (debug)" "$KRELEASE PCI trn1 (debug): " \
		"$IMAGE" "$d-trn1" -P -k "$b/neuron.ko" -d "$b/neuron_kunit.ko" "${p[@]}" "${pcifault[@]}"
	# The hot unplug on the debug kernel: QEMU's device_del of a trn2 on
	# i440fx (no vIOMMU there), neuron_pci_unplug alone, in the slot of
	# whichever boot above ends first.
	VM_PCI=trn2 NEURON_VM_IOMMU=0 NEURON_VM_HOTPLUG=1 NEURON_VM_MEM=1G \
		NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-1500} \
		vm_start "$KRELEASE PCI trn2 hotplug (debug)" "$KRELEASE PCI trn2 hotplug (debug): " \
		"$IMAGE" "$d-hotplug" -P -k "$b/neuron.ko" -d "$b/neuron_kunit.ko" "${pciunplug[@]}"
	vm_collect
	gcov_merge "$b" "$d/serial.log" "$d-trn1/serial.log" "$d-hotplug/serial.log" \
		2>"$d/coverage.txt" &&
		coverage_table "$b" >>"$d/coverage.txt" 2>&1 && ok=0 || ok=1
	check "gcov data of the pci tier's debug runs ($d/coverage.txt)" "$ok" "$d/coverage.txt"
	summary+=("$KRELEASE PCI (debug, trn2, trn1 and hotplug): coverage: $(awk '$1 ~ /ndhal_v2|ndhal_v3|ndhal_udma|neuron_pci/ {
		sub(/.*\//, "", $1); printf "%s%s %s", sep, $1, $2; sep = ", " }' "$d/coverage.txt")")
}

# The debug tier's two boots, then the pci tier's six VMs, two at a time
# (vm_start): a pci VM takes the slot of whichever debug boot ends first.
# Then the debug tier's coverage and signed modules, then the pci tier's
# debug boots.
tier debug && debug_tier
tier pci && pci_tier
vm_collect
tier debug && debug_tier_end
tier pci && pci_tier_debug

finished=1
final
[ "$failed" -eq 0 ]
