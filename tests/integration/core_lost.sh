#!/bin/sh
# Nothing lost silently: with rings too small for the rate, the end summary
# and perf report agree on the samples the kernel dropped.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 4
cd "$T"
rec=
"$WORKLOAD" cpu 60000 & busy=$!
cleanup_hook() { kill -CONT "$rec" 2>/dev/null; kill "$busy" "$rec" 2>/dev/null; }
# Stopping the recorder for a while makes the loss certain on any machine.
# The busy workload runs 0.3 s of CPU while the recorder is stopped: at
# 50 kHz that is far more samples than a 4 KiB ring holds.
# -p, not -a: with -a a second event (perf's dummy:HG tracking event)
# shares the rings, the kernel may charge a LOST record to it, and perf
# report prints "Total Lost Samples" only under events with samples.
"$PERFSINK" record -p $busy -F 50000 -g -m 4K --duration 30 -o lost.data >/dev/null 2>err & rec=$!
wait_recording lost.data
kill -STOP $rec
t0=$(cpu_ticks $busy)
ran_while_stopped() { [ "$(cpu_ticks $busy)" -ge $((t0 + 30)) ]; }
wait_for 60 ran_while_stopped
size0=$(data_size lost.data)
kill -CONT $rec
# Passes after the loss put the kernel's LOST records in the file.
grew() { [ "$(data_size lost.data)" -gt $((size0 + 262144)) ]; }
wait_for 60 grew
kill -INT $rec
wait $rec
check "records with loss, exit 0" [ $? -eq 0 ] || show err
said=$(sed -n 's/.*LOST \([0-9]*\) samples.*/\1/p' err)
check "the summary reports the loss ($said), per ring" grep -q 'by ring, CPU [0-9]*: [0-9]' err || show err
"$PERF" report -i lost.data --stdio >report 2>report.err
got=$(sed -n 's/^# Total Lost Samples: //p' report)
check "perf report shows the same number ($got)" [ -n "$said" -a "$said" = "$got" ]
check "and LOST records in the data" grep -q 'lost [0-9]* chunks' report.err || show report.err
done_testing
