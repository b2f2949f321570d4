#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh (`make check`): the whole test loop. For Debian 6.1 and 6.12:
# fetch the kernel, build neuron.ko (warning-free), boot it in QEMU with the
# selftests and judge the serial log (scripts/verdict.sh). Then the style
# gates (scripts/gates.sh) and the DKMS test (scripts/dkms-test.sh) when they
# exist, and a VM boot of the DKMS-installed module (loaded with modprobe).
# Counts: each TAP test result, plus one check per build, VM verdict, gate
# run and DKMS run. The last line is "N passed, M failed[, K skipped]"; the
# exit status is non-zero if anything failed. Logs: build/logs/latest/.

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
details() {
	case $1 in
	*build.log) bad_lines "$1" | grep . || tail -n 25 "$1" ;;
	*) tail -n 25 "$1" ;;
	esac | head -n 40 | sed 's/^/    /'
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

# vm_check NAME VMLINUX DIR INITRAMFS_ARG...: boot, count the verdict as one
# check, add the TAP counts; sets VM_SUMMARY.
vm_check() {
	local name=$1 vmlinux=$2 dir=$3 ok=0 p f s
	shift 3
	log "$name: booting"
	vm_test "$vmlinux" "$dir" "$@" || ok=1
	read -r p f s <<<"$COUNTS"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	check "$name VM verdict ($dir/serial.log)" "$ok" "$dir/verdict.txt"
	VM_SUMMARY="vm $(word "$ok"): $p passed, $f failed, $s skipped"
}

loop_prereqs
RUN=$(new_run_dir check)
log "logs in $RUN"

log "building the selftests and neuron-info"
PROGS="$BUILD/progs"
progs_build "$PROGS" "$RUN/progs-build.log" && ok=0 || ok=1
check "selftests/neuron-info build" "$ok" "$RUN/progs-build.log"
progs=("$PROGS"/neuron_* "$PROGS/neuron-info")

for series in 6.1 6.12; do
	log "$series: fetching the kernel (cached after the first run)"
	if ! kernel_env "$series" "$RUN/fetch-$series.log"; then
		check "fetch kernel $series" 1 "$RUN/fetch-$series.log"
		summary+=("$series: FAILED to fetch the kernel")
		continue
	fi
	[ "$series" != 6.1 ] || { KREL61=$KREL KDIR61=$KDIR VMLINUX61=$VMLINUX; }
	log "$KREL: building neuron.ko"
	d="$RUN/$KREL"
	mkdir -p "$d"
	module_build "$KDIR" "$BUILD/$KREL" "$d/build.log" && ok=0 || ok=1
	check "$KREL build (warnings and errors fail)" "$ok" "$d/build.log"
	line="$KREL: build $(word "$ok")"
	if [ -f "$BUILD/$KREL/neuron.ko" ] && [ -e "${progs[0]}" ]; then
		vm_check "$KREL" "$VMLINUX" "$d" -k "$BUILD/$KREL/neuron.ko" "${progs[@]}"
		line+=", $VM_SUMMARY"
	fi
	summary+=("$line")
done

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

run_optional gates "$S/gates.sh" ${KDIR61:+"$KDIR61"} || true

# The DKMS test installs the module into R/lib/modules/<release>/ (a
# sandboxed DKMS tree); the VM then loads it from there with modprobe.
R="$BUILD/dkms-root"
if [ -n "${KREL61:-}" ] &&
	run_optional dkms "$S/dkms-test.sh" "$KREL61" "$KDIR61" "$R" &&
	[ -e "${progs[0]}" ]; then
	vm_check "$KREL61 (DKMS, modprobe)" "$VMLINUX61" "$RUN/$KREL61-dkms" \
		-r "$R" "${progs[@]}"
	summary+=("$KREL61 (DKMS, modprobe): $VM_SUMMARY")
fi

finished=1
final
[ "$failed" -eq 0 ]
