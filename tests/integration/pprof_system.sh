#!/bin/sh
# perfsink pprof on a system-wide recording (-a -g): every process and the
# kernel (named from the kallsyms the recording shipped to ~/.debug); go tool
# pprof's top 10 are perf report's within 1 point; the cpu label is there
# and --no-labels leaves the labels out.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_lib.sh"
need_root
need_go
plan 5
cd "$T"

"$PERFSINK" record -q -F 999 -g -a -o sys.data -- "$WORKLOAD" cpu 1500 >/dev/null 2>rec.err
check "perfsink pprof converts a system-wide recording" "$PERFSINK" pprof -o sys.pb.gz sys.data 2>conv.err ||
	show conv.err rec.err
diag "$(cat conv.err)"
check "go tool pprof -top and perf report agree on the top 10 (within 1 point)" same_top sys.data sys.pb.gz
check "the profile holds every sample perf counts" [ "$(go_samples sys.pb.gz)" = "$(perf_samples sys.data)" ]
check "samples carry pid, tid, comm and cpu labels" \
	sh -c "go tool pprof -traces sys.pb.gz 2>/dev/null | grep -q '^ *cpu:' &&
	       go tool pprof -traces sys.pb.gz 2>/dev/null | grep -q '^ *comm:  workload'"
"$PERFSINK" pprof --no-labels -o nolab.pb.gz sys.data 2>/dev/null
check "--no-labels: none, and fewer bytes" \
	sh -c "! go tool pprof -traces nolab.pb.gz 2>/dev/null | grep -q '^ *comm:' &&
	       [ \$(stat -c %s nolab.pb.gz) -lt \$(stat -c %s sys.pb.gz) ]"
done_testing
