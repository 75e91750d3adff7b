#!/bin/bash
# The pprof sink (mode = put) against nginx as a WebDAV collector, fanned
# out with aio_file and http: every window arrives as {host}/{session}/{from}.pb.gz,
# go tool pprof reads each, and their samples add up to the recording's.
# Then an outage: the collector is down when the run begins, windows wait
# in memory and arrive once it is up, none lost.  And one that lasts: past
# queue_max and drain_timeout windows are dropped, each counted and
# logged, and the run fails: nothing is lost silently.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
need_go
NGINX_PID= REC= NGINX_EXTRA= NGINX_SERVER_EXTRA=
cleanup_hook() { nginx_stop; [ -z "$REC" ] || kill "$REC"; }
plan 13

P=$(free_port)
nginx_conf "$T/ng" "$P" ""
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }

# The http sink in the same run, as the fan-out has it today.
record_fanout w "mode = put" "url = http://127.0.0.1:$P/pp" "[sink.net]" "plugin = http" \
	"url = http://127.0.0.1:$P/net" "spool_dir = $T/spool" "part_size = 16K"
check "record with aio_file and pprof (mode = put) succeeds" test "$(cat "$T/w.rc")" = 0 ||
	sed 's/^/# /' "$T/w.err"
mapfile -t W < <(find "$T/ng/root/pp" -type f | sort)
check "windows of 1 s arrive as {url}/{host}/{session}/{from_ms}.pb.gz" \
	bash -c "[ ${#W[@]} -ge 3 ] && printf '%s\n' ${W[*]} | grep -qE '/pp/[^/]+/[^/]+/[0-9]{13}\.pb\.gz$'"
check "go tool pprof reads every window" all_read "${W[@]}"
check "the windows' samples add up to the recording's (perf report)" same_count "$T/w.data" "${W[@]}"
check "mappings carry the workload's build-id (symbolize = none)" \
	bash -c "go tool pprof -raw '${W[0]:-none}' 2>/dev/null | grep -q \"/workload $(readelf -n "$WORKLOAD" | awk '/Build ID/ { print $3 }')\""
parts_cat "$T/ng/root/net" > "$T/net.pipe"
check "the http sink beside it streams the same recording (perf script)" \
	bash -c "'$PERF' script -i - < '$T/net.pipe' > '$T/a.txt' 2>/dev/null &&
		'$PERF' script -i '$T/w.data' > '$T/b.txt' 2>/dev/null && test -s '$T/a.txt' &&
		cmp -s '$T/a.txt' '$T/b.txt'"
check "the summary says where the windows went and how many" \
	grep -q "sink pp (pprof): .* sent to http://127.0.0.1:$P/pp/[^/]*/[^/]*/ in ${#W[@]} parts" "$T/w.err"

# Outage: nothing listens at first; the sink retries, windows wait.
nginx_stop
record_fanout o "mode = put" "url = http://127.0.0.1:$P/out" "backoff_base = 100ms" \
	"backoff_cap = 300ms" "drain_timeout = 20s" &
REC=$!
wait_for 30 grep -q "retrying" "$T/o.err"
check "with the collector down the sink says it is retrying" grep -q "retrying" "$T/o.err"
nginx_start "$T/ng" || { echo "Bail out! nginx did not restart"; exit 1; }
wait "$REC"
REC=
mapfile -t O < <(find "$T/ng/root/out" -type f 2>/dev/null | sort)
check "after the outage the run succeeds" test "$(cat "$T/o.rc")" = 0 || sed 's/^/# /' "$T/o.err"
check "and every window arrived: samples add up to the recording's" same_count "$T/o.data" "${O[@]}"

# The collector never comes back: a queue of 2K holds one window or two.
nginx_stop
record_fanout d "mode = put" "url = http://127.0.0.1:$P/never" "queue_max = 2K" \
	"drain_timeout = 1s" "backoff_base = 100ms"
check "a collector that never comes back fails the run" test "$(cat "$T/d.rc")" != 0
check "each window dropped over queue_max is logged with its samples" \
	grep -q "queue_max reached: dropping the window of [0-9]* samples" "$T/d.err"
want=$(perf_samples "$T/d.data")
check "the closing line counts every sample of the recording as not delivered" \
	grep -q "$want samples aggregated, 0 profiles sent; lost: 0 samples over max_memory, 0 undecodable, [0-9]* profiles ($want samples) not delivered" "$T/d.err" ||
	grep 'pp:' "$T/d.err" | tail -n 2 | sed 's/^/# /'
done_testing
