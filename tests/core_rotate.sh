#!/bin/sh
# Rotation: by size, max_files, SIGUSR2 and time; every segment a complete
# perf.data, and the segments together hold exactly the samples of an
# unrotated copy recorded in the same run (fan-out).  FILE_SINK names the
# file sink (aio_file unless a wrapper such as uring_rotate.sh sets it).
. "$TESTS_SRCDIR/lib.sh"
FILE_SINK=${FILE_SINK:-aio_file}
need_root
plan 14
cd "$T"
cat >rot.ini <<INI
[record]
freq = 999
call-graph = fp
switch-output = 64K

[sink.seg]
plugin = $FILE_SINK
path = $T/seg.data

[sink.whole]
plugin = $FILE_SINK
path = $T/whole.data
rotate = false
direct = true
INI
"$PERFSINK" record -v --config rot.ini -- "$WORKLOAD" cpu 2500 >/dev/null 2>err
check "size rotation run exits 0" [ $? -eq 0 ] || show err
n=$(ls seg.data.* 2>/dev/null | wc -l)
check "several segments ($n)" [ "$n" -ge 3 ]
check "names carry a timestamp and a sequence number" sh -c "ls seg.data.* | grep -qE 'seg\.data\.[0-9]{14}\.000000$'"
bad=0; total=0
for f in seg.data.*; do
	perf_clean "$f" || bad=$((bad + 1))
	grep -q hot_alpha "$f.report" || bad=$((bad + 1))
	total=$((total + $(perf_samples "$f")))
done
check "each segment readable on its own and resolves symbols" [ "$bad" -eq 0 ]

# The same run's unrotated copy (rotate = false) holds exactly as many.
want=$(perf_samples whole.data)
check "segments hold every sample once ($total, unrotated copy $want)" [ "$total" -eq "$want" -a "$want" -gt 0 ]
# Its buffers are placed for the segments' offsets, not for its own: past
# the first cut it goes on with buffered writes, and stays whole.  Only a
# buffer with a whole 4 KiB block in it can be misplaced: when every buffer
# after the first cut is smaller (a loaded machine drains often, in small
# buffers) the copy rightly keeps O_DIRECT and there is nothing to check
# (test_aio_dio covers the split itself).
if ! grep -q "whole.data': O_DIRECT writes" err; then
	skip "no O_DIRECT here"
elif grep -q "whole.data': buffered writes from offset" err; then
	ok "the unrotated copy turns to buffered writes"
else
	skip "no buffer after the first cut held a whole 4 KiB block"
fi
check "the unrotated copy reads clean" perf_clean whole.data || show whole.data.report.err

rm -f seg.data.* whole.data
"$PERFSINK" record --config rot.ini --switch-max-files 2 -- "$WORKLOAD" cpu 2500 >/dev/null 2>err
n=$(ls seg.data.* | wc -l)
check "--switch-max-files 2 keeps 2 ($n)" [ "$n" -eq 2 ]
last=$(ls seg.data.* | tail -n 1)
check "the newest one is kept" sh -c "echo '$last' | grep -qv '\.000000$'"

rm -f seg.data.*
# Each SIGUSR2 is sent once the output before it holds records (a signal
# sent earlier would merge with the previous one); SIGINT ends the run.
"$PERFSINK" record --sink $FILE_SINK -F 999 --switch-output -o sig.data -- "$WORKLOAD" cpu 60000 >/dev/null 2>err &
pid=$!
wait_recording 'sig.data.*'
kill -USR2 $pid
wait_for 60 outputs_with_data 'sig.data.*' 2
kill -USR2 $pid
wait_for 60 outputs_with_data 'sig.data.*' 3
kill -INT $pid
wait $pid
n=$(ls sig.data.* | wc -l)
check "SIGUSR2 rotation: 3 outputs ($n)" [ "$n" -eq 3 ] || show err
bad=0
for f in sig.data.*; do perf_clean "$f" || bad=1; done
check "SIGUSR2 segments readable" [ "$bad" -eq 0 ]

"$PERFSINK" record --sink $FILE_SINK -F 999 --switch-output=1s -o time.data -- "$WORKLOAD" cpu 2500 >/dev/null 2>err
n=$(ls time.data.* | wc -l)
check "time rotation: several outputs ($n)" [ "$n" -ge 2 ] || show err
bad=0
for f in time.data.*; do perf_clean "$f" || bad=1; done
check "time segments readable" [ "$bad" -eq 0 ]
check "--switch-max-files without rotation is refused" sh -c "! '$PERFSINK' record --switch-max-files 2 -- '$WORKLOAD' exit 0 2>/dev/null"
done_testing
