#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict.sh LOG: judge the serial log of a VM run (protocol: see
# scripts/initramfs.sh). Prints the counts "PASSED FAILED SKIPPED KUNIT" on
# stdout (KUNIT: how many of them are KUnit cases), one line per problem on
# stderr, and exits 1 if there is any problem:
#   - a `not ok` line, anywhere;
#   - a kernel splat (SPLAT below), anywhere;
#   - the module failed to load, or to unload (rmmod); the memory cgroup
#     set-up before it failed (scripts/initramfs.sh, MEMCG marker);
#   - a program exited non-zero (4 = every test skipped: a failure here, the
#     simulator is there; but on a PCI device (MODE pci marker) it is what a
#     program whose capability the device lacks does: its tests count as
#     skipped) or did not finish; no program ran at all;
#   - a taint flag other than O and E (out-of-tree, unsigned module), and
#     on the debug kernel N (KUnit tests were run);
#   - no end marker (crash, hang, timeout);
#   - on a PCI device: no device model status marker or a non-zero one
#     (scripts/vm-pci.sh: the model found an error, a leak or undefined
#     behaviour), or QEMU's vfio-user client reporting a reply that did not
#     come or a DMA map it could not make;
#   - on the debug kernel (MODE debug marker): a failed step (fault injection
#     set-up, KUnit module load or unload, kmemleak scan), no KUnit suite
#     (not asked on a PCI device: the suites need neuron_sim.ko), a suite
#     with no case, lock checking turned off (debug_locks=0).
# Counts: top-level TAP lines of the programs' output (`ok` = passed,
# `ok ... # SKIP` = skipped, `not ok` = failed); for a KUnit suite (program
# "kunit:<suite>"), its cases (the lines indented by four spaces).

set -euo pipefail

# Kernel splats: the one list of patterns (extended regular expression).
# KASAN, UBSAN, lockdep, debugobjects (ODEBUG), list debugging and kmemleak
# reports of the debug kernel included; lockdep's titles mostly start with
# WARNING: or BUG: already, they are listed to be explicit. Not a splat:
# "FAULT_INJECTION: forcing a failure." (fault injection at work, printed
# without a stack trace, see initramfs.sh).
SPLAT='BUG:|Oops|WARNING:|Call Trace|Kernel panic|kernel BUG at|UBSAN:|KASAN:|unreferenced object|general protection fault|detected stall|blocked for more than'
SPLAT+='|possible circular locking|possible recursive locking|inconsistent lock state|bad unlock balance|held lock freed|suspicious RCU usage|non-static key|sleeping function called from invalid context|ODEBUG:|list_(add|del) corruption'

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 LOG" >&2; exit 2; }

tr -d '\r' <"$1" | awk -v splat="$SPLAT" '
function problem(msg) { print "verdict: " msg > "/dev/stderr"; bad = 1 }
# A marker may follow firmware output that has no line end.
{ i = index($0, "### NEURON "); if (i > 1) $0 = substr($0, i) }
function status(s) { sub(/.*status=/, "", s); sub(/ .*/, "", s); return s + 0 }
function step(name) { if (status($0)) problem(name " failed: " $0) }
# The gcov archive: base64 lines (which could spell "Oops") are skipped.
/^### NEURON GCOV-BEGIN/ { gcov = 1; next }
/^### NEURON GCOV-END/ { gcov = 0 }
gcov && /^[A-Za-z0-9+\/=]+$/ { next }
/(^|\] )[ \t]*not ok/ { problem("test failed: " $0) }
# Where the first report happened, for a reader of the summary: its task,
# its RIP and the first frames of its trace (not problems themselves).
where > 0 && /(Comm: |RIP: |\]  [A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x)/ {
	print "verdict: where: " $0 > "/dev/stderr"; where--
}
$0 ~ splat { problem("kernel splat: " $0); if (!reported++) where = 10 }
/^### NEURON MEMCG status=/ { step("memory cgroup set-up") }
/^### NEURON LOAD status=/ { loaded = 1; step("module load") }
/^### NEURON BEGIN / { prog = $4; ran++; kunit = prog ~ /^kunit:/; cases = 0; next }
/^### NEURON END / {
	s = status($0)
	if (s == 4 && !pci) problem(prog ": exit status 4, every test skipped")
	else if (s == 4) { }
	else if (s) problem(prog ": exit status " s)
	if (kunit && !cases) problem(prog ": no test case ran")
	prog = ""; kunit = 0; next
}
/^### NEURON RMMOD status=/ { rmmod = 1; step("rmmod") }
/^### NEURON DEVMODEL status=/ { devmodel = 1; step("the device model") }
/^qemu-system-x86_64: .*(timed out waiting for reply|DMA mapping failed|hardware error)/ {
	problem("QEMU: " $0)
}
/^### NEURON MODE debug/ { debug = 1 }
/^### NEURON MODE pci/ { pci = 1 }
/^### NEURON SETUP status=/ { setup = 1; step("fault injection set-up") }
/^### NEURON KUNIT-LOAD status=/ { kload = 1; step("KUnit module load") }
/^### NEURON KUNIT-RMMOD status=/ { step("KUnit module unload") }
/^### NEURON KMEMLEAK-END/ { leakscan = 1; step("kmemleak scan") }
/^### NEURON LOCKDEP / { lockdep = $4 }
/^### NEURON DONE / {
	done = 1; t = $4; sub(/tainted=/, "", t); t += 0
	# Expected: O (4096, out-of-tree) and E (8192, unsigned), bits 12-13;
	# on the debug kernel also N (262144, bit 18: KUnit tests were run).
	ok = int(t / 4096) % 4 * 4096
	if (debug) ok += int(t / 262144) % 2 * 262144
	if (t != ok) problem("kernel " $4 " (expected: only O, E" (debug ? ", N" : "") ")")
}
function count(failed_case) {
	if (failed_case) failed++
	else if (/# [Ss][Kk][Ii][Pp]/) skipped++
	else passed++
	if (kunit) { cases++; kcases++ }
}
prog != "" && !kunit && /^(not )?ok [0-9]/ { count(/^not/) }
kunit && /^    (not )?ok [0-9]/ { count(/^    not/) }
END {
	if (prog != "") problem(prog ": did not finish")
	if (!loaded) problem("no module load marker")
	if (!ran) problem("no test program ran")
	if (!rmmod) problem("no rmmod marker")
	if (debug) {
		if (!setup) problem("no fault injection set-up marker")
		if (!kload && !pci) problem("no KUnit module load marker")
		else if (!kcases && !pci) problem("no KUnit suite ran")
		if (!leakscan) problem("no kmemleak scan marker")
		if (lockdep != "debug_locks=1")
			problem("lock checking was off at the end (" (lockdep ? lockdep : "no LOCKDEP marker") ")")
	}
	if (!done) problem("no end marker: the VM crashed, hung or timed out")
	if (pci && !devmodel) problem("no device model status marker")
	printf "%d %d %d %d\n", passed, failed, skipped, kcases
	exit bad
}'
