#!/bin/bash
# walk_cost.sh PERFSINK [SECONDS]: instructions the drainer's record walk
# costs per sample, counted by callgrind (no hardware PMU needed, and not
# thrown off by a loaded machine as CPU time is): one getppid storm
# (psb_workload syscall, SECONDS, default 2) recorded -a under valgrind.
# Prints the samples captured and the Ir of scan_piece itself (the walk,
# its inlined jobs), of dso_set_sample (the call every sample makes) and of
# dso_hits_find (the lookup it makes), each per sample.  Run it on two builds to compare a change to the walk
# (a slower recorder under valgrind loses more samples: compare per sample).
# Needs root and valgrind.
set -u
P=$1 SEC=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/walk_cost.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$HERE/psb_workload" run syscall "$SEC" "$W" &
wl=$!
until [ -s "$W/pids" ]; do sleep 0.05; done
valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$P" record -a \
	-e syscalls:sys_enter_getppid -o "$W/rec.data" -- "$HERE/psb_workload" gate "$W" \
	>"$W/log" 2>&1
wait $wl
samples=$(grep -oE '\(([0-9]+) samples' "$W/log" | grep -oE '[0-9]+' | head -1)
ir() { callgrind_annotate "$W/cg.out" 2>/dev/null | awk -v f="$1" \
	'index($0, f) { gsub(",", "", $1); print $1; exit }'; }
walk=$(ir "drain.c:scan_piece ") hit=$(ir "dso_set.c:dso_set_sample ") find=$(ir "dso_hits.c:dso_hits_find ")
awk -v s="${samples:-0}" -v w="${walk:-0}" -v h="${hit:-0}" -v f="${find:-0}" 'BEGIN {
	if (!s) { print "no samples captured"; exit 1 }
	printf "samples %d  walk Ir/sample %.1f  dso_set_sample Ir/sample %.1f  dso_hits_find Ir/sample %.1f\n",
		s, w / s, h / s, f / s }'
