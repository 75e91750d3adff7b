#!/bin/sh
# Fan-out: two aio_file sinks in one run write byte-identical files.
. "$TESTS_SRCDIR/lib.sh"
need_root
plan 4
cd "$T"
cat >two.ini <<INI
[record]
freq = 999

[sink.first]
plugin = aio_file
path = $T/one.data

[sink.second]
plugin = aio_file
path = $T/two.data
INI
"$PERFSINK" record --config two.ini -g -- "$WORKLOAD" cpu 500 >/dev/null 2>err
check "fan-out run exits 0" [ $? -eq 0 ] || show err
check "both files written" [ -s one.data -a -s two.data ]
check "files are byte-identical" cmp one.data two.data
check "perf report reads them" perf_clean one.data
done_testing
