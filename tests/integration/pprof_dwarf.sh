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
workload_checks "a DWARF" dw.data dw.pb.gz
# A line of the workload's source for its hot function (Line.line from DWARF).
check "Lines from DWARF: hot_alpha has workload.c lines" \
	sh -c "go tool pprof -lines -top dw.pb.gz 2>/dev/null | grep -q 'hot_alpha.* .*workload.c:[0-9]'"
done_testing
