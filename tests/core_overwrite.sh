#!/bin/sh
# Flight recorder: a workload longer than the ring can hold; SIGUSR2 dumps
# the newest ring data as a complete perf.data, and so does the end.
. "$TESTS_SRCDIR/lib.sh"
need_root
plan 7
cd "$T"
# A 16 KiB ring holds well under a second of -g samples at 999 Hz; the
# workload stays on CPU 0 so one ring holds all of its samples.
"$PERFSINK" record -F 999 -g --overwrite -m 16K -o fr.data -- taskset -c 0 "$WORKLOAD" cpu 3000 >/dev/null 2>err &
pid=$!
sleep 2
kill -USR2 $pid
wait $pid
check "exits 0" [ $? -eq 0 ] || show err
n=$(ls fr.data.* | wc -l)
check "one dump per trigger plus the final one ($n)" [ "$n" -eq 2 ]
first=$(ls fr.data.* | head -n 1)
check "the dump is readable" perf_clean "$first" || show "$first.report.err"
check "the dump resolves the workload's symbols" grep -q hot_alpha "$first.report"
size=$(stat -c %s "$first")
# Two rings of 16 KiB, plus header, features and the synthesized records.
check "its size is bounded by the rings ($size bytes)" [ "$size" -lt 200000 ]
# Newest data: CPU 0's samples span a fraction of the 2 s the workload had
# run there.  (CPU 1's ring keeps the few samples taskset took before it
# moved itself: nothing overwrote them.)
span=$("$PERF" script -i "$first" -F cpu,time 2>/dev/null | awk '$1 == "[000]" {print $2}' |
	tr -d ':' | sort -n | awk 'NR==1{a=$1} {b=$1} END {print b - a}')
check "it holds only the most recent samples (span ${span}s)" awk -v s="$span" 'BEGIN { exit !(s > 0 && s < 1.0) }'
last=$(ls fr.data.* | tail -n 1)
check "the final dump is readable and resolves symbols" sh -c "'$PERF' report -i '$last' --stdio 2>/dev/null | grep -q hot_alpha"
done_testing
