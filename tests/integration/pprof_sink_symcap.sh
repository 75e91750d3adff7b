#!/bin/bash
# The pprof sink's caches bounded to nothing (symbol_cache_max = 0,
# unwind_max = 0): every file's symbols and every process's unwinder are
# dropped at each window's end and made again in the next; the windows
# still name the same functions as perf report of the file sink fanned
# out in the same run, main still under the hot functions (--call-graph
# dwarf, unwound by the sink), and the -v end line counts the evictions.
# nginx as the WebDAV collector, as pprof_sink_local.sh.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
. "$TESTS_SRCDIR/integration/pprof_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
need_go
NGINX_PID= NGINX_EXTRA= NGINX_SERVER_EXTRA=
cleanup_hook() { nginx_stop; }
plan 6

P=$(free_port)
nginx_conf "$T/ng" "$P" ""
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }

# [record] verbose = 2 after the sink's keys: the sink's -v end line.
CALL_GRAPH="--call-graph dwarf,8192" record_fanout b "mode = put" "url = http://127.0.0.1:$P/b" \
	"symbolize = local" "symbol_cache_max = 0" "unwind_max = 0" "[record]" "verbose = 2"
check "record with symbol_cache_max = 0 and unwind_max = 0 succeeds" test "$(cat "$T/b.rc")" = 0 ||
	show "$T/b.err"
merged b
diag "$(cat "$T/b.n") windows"
check "more than one window arrives, and they merge" [ "$(cat "$T/b.n")" -gt 1 -a -s "$T/b.pb.gz" ]
line=$(grep "at the end: .*symbol_cache_max 0" "$T/b.err")
diag "${line:-no end line}"
check "the end line counts the files' symbols evicted, none held" \
	bash -c "grep -q 'symbols of 0 held (0 bytes, symbol_cache_max 0), [0-9]* reads, [1-9][0-9]* evicted' <<<'$line'"
check "and the unwinders evicted, none held" \
	bash -c "grep -q '0 unwinders held (unwind_max 0), [0-9]* made, [1-9][0-9]* evicted' <<<'$line'"
check "go tool pprof -top and perf report agree on the top 10 (within 1 point)" \
	same_top "$T/b.data" "$T/b.pb.gz"
s=$(main_share "$T/b.pb.gz" "")
diag "workload samples in hot functions with main under them: $s % of $(cat "$T/b.pb.gz.n")"
check "main is under the hot functions for >= 99 % of them (unwinders made again)" [ "${s:-0}" -ge 99 ]
done_testing
