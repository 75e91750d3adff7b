#!/bin/sh
# perfsink pprof on DWARF call graphs (--call-graph dwarf): the user stacks
# are unwound with libdwfl from the recorded registers and stack copy.  go
# tool pprof's top 10 are perf report's (within 1 point) and main is under
# the hot functions for >= 99 % of the workload's samples; source lines
# come from DWARF.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_lib.sh"
need_root
need_go
plan 5
cd "$T"

"$PERFSINK" record -q -F 999 --call-graph dwarf -o dw.data -- "$WORKLOAD" cpu 1500 >/dev/null 2>rec.err
check "perfsink pprof converts a DWARF recording" "$PERFSINK" pprof -o dw.pb.gz dw.data 2>conv.err ||
	show conv.err rec.err
diag "$(cat conv.err)"
check "go tool pprof -top and perf report agree on the top 10 (within 1 point)" same_top dw.data dw.pb.gz
s=$(main_share dw.pb.gz workload)
diag "workload samples in hot functions with main under them: $s % of $(cat dw.pb.gz.n)"
check "main is under the hot functions for >= 99 % of them" [ "$s" -ge 99 ]
check "the profile holds every sample perf counts" [ "$(go_samples dw.pb.gz)" = "$(perf_samples dw.data)" ]
# A line of the workload's source for its hot function (Line.line from DWARF).
check "Lines from DWARF: hot_alpha has workload.c lines" \
	sh -c "go tool pprof -lines -top dw.pb.gz 2>/dev/null | grep -q 'hot_alpha.* .*workload.c:[0-9]'"
done_testing
