#!/bin/sh
# What sampling costs every task on a sampled CPU (docs/BENCHMARKS.md):
#
#   bench/sample_tax.sh [SECONDS] [RATES...]
#
# Copies memory on CPU 1 for SECONDS (default 1) with no recording, then
# under `perf record -a -e cpu-clock -F RATE` for each RATE (default
# 1000 10000 50000 100000), and prints the copy rate each time with the
# samples perf got.  A recorder on a sampled CPU pays the same interrupts:
# where the copy rate falls to a few per cent, so does every recorder's
# speed, whatever it does per byte.  Needs root (or perf_event_paranoid
# low enough for -a) and 2 CPUs or more.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
probe=${PSB_PROBE:-$here/psb_probe}
secs=${1:-1}
[ $# -gt 0 ] && shift
rates=${*:-1000 10000 50000 100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-10s %-52s %s\n' rate "copy on CPU 1" "samples perf got"
printf '%-10s %-52s %s\n' none "$("$probe" memcpy 1 "$secs")" -
for f in $rates; do
	out=$(perf record -q -a -e cpu-clock -F "$f" -o "$tmp/p.data" -- "$probe" memcpy 1 "$secs" 2>/dev/null | grep GB/s)
	n=$(perf report -i "$tmp/p.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	printf '%-10s %-52s %s\n' "$f" "$out" "${n:-?}"
done
