#!/bin/sh
# Fan-out: two aio_file sinks in one run write byte-identical files, one
# with O_DIRECT (direct = true) and one buffered (the default).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 9
cd "$T"
cat >two.ini <<INI
[record]
freq = 999

[sink.first]
plugin = aio_file
path = $T/one.data
direct = true

[sink.second]
plugin = aio_file
path = $T/two.data
INI
"$PERFSINK" record -v --config two.ini -g -- "$WORKLOAD" cpu 500 >/dev/null 2>err
check "fan-out run exits 0" [ $? -eq 0 ] || show err
if dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null; then
	check "the first sink writes with O_DIRECT" grep -q "one.data': O_DIRECT writes" err || show err
else
	skip "$T has no O_DIRECT"
fi
check "the second one buffered (the default)" grep -q "two.data': buffered writes" err || show err
check "both files written" [ -s one.data -a -s two.data ]
check "files are byte-identical" cmp one.data two.data
check "perf report reads them" perf_clean one.data

# Every buffer's record count (sink ABI 1.1) is what a walk of it finds:
# ring buffers (with FINISHED_ROUND), synthesized records, LOST records
# from rings too small for the rate, LOST_SAMPLES at the end.
cat >count.ini <<INI
[sink.file]
plugin = aio_file
path = $T/c.data
direct = true

[sink.count]
plugin = $TESTS_BUILDDIR/integration/.libs/plugin_count.so
INI
# Stopping the recorder while a busy task runs 0.3 s of CPU makes the loss
# certain on any machine (a fast idle one drains an 8 KiB ring in time).
"$WORKLOAD" cpu 60000 & busy=$!
"$WORKLOAD" getppid 100000000 & calls=$!
cleanup_hook() { kill -CONT "$rec" 2>/dev/null; kill "$busy" "$calls" "$rec" 2>/dev/null; }
"$PERFSINK" record --config count.ini -a -m 8K -e syscalls:sys_enter_getppid -e cpu-clock -F 20000 \
	--duration 60 >/dev/null 2>cerr & rec=$!
wait_recording c.data
kill -STOP $rec
t0=$(cpu_ticks $busy)
ran_while_stopped() { [ "$(cpu_ticks $busy)" -ge $((t0 + 30)) ]; }
wait_for 60 ran_while_stopped
size0=$(data_size c.data)
kill -CONT $rec
grew() { [ "$(data_size c.data)" -gt $((size0 + 262144)) ]; }
wait_for 60 grew
kill -INT $rec
wait $rec
check "the host's record counts match every buffer" [ $? -eq 0 ] || show cerr
kill "$busy" "$calls" 2>/dev/null
check "with loss in the run (LOST records were counted too)" grep -q "LOST" cerr || show cerr
"$PERF" script -i c.data >c.script 2>c.err
perf_stderr_rest c.err
grep -v -e '^Warning:$' -e 'lost [0-9]* chunks' -e 'samples and lost' -e 'Check IO/CPU overload' -e '^$' c.err.rest >c.other
check "perf reads that file of small buffers (only the loss warning)" [ ! -s c.other -a "$(wc -l <c.script)" -gt 1000 ] ||
	show c.err
done_testing
