#!/bin/bash
# The pprof sink's disk spool (issue 29 part 3, on the collector's object
# shipper): with the collector down for a whole run, every window goes to
# spool_dir and the run fails saying how many; a second run with the
# collector up sends that backlog after its own windows, and every window
# of both runs arrives: go tool pprof reads each, and each run's windows
# add up to its recording's samples (perf report of the aio_file copy).
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
need_go
NGINX_PID= NGINX_EXTRA= NGINX_SERVER_EXTRA=
cleanup_hook() { nginx_stop; }
plan 9

P=$(free_port)
nginx_conf "$T/ng" "$P" ""
SPOOL="spool_dir = $T/spool"

# Run 1: nothing listens at $P; a queue of 2K spills windows to disk at once.
record_fanout a "mode = put" "url = http://127.0.0.1:$P/pp" "$SPOOL" "queue_max = 2K" \
	"drain_timeout = 1s" "backoff_base = 100ms" "backoff_cap = 300ms"
mapfile -t S < <(find "$T/spool/pp" -type f -regextype egrep -regex '.*/[0-9]{13}' | sort)
check "collector down: the run fails" test "$(cat "$T/a.rc")" != 0
check "every window waits in the spool as {host}/{session}/{from_ms}" \
	bash -c "[ ${#S[@]} -ge 3 ]"
check "the closing line counts them in the spool, none lost" \
	grep -qE "profiles sent; lost: 0 samples over max_memory, 0 undecodable, 0 profiles \(0 samples\) not delivered; ${#S[@]} profiles \([0-9]+ samples\) in the spool" "$T/a.err"
SESS_A=$(basename "$(dirname "${S[0]:-x/x}")")

# Run 2: the collector is up; the backlog goes after this run's windows.
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
record_fanout b "mode = put" "url = http://127.0.0.1:$P/pp" "$SPOOL" \
	"drain_timeout = 20s" "backoff_base = 100ms"
check "collector up: the second run succeeds" test "$(cat "$T/b.rc")" = 0 ||
	grep 'pp:' "$T/b.err" | sed 's/^/# /'
check "it says it sends the earlier run's windows" grep -q "${#S[@]} parts .* of earlier runs" "$T/b.err"
mapfile -t A < <(find "$T/ng/root/pp" -path "*/$SESS_A/*" -name '*.pb.gz' | sort)
mapfile -t B < <(find "$T/ng/root/pp" -name '*.pb.gz' ! -path "*/$SESS_A/*" | sort)
check "every spooled window of run 1 arrived, and the spool is empty" \
	bash -c "[ ${#A[@]} = ${#S[@]} ] && [ -z \"\$(find '$T/spool/pp' -type f)\" ]"
check "go tool pprof reads every window of both runs" all_read "${A[@]}" "${B[@]}"
check "run 1's windows add up to its recording's samples" same_count "$T/a.data" "${A[@]}"
check "run 2's windows add up to its recording's samples" same_count "$T/b.data" "${B[@]}"
