#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict.sh LOG: judge the serial log of a VM run (protocol: see
# scripts/initramfs.sh). Prints the TAP counts "PASSED FAILED SKIPPED" on
# stdout, one line per problem on stderr, and exits 1 if there is any problem:
#   - a `not ok` line, anywhere;
#   - a kernel splat (SPLAT below), anywhere;
#   - the module failed to load, or to unload (rmmod);
#   - a program exited non-zero (4 = every test skipped: a failure here, the
#     simulator is there) or did not finish; no program ran at all;
#   - a taint flag other than O and E (out-of-tree, unsigned module);
#   - no end marker (crash, hang, timeout).
# TAP counts (top-level lines of the programs' output): `ok` = passed,
# `ok ... # SKIP` = skipped, `not ok` = failed.

set -euo pipefail

# Kernel splats: the one list of patterns (extended regular expression).
SPLAT='BUG:|Oops|WARNING:|Call Trace|Kernel panic|UBSAN:|KASAN:|unreferenced object|general protection fault|detected stall|blocked for more than'

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 LOG" >&2; exit 2; }

tr -d '\r' <"$1" | awk -v splat="$SPLAT" '
function problem(msg) { print "verdict: " msg > "/dev/stderr"; bad = 1 }
# A marker may follow firmware output that has no line end.
{ i = index($0, "### NEURON "); if (i > 1) $0 = substr($0, i) }
function status(s) { sub(/.*status=/, "", s); sub(/ .*/, "", s); return s + 0 }
/(^|\] )[ \t]*not ok/ { problem("test failed: " $0) }
$0 ~ splat { problem("kernel splat: " $0) }
/^### NEURON LOAD status=/ { loaded = 1; if (status($0)) problem("module load failed: " $0) }
/^### NEURON BEGIN / { prog = $4; ran++; next }
/^### NEURON END / {
	s = status($0)
	if (s == 4) problem(prog ": exit status 4, every test skipped")
	else if (s) problem(prog ": exit status " s)
	prog = ""; next
}
/^### NEURON RMMOD status=/ { rmmod = 1; if (status($0)) problem("rmmod failed: " $0) }
/^### NEURON DONE / {
	done = 1; t = $4; sub(/tainted=/, "", t); t += 0
	# Expected: O (4096, out-of-tree) and E (8192, unsigned), bits 12-13.
	if (t - int(t / 4096) % 4 * 4096) problem("kernel " $4 " (only O and E, 12288, are expected)")
}
prog != "" && /^not ok [0-9]/ { failed++ }
prog != "" && /^ok [0-9]/ { if (/# [Ss][Kk][Ii][Pp]/) skipped++; else passed++ }
END {
	if (prog != "") problem(prog ": did not finish")
	if (!loaded) problem("no module load marker")
	if (!ran) problem("no test program ran")
	if (!rmmod) problem("no rmmod marker")
	if (!done) problem("no end marker: the VM crashed, hung or timed out")
	printf "%d %d %d\n", passed, failed, skipped
	exit bad
}'
