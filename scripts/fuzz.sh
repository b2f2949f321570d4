#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh [CALLS] (`make fuzz`): soak the driver with the coverage-guided
# fuzzer (tools/fuzz, docs/testing.md "Fuzzing") on the debug test kernel:
# neuron.ko and neuron_sim.ko built with KCOV and gcov (NEURON_KCOV=1
# NEURON_GCOV=1), one VM boot that runs neuron_fuzz from the seed corpus
# until CALLS calls (default 1000000), then the leak proof (the accounting
# check must fail on a sequence that leaks), the KUnit suites and the debug
# kernel's verdicts (kmemleak, lockdep, splats in the serial log). Then
# the reach report (scripts/fuzz-reach.sh) from the run's gcov data.
# NEURON_FUZZ_RUNS=N runs N executions instead of a number of calls.
# The VM's time limit grows with CALLS (NEURON_VM_TIMEOUT overrides it).
# Logs: build/logs/<time>-fuzz/ (serial.log, verdict.txt, reach.txt).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop.sh"

calls=${1:-1000000}
[[ $calls =~ ^[0-9]+$ ]] || die "usage: $0 [CALLS]"
loop_prereqs
RUN=$(new_run_dir fuzz)
debug_env "$RUN/debug-kernel.log" || die "cannot build the debug kernel: $RUN/debug-kernel.log"
b="$RUN/module"
log "building neuron.ko with KCOV and gcov for $KRELEASE"
module_build "$KDIR" "$b" "$RUN/build.log" NEURON_GCOV=1 NEURON_KCOV=1 ||
	{ bad_lines "$RUN/build.log" | tail -n 20; die "module build failed: $RUN/build.log"; }
log "building neuron_fuzz (clang, libFuzzer)"
make -C "$SRC/tools/fuzz" O="$RUN/fuzz" >"$RUN/fuzz-build.log" 2>&1 ||
	{ tail -n 20 "$RUN/fuzz-build.log"; die "neuron_fuzz build failed"; }
if [ -n "${NEURON_FUZZ_RUNS:-}" ]; then
	echo "RUNS=$NEURON_FUZZ_RUNS" >"$RUN/fuzz/neuron_fuzz.conf"
	limit=$((600 + NEURON_FUZZ_RUNS))
else
	echo "CALLS=$calls" >"$RUN/fuzz/neuron_fuzz.conf"
	limit=$((600 + calls / 20))
fi
log "booting the debug kernel: neuron_fuzz ($(cat "$RUN/fuzz/neuron_fuzz.conf")), at most $limit s"
rc=0
NEURON_VM_MEM=1G NEURON_VM_PROG_TIMEOUT=$limit NEURON_VM_TIMEOUT=${NEURON_VM_TIMEOUT:-$((limit + 900))} \
	vm_test "$IMAGE" "$RUN/vm" -k "$b/neuron.ko" -d "$b/neuron_kunit.ko" -l "$RUN/fuzz/root" \
	-x "$RUN/fuzz/neuron_fuzz" -x "$RUN/fuzz/neuron_fuzz_corpus.tar" \
	-x "$RUN/fuzz/neuron_fuzz.conf" "$RUN/fuzz/neuron_fuzz_vm" || rc=1
program_output "$RUN/vm/serial.log" neuron_fuzz_vm
read -r p f s _ <<<"$COUNTS"
echo "VM: $p passed, $f failed, $s skipped"
[ ! -s "$RUN/vm/verdict.txt" ] || sed 's/^/verdict: /' "$RUN/vm/verdict.txt" | head -n 20
if gcov_unpack "$RUN/vm/serial.log" "$b" 2>"$RUN/reach.txt"; then
	"$S/fuzz-reach.sh" "$b" >>"$RUN/reach.txt" 2>&1 || rc=1
else
	rc=1
fi
cat "$RUN/reach.txt"
echo "logs: ${RUN#"$NEURON_TOP"/}"
exit $rc
