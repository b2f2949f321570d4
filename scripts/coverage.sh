#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage.sh [--run] (`make coverage`): line coverage of driver/ by the
# tests of the debug tier of `make check` (selftests, neuron_fault, KUnit),
# from the gcov data of the module (built with NEURON_GCOV=1).
# The data of the last debug-tier run is reused: check.sh builds the module
# in that run's log folder (build/logs/<run>/<debug release>/module/) and
# puts the .gcda files of the VM beside its .gcno files, so data and build
# always match. Without such a run, or with --run, the debug tier runs first
# (`scripts/check.sh debug`); if that run fails, the coverage of what ran is
# still printed and the exit status is 1. Prints one line per file of
# driver/ (KUnit suites left out): lines executed in percent and executable
# lines, then a TOTAL line. Then, if the same run had the pci tier, the
# same table for its debug-kernel boot on the device model (the register
# code: driver/ndhal/ndhal_udma.c, ndhal_v2.c, ndhal_v3.c, neuron_pci.c;
# build/logs/<run>/<debug release>-pci/module/).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop.sh"

run=''
case ${1:-} in
--run) run=1 ;;
'') ;;
*) die "usage: $0 [--run]" ;;
esac
need_pkgs gcc
mkdir -p "$BUILD/logs"
debug_env "$BUILD/logs/coverage-debug-kernel.log" ||
	die "cannot build the debug kernel: $BUILD/logs/coverage-debug-kernel.log"

# last_build: the module folder of the newest debug-tier run, if any.
last_build() {
	ls -1d "$BUILD"/logs/*-check/"$KRELEASE"/module 2>/dev/null | tail -n1
}
b=$(last_build) rc=0
if [ -n "$run" ] || [ -z "$b" ] || [ -z "$(find "$b/driver" -name '*.gcda')" ]; then
	log "no coverage data of the last debug run (or --run): running the debug tier"
	"$S/check.sh" debug >&2 || { rc=1; log "the debug tier failed; coverage of what ran:"; }
	b=$(last_build)
	[ -n "$b" ] || die "the debug tier built no module"
fi
log "coverage of driver/ (gcov data in ${b#"$NEURON_TOP"/})"
printf '%-28s %7s %5s\n' FILE LINES% LINES
coverage_table "$b"
p="${b%/module}-pci/module"
if [ -d "$p/driver" ] && [ -n "$(find "$p/driver" -name '*.gcda')" ]; then
	log "coverage of driver/ by the pci tier's debug-kernel run (${p#"$NEURON_TOP"/})"
	printf '%-28s %7s %5s\n' FILE LINES% LINES
	coverage_table "$p"
else
	log "no pci tier in that run: no coverage of the register code"
fi
exit $rc
