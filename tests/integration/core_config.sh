#!/bin/sh
# The shipped example config is valid and records, and `perfsink sinks`
# lists the sinks with their keys.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 8
cd "$T"
"$PERFSINK" record --config "$TOP_SRCDIR/etc/perfsink.ini" -- "$WORKLOAD" cpu 200 >/dev/null 2>err
check "etc/perfsink.ini records" [ $? -eq 0 ] || show err
check "into the path it names" perf_clean perf.data
"$PERFSINK" sinks >sinks 2>&1
check "perfsink sinks lists aio_file" grep -q '^  aio_file - ' sinks || show sinks
check "with its keys" grep -qE '^ +path +path +perf.data' sinks || show sinks
check "perfsink --help" sh -c "'$PERFSINK' --help | grep -q 'record '"
check "perfsink record --help" sh -c "'$PERFSINK' record --help | grep -q -- '--switch-output'"
check "perfsink --version" sh -c "'$PERFSINK' --version | grep -qE '^perfsink [0-9]+\\.[0-9]+\\.[0-9]+ \\(sink ABI 1\\.[0-9]+\\)'"
check "no command is an error with usage" sh -c "! '$PERFSINK' >/dev/null 2>&1"
done_testing
