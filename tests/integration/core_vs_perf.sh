#!/bin/sh
# The same workload recorded by perf record and by perfsink: sample counts
# within 10 % and the workload's functions in the same order.  They take
# 50/25/12.5/6/3 % of its CPU, so the order is not a coin toss; kernel
# symbols (interrupts on a loaded machine) may come between them.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 3
cd "$T"

"$PERF" record -q -e cpu-clock -F 999 -g -o perf.data -- "$WORKLOAD" cpu 2000 >/dev/null 2>perf.err
"$PERFSINK" record -q -e cpu-clock -F 999 -g -o sink.data -- "$WORKLOAD" cpu 2000 >/dev/null 2>sink.err
a=$(perf_samples perf.data)
b=$(perf_samples sink.data)
diag "perf record: $a samples, perfsink: $b samples"
check "both recorded samples" [ "$a" -gt 0 -a "$b" -gt 0 ]
check "sample counts within 10%" awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 10 <= a) }'
perf_top perf.data 20 | grep '^hot_' | head -n 4 >top.perf
perf_top sink.data 20 | grep '^hot_' | head -n 4 >top.sink
check "the workload's top 4 functions in the same order" \
	sh -c '[ "$(wc -l <top.perf)" -eq 4 ] && cmp -s top.perf top.sink' ||
	{ diag "perf:"; show top.perf; diag "perfsink:"; show top.sink; }
done_testing
