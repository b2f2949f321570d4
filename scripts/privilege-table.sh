#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# privilege-table.sh [TOP]: docs/privilege-model.md and the tests agree.
#
#   1. every test the document names exists: a kselftest "fixture.test"
#      (TEST_F / TEST_F_TIMEOUT in selftests/neuron/*.c; a trailing "*"
#      matches a prefix, and must match at least one), a "KUnit: case"
#      (KUNIT_CASE in driver/tests/*.c), a scripts/tests/NAME;
#   2. every kselftest that runs a part as another uid or without
#      capabilities (neuron_drop_privileges*(), the helpers become(),
#      run_child() and nc_get_as_nobody(), setresuid(), TOOL_NOBODY) is
#      named in the document:
#      a test from the wrong side of a rule has its row; so is every test
#      of the unprivileged suite, selftests/neuron/neuron_unpriv.c;
#   3. every row of a table (a line "| ... |" that is not a header or a
#      separator) names its test: a test of 1., a rule whose section names
#      them ("R3"), or says "**no test**" (then listed under Gaps) or "by
#      construction".
#
# Prints one line per problem and "privilege-table: N tests named, M
# unprivileged, K problems"; exits 1 on any problem. Needs only bash,
# grep, sed and awk (no VM).
# The names are words without blanks ("query.*" among them): split on
# purpose, never globbed (set -f below).
# shellcheck disable=SC2013,SC2086
set -euo pipefail
TOP=${1:-$(cd "$(dirname "$0")/.." && pwd)}
DOC=$TOP/docs/privilege-model.md
ST=$TOP/selftests/neuron
UNPRIV=$ST/neuron_unpriv.c
sources=("$ST"/*.c)
kunit_sources=("$TOP"/driver/tests/*.c)
set -f
problems=0

# "fixture.test" of every kselftest, one a line.
tests=$(sed -n 's/^TEST_F\(_TIMEOUT\)\?(\([a-z0-9_]*\), *\([a-z0-9_]*\).*/\2.\3/p' "${sources[@]}" | sort -u)
fixtures=$(printf '%s\n' "$tests" | cut -d. -f1 | sort -u | paste -sd'|')
kunit=$(sed -n 's/.*KUNIT_CASE[A-Z_]*(\([a-z0-9_]*\).*/\1/p' "${kunit_sources[@]}" | sort -u)

# 1. What the document names.
named=$(grep -oE "(^|[^a-z0-9_.])($fixtures)\.[a-z0-9_*]+" "$DOC" |
	sed -E 's/^[^a-z]//' | sort -u)
n=0
for t in $named; do
	n=$((n + 1))
	case $t in
	*\*) pat="^${t%\*}" ;;
	*) pat="^${t}\$" ;;
	esac
	if ! grep -qE "$pat" <<<"$tests"; then
		echo "named but no such test: $t"
		problems=$((problems + 1))
	fi
done
for k in $(grep -oE 'KUnit: [a-z0-9_*]+' "$DOC" | sed 's/KUnit: //' | sort -u); do
	n=$((n + 1))
	case $k in
	*\*) pat="^${k%\*}" ;;
	*) pat="^${k}\$" ;;
	esac
	if ! grep -qE "$pat" <<<"$kunit"; then
		echo "named but no such KUnit case: $k"
		problems=$((problems + 1))
	fi
done
for s in $(grep -oE 'scripts/tests/[a-zA-Z0-9_.-]+' "$DOC" | sort -u); do
	n=$((n + 1))
	if [ ! -e "$TOP/$s" ]; then
		echo "named but no such script: $s"
		problems=$((problems + 1))
	fi
done

# 2. The tests that drop privileges, by the body between two TEST lines.
unpriv=$(awk '
	/^TEST_F(_TIMEOUT)?\(/ {
		if (name != "" && hit) print name
		s = $0
		sub(/^TEST_F(_TIMEOUT)?\(/, "", s)
		split(s, p, /, */)
		name = p[1] "." p[2]; sub(/\).*/, "", name); hit = 0
		next
	}
	/^(TEST\(|TEST_HARNESS_MAIN|FIXTURE)/ { if (name != "" && hit) print name; name = ""; hit = 0 }
	name != "" && /neuron_drop_privileges|[^a-z_]become\(|[^a-z_]run_child\(|[^a-z_]nc_get_as_nobody\(|setresuid|TOOL_NOBODY/ { hit = 1 }
	END { if (name != "" && hit) print name }
' "${sources[@]}" | sort -u)
m=0
for t in $unpriv; do
	m=$((m + 1))
	if ! grep -qxF "$t" <<<"$named"; then
		echo "unprivileged test without a row: $t"
		problems=$((problems + 1))
	fi
done

# The unprivileged suite: each of its tests has its row.
u=0
if [ ! -f "$UNPRIV" ]; then
	echo "no unprivileged suite: $UNPRIV"
	problems=$((problems + 1))
else
	for t in $(sed -n 's/^TEST_F\(_TIMEOUT\)\?(\([a-z0-9_]*\), *\([a-z0-9_]*\).*/\2.\3/p' "$UNPRIV" | sort -u); do
		u=$((u + 1))
		if ! grep -qxF "$t" <<<"$named"; then
			echo "test of the unprivileged suite without a row: $t"
			problems=$((problems + 1))
		fi
	done
	[ "$u" -gt 0 ] || { echo "no test in $UNPRIV"; problems=$((problems + 1)); }
fi

# 3. Each row of a table names its test. A header is the row above a
# separator ("|---|...").
rows=0
while IFS=: read -r line row; do
	rows=$((rows + 1))
	if ! grep -qE "(^|[^a-z0-9_.])($fixtures)\.[a-z0-9_*]+|KUnit: |scripts/tests/|(^|[^A-Za-z0-9])R[0-9]+([^0-9]|\$)|\*\*no test\*\*|by construction" <<<"$row"; then
		echo "row without a test (line $line): ${row:0:100}"
		problems=$((problems + 1))
	fi
done < <(awk '
	{ line[NR] = $0 }
	END {
		sep = "^\\|[-: |]+\\|$"
		for (i = 1; i <= NR; i++)
			if (line[i] ~ /^\|/ && line[i] !~ sep && line[i + 1] !~ sep)
				print i ":" line[i]
	}
' "$DOC")

[ -z "${VERBOSE:-}" ] || printf "unprivileged: %s\n" $unpriv
echo "privilege-table: $n tests named, $m unprivileged, $u in the unprivileged suite, $rows rows, $problems problems"
[ "$problems" -eq 0 ]
