#!/bin/bash
# storm_cost.sh BUILD CONFIG [SECONDS]: one raw_syscalls storm (psb_workload
# syscall, SECONDS, default 3) recorded by BUILD's perfsink with CONFIG;
# prints the recorder's CPU, the workload's, and the rest of the machine's
# busy time over the run (/proc/stat user+nice+system+irq+softirq, minus
# those two): work a sink moves into kernel threads (kworkers converting
# preallocated blocks, for one) shows there and not in the recorder's
# rusage.  Alternate two builds to compare them (docs/BENCHMARKS.md,
# "Growing the file ahead").  Needs root.
set -u
B=$1 CFG=$2 SEC=${3:-3}
W=$(mktemp -d /tmp/storm_cost.XXXXXX)
trap 'rm -rf "$W"' EXIT
busy() { awk '/^cpu /{ printf "%.2f\n", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
"$B/bench/psb_workload" run syscall "$SEC" "$W" &
wl=$!
until [ -s "$W/pids" ]; do sleep 0.05; done
b0=$(busy)
/usr/bin/time -f "%U %S" -o "$W/time" "$B/src/perfsink" record --config "$CFG" -a -e 'raw_syscalls:*' \
	-- "$B/bench/psb_workload" gate "$W" >/dev/null 2>"$W/err"
wait $wl
sleep 1 # the kworkers' share of the last writes
b1=$(busy)
rec=$(awk '{ print $1 + $2 }' "$W/time")
work=$(awk -F= '/^cpu_ns/ { print $2 / 1e9 }' "$W/result")
rest=$(awk -v a="$b1" -v b="$b0" -v r="$rec" -v w="$work" 'BEGIN { printf "%.2f", a - b - r - w }')
echo "$CFG recorder=${rec}s workload=${work}s rest=${rest}s" \
	"$(grep -oE 'Captured [0-9.]+ MB|lost [0-9]+ samples' "$W/err" | tr '\n' ' ')"
