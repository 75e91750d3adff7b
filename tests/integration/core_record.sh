#!/bin/sh
# Record the test workload with -g and read it back with the real perf.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 13
cd "$T"

"$PERFSINK" record -e cpu-clock -F 999 -g -- "$WORKLOAD" cpu 1500 >out 2>err
check "record exits 0" [ $? -eq 0 ]
check "writes ./perf.data by default" [ -s perf.data ]
check "output is private (0600)" [ "$(stat -c %a perf.data)" = 600 ]
check "perf report reads it with nothing on stderr" perf_clean perf.data || show perf.data.report.err
for f in hot_alpha hot_beta cpu_mix; do
	check "perf report names $f" grep -q "$f" perf.data.report
done
"$PERF" script -i perf.data >script 2>script.err
check "perf script shows call chains through main" grep -q 'main' script
check "perf script with nothing on stderr" [ ! -s script.err ]
# Build-ids from the mapped files, without a pass over the recording.
id=$(readelf -n "$WORKLOAD" | sed -n 's/.*Build ID: *//p')
"$PERF" buildid-list -i perf.data >ids 2>ids.err
check "BUILD_ID names the workload with its build-id" grep -q "^$id .*workload\$" ids || show ids ids.err
check "and the kernel" grep -q '\[kernel.kallsyms\]$' ids || show ids
samples=$(perf_samples perf.data)
# 1.5 s of CPU at 999 Hz: about 1500 samples (wide margin; -F is adaptive).
check "sample count near 1500 ($samples)" [ "$samples" -gt 1000 -a "$samples" -lt 2000 ]

"$PERFSINK" record -q -o exit.data -- "$WORKLOAD" exit 3 2>/dev/null
check "returns the workload's exit status" [ $? -eq 3 ]
done_testing
