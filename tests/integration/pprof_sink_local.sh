#!/bin/bash
# The pprof sink with symbolize = local (issue 29 part 3), against nginx
# as a WebDAV collector, fanned out with aio_file (the oracle): with -g,
# go tool pprof -top on the merged windows lists perf report's top
# functions with the same shares; with --call-graph dwarf,8192 the sink
# unwinds the user stacks (libdwfl, the worker thread) and main is under
# the hot functions for >= 99 % of the workload's samples, named locally;
# with symbolize = none the windows hold the same address stacks as
# perfsink pprof makes of the file sink's recording (the same unwinder).
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
. "$TESTS_SRCDIR/integration/pprof_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
need_go
NGINX_PID= NGINX_EXTRA= NGINX_SERVER_EXTRA=
cleanup_hook() { nginx_stop; }
plan 11

P=$(free_port)
nginx_conf "$T/ng" "$P" ""
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }

# top_agrees DATA PROFILE: same_top, and there is a profile to compare.
top_agrees() { [ -s "$2" ] && [ -s "$1" ] && same_top "$1" "$2"; }

# frames PROFILE: its frames, every sample's locations times its count
# (addresses as recorded: -symbolize=none).
frames() {
	go tool pprof -symbolize=none -raw "$1" 2>/dev/null | awk '/^Samples/ { s = 1; getline; next }
		/^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+:/ { n += $1 * (NF - 2) } END { print n + 0 }'
}

# -g: names and shares as perf report's.
record_fanout g "mode = put" "url = http://127.0.0.1:$P/g" "symbolize = local"
check "record with symbolize = local succeeds" test "$(cat "$T/g.rc")" = 0 || show "$T/g.err"
check "its windows arrive and merge" merged g
diag "$(cat "$T/g.n") windows"
check "the windows' samples add up to the recording's" same_count "$T/g.data" "$T/g.pb.gz"
check "go tool pprof -top and perf report agree on the top 10 (within 1 point)" \
	top_agrees "$T/g.data" "$T/g.pb.gz"
check "the workload's hot functions are named in the profile itself" \
	bash -c "go tool pprof -symbolize=none -raw '$T/g.pb.gz' 2>/dev/null | grep -qw hot_alpha"

# DWARF: the sink unwinds; main under the hot functions.
CALL_GRAPH="--call-graph dwarf,8192" record_fanout d "mode = put" "url = http://127.0.0.1:$P/d" \
	"symbolize = local"
check "record --call-graph dwarf with symbolize = local succeeds" test "$(cat "$T/d.rc")" = 0 ||
	show "$T/d.err"
merged d
s=$(main_share "$T/d.pb.gz" "")
diag "workload samples in hot functions with main under them: $s % of $(cat "$T/d.pb.gz.n")"
check "dwarf, local: main is under the hot functions for >= 99 % of them" [ "${s:-0}" -ge 99 ]
check "dwarf, local: the windows hold every sample of the recording" same_count "$T/d.data" "$T/d.pb.gz"
check "the sink says how many DWARF stacks it unwound" grep -q "DWARF stacks, [1-9][0-9]* unwound" "$T/d.err"

CALL_GRAPH="--call-graph dwarf,8192" record_fanout n "mode = put" "url = http://127.0.0.1:$P/n" \
	"symbolize = none"
merged n
check "dwarf, none: the windows hold every sample of the recording" same_count "$T/n.data" "$T/n.pb.gz"
"$PERFSINK" pprof -o "$T/v.pb.gz" "$T/n.data" 2>"$T/v.err" || show "$T/v.err"
a=$(frames "$T/n.pb.gz") b=$(frames "$T/v.pb.gz")
diag "frames: the sink's windows $a, perfsink pprof of the file $b"
# Within 1 %, not exact: the sink walks each pass ring by ring while the
# file is read in time order, the likely reason a few samples unwind
# differently (one drained before its process's MMAP, recorded on another
# CPU).  Under load the difference reached 0.52 % once, and passed 0.5 %
# in a sanitizer build in CI.
check "dwarf, none: the sink's unwound stacks are perfsink pprof's (frames within 1 %)" \
	awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && a > 2 * 3000 && d * 100 <= b) }'
done_testing
