#!/bin/sh
# perfsink pprof on frame-pointer call chains (-g): go tool pprof reads the
# profile; its top 10 functions are perf report's, shares within 1 point;
# main is under the hot functions; every sample is there.  The same for perf
# record's own file, a zstd (-z) one, a pipe stream, and two inputs merged.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_lib.sh"
need_root
need_go
plan 11
cd "$T"

"$PERFSINK" record -q -F 999 -g -o fp.data -- "$WORKLOAD" cpu 1500 >/dev/null 2>rec.err
workload_checks "a -g" fp.data fp.pb.gz
check "Mappings carry the workload's build-id" \
	sh -c "go tool pprof -raw fp.pb.gz 2>/dev/null | grep -q \"workload $("$PERF" buildid-list -i fp.data 2>/dev/null | awk '/workload$/ { print $1; exit }')\""

"$PERF" record -q -F 999 -g -o perf.data -- "$WORKLOAD" cpu 1000 >/dev/null 2>perf.err
check "perf record's own file: same top 10" convert_top perf.data

"$PERFSINK" record -q -z -F 999 -g -o z.data -- "$WORKLOAD" cpu 1000 >/dev/null 2>z.err
"$PERF" report --header-only -i z.data 2>/dev/null | grep -q 'compressed' || diag "z.data has no COMPRESSED feature?"
check "-z (zstd COMPRESSED records): every sample, same top 10" convert_top z.data

"$PERFSINK" record -q -F 999 -g -o - -- "$WORKLOAD" cpu 500 2>pipe.err >pipe.data
check "a pipe stream on standard input" sh -c "'$PERFSINK' pprof -o pipe.pb.gz - <pipe.data 2>/dev/null"
check "... holds every sample" [ "$(go_samples pipe.pb.gz)" = "$(perf_samples pipe.data)" ]
# No build-ids in a pipe stream: [vdso] is named from perfsink's own, as perf report does.
check "... and has perf report's top 10" same_top pipe.data pipe.pb.gz

"$PERFSINK" pprof -o both.pb.gz fp.data pipe.data 2>/dev/null
check "two inputs merge into one profile (samples add up)" \
	[ "$(go_samples both.pb.gz)" = "$(($(perf_samples fp.data) + $(perf_samples pipe.data)))" ]
done_testing
