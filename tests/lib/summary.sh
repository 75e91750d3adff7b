#!/bin/sh
# Print the closing line CI reads ("N passed, N failed") from automake's
# summary lines, and the logs of failed tests.  Exits with STATUS (make's).
# Usage: summary.sh [STATUS [DIR [LOG]]]
#   DIR  where the tests ran (default: these tests' own folder, the in-tree
#        build's); its failed logs are shown when it is still there
#   LOG  the file holding the summary (default DIR/test-suite.log; the output
#        of make distcheck holds it too, after distcheck has removed DIR)
dir=${2:-$(dirname "$0")/..}
log=${3:-$dir/test-suite.log}
[ -f "$log" ] || { echo "0 passed, 1 failed"; exit 1; }
count() { sed -n "s/^# $1: *//p" "$log" | head -n 1; }
pass=$(count PASS); fail=$(count FAIL); err=$(count ERROR); xpass=$(count XPASS); skip=$(count SKIP)
bad=$(( ${fail:-0} + ${err:-0} + ${xpass:-0} ))
if [ "$bad" -gt 0 ] && cd "$dir" 2>/dev/null; then
	for f in $(grep -lE '^(FAIL|ERROR|XPASS)' ./*.log unit/*.log integration/*.log 2>/dev/null | grep -v test-suite.log); do
		echo "=== $f"; grep -vE '^(PASS:|ok) ' "$f" | head -n 60
	done
fi
echo "${pass:-0} passed, $bad failed, ${skip:-0} skipped"
exit "${1:-0}"
