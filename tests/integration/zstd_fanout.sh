#!/bin/sh
# Fan-out: aio_file and zstd sinks (1 and 2 compression threads) in one run
# store the same events: perf script prints the same lines for all three,
# and the zstd files carry the COMPRESSED feature.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 9
cd "$T"
cat >fan.ini <<INI
[record]
freq = 4000

[sink.plain]
plugin = aio_file
path = $T/plain.data

[sink.z1]
plugin = zstd
path = $T/z1.data
threads = 1

[sink.z2]
plugin = zstd
path = $T/z2.data
threads = 2
min_batch = 16K
INI
# --aio=1: one pooled buffer per ring, so a sink that held a reference
# until its next call would stall the recording.
"$PERFSINK" record --config fan.ini --aio=1 -g -- "$WORKLOAD" cpu 1500 >/dev/null 2>err
check "fan-out run exits 0" [ $? -eq 0 ] || show err
for f in plain z1 z2; do
	"$PERF" script -i $f.data >$f.script 2>$f.script.err
done
check "perf script reads the zstd file without a message" [ ! -s z1.script.err ] || show z1.script.err
check "the recording has samples" [ "$(grep -c hot_ plain.script)" -gt 1000 ]
check "zstd (1 thread) gives perf script line for line" cmp plain.script z1.script ||
	diag "$(diff plain.script z1.script | head -20)"
check "zstd (2 threads) gives perf script line for line" cmp plain.script z2.script ||
	diag "$(diff plain.script z2.script | head -20)"
check "perf report reads it with nothing on stderr" perf_clean z2.data || show z2.data.report.err
"$PERF" report -i z1.data --header-only >hdr 2>&1
check "header shows the compression feature" grep -q '^# compressed : Zstd, level = 1, ratio = [1-9]' hdr || show hdr
check "the zstd file is at least 4 times smaller" \
	[ $(($(stat -c %s z1.data) * 4)) -lt "$(stat -c %s plain.data)" ]
check "the sink logs its ratio" grep -q "z1: .*z1.data.*ratio" err || show err
done_testing
