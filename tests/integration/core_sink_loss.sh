#!/bin/sh
# A sink that fails as on a full disk: the summary's headline counts what it
# did not write (samples written = what it kept, LOST = the rest) and its
# own line says how many records, samples and bytes it lost.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 6
cd "$T"
cat >lossy.ini <<EOF2
[sink.l]
plugin = $TESTS_BUILDDIR/integration/.libs/plugin_lossy.so
keep = 6
drop = 3
EOF2
"$PERFSINK" record --config lossy.ini -a -F 2000 --duration 20 -- "$WORKLOAD" cpu 3000 >/dev/null 2>err
rc=$?
check "a failed sink: exit 1 (got $rc)" [ $rc -eq 1 ] || show err
kept=$(sed -n 's/.*l: kept \([0-9]*\) samples.*/\1/p' err)
written=$(sed -n 's/.*Captured .* (\([0-9]*\) samples written of [0-9]* read,.*/\1/p' err)
read=$(sed -n 's/.*Captured .* samples written of \([0-9]*\) read,.*/\1/p' err)
notw=$(sed -n "s/.*LOST [0-9]* samples.*[:;] \([0-9]*\) not written by failed sink 'l'.*/\1/p" err)
diag "kept $kept, headline: $written written of $read read, $notw not written"
check "the headline's samples are what the sink kept" [ -n "$kept" ] && [ "$written" = "$kept" ] || show err
check "it lost samples (the test drops 3 buffers and what follows)" [ -n "$notw" ] && [ "$notw" -gt 0 ]
check "LOST counts the rest of what was read" [ -n "$read" ] && [ "$notw" = $((read - kept)) ]
check "the sink's line says what it lost" \
	grep -q "sink l (lossy): .*, LOST [1-9][0-9]* bytes ([1-9][0-9]* records), FAILED: lost [0-9]* records ($notw samples, [0-9]* bytes) in all" err ||
	show err
# Nothing failed: the headline says so.
printf '[sink.l]\nplugin = %s\nkeep = 1000000\n' "$TESTS_BUILDDIR/integration/.libs/plugin_lossy.so" >fine.ini
"$PERFSINK" record --config fine.ini -a -F 2000 -- "$WORKLOAD" cpu 300 >/dev/null 2>err.fine
check "a sink that did not fail: lost 0 samples" grep -q 'lost 0 samples' err.fine || show err.fine
done_testing
