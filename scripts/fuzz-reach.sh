#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-reach.sh BUILDDIR: which entry points of the driver a fuzzing run
# reached (docs/testing.md, "Fuzzing"), from the gcov data of that run put
# beside the module build BUILDDIR (scripts/fuzz.sh does this: neuron.ko
# built with NEURON_GCOV=1 NEURON_KCOV=1, the .gcda files of the VM
# unpacked by gcov_unpack). The entry points are read from the sources of
# BUILDDIR: every ioctl handler of the dispatcher's table (NEURON_IOCTL_DEF
# in driver/neuron_cdev.c), every generic netlink handler (.doit, .dumpit,
# .start, .done) and the file and VMA operations (.open, .release, .mmap,
# .fault, ...). One line each: kind, function, calls, and lines of the
# function executed (its error paths are the lines not executed), then a
# line "reached N of M"; the exit status is 1 if an ioctl or netlink
# handler was not reached.

. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] && [ -d "$1/driver" ] || die "usage: $0 BUILDDIR (a module build with gcov data)"
need_pkgs gcc python3
b=$(cd "$1" && pwd)
[ -n "$(find "$b/driver" -name '*.gcda' | head -n 1)" ] || die "$b: no .gcda files"

# The entry points: "kind function" lines.
entries() {
	sed -n 's/^[[:space:]]*NEURON_IOCTL_DEF(\([A-Z_]*\), *\([a-z0-9_]*\).*/ioctl:\1 \2/p' \
		"$b/driver/neuron_cdev.c"
	grep -hoE '\.(doit|dumpit|start|done)[[:space:]]*=[[:space:]]*[a-z0-9_]+' \
		"$b"/driver/neuron_netlink.c | sed -E 's/^\.([a-z]+)[[:space:]]*=[[:space:]]*/netlink:\1 /'
	grep -hoE '\.(open|release|mmap|unlocked_ioctl|fault|close|poll|read|llseek)[[:space:]]*=[[:space:]]*neuron_[a-z0-9_]+' \
		"$b"/driver/neuron_cdev.c "$b"/driver/neuron_mmap.c |
		sed -E 's/^\.([a-z_]+)[[:space:]]*=[[:space:]]*/fops:\1 /'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && for f in $(cd "$b" && find driver -name '*.c' ! -path 'driver/tests/*'); do
	gcov --json-format -o "$b/$(dirname "$f")" "$b/$f" >/dev/null 2>&1
done)
entries | sort -u -k2,2 | sort >"$tmp/entries"
python3 - "$tmp" <<'EOF'
import glob, gzip, json, sys
tmp = sys.argv[1]
funcs = {}
for p in glob.glob(tmp + '/*.gcov.json.gz'):
    with gzip.open(p, 'rt') as f:
        d = json.load(f)
    for fl in d['files']:
        lines = {l['line_number']: l['count'] for l in fl['lines']}
        for fn in fl['functions']:
            ln = [c for n, c in lines.items() if fn['start_line'] <= n <= fn['end_line']]
            funcs[fn['name']] = (fn['execution_count'], sum(1 for c in ln if c), len(ln))
reached = total = missing = 0
for line in open(tmp + '/entries'):
    kind, name = line.split()
    calls, hit, n = funcs.get(name, (0, 0, 0))
    total += 1
    reached += calls > 0
    if calls == 0 and kind.startswith(('ioctl', 'netlink')):
        missing += 1
    print(f"{kind:24} {name:34} {calls:9} calls  {hit:3}/{n:<3} lines"
          + ("" if calls else "  NOT REACHED"))
print(f"reached {reached} of {total} entry points")
sys.exit(1 if missing else 0)
EOF
