#!/bin/bash
# The pprof sink's disk spool (issue 29 part 3, on the collector's object
# shipper): with the collector down for a whole run, every window goes to
# spool_dir and the run fails saying how many; a second run with the
# collector up sends that backlog after its own windows, and every window
# of both runs arrives: go tool pprof reads each, and each run's windows
# add up to its recording's samples (perf report of the aio_file copy).
# The same in mode = pyroscope (pyroscope_server.py): the backlog's
# windows are POSTed to /ingest with their from and until.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/integration/pprof_sink_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
need_go
NGINX_PID= NGINX_EXTRA= NGINX_SERVER_EXTRA= SRV=
cleanup_hook() { nginx_stop; [ -z "$SRV" ] || kill "$SRV"; }
plan 14

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
check "while down it says the windows wait in the spool" \
	grep -q "; retrying .*, windows wait in $T/spool" "$T/a.err" || show "$T/a.err"
check "the closing line counts them in the spool, none lost" \
	grep -qE "profiles sent; lost: 0 samples over max_memory, 0 undecodable, 0 profiles \(0 samples\) not delivered; ${#S[@]} profiles \([0-9]+ samples\) in the spool" "$T/a.err"
SESS_A=$(basename "$(dirname "${S[0]:-x/x}")")

# Run 2: the collector is up; the backlog goes after this run's windows.
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
record_fanout b "mode = put" "url = http://127.0.0.1:$P/pp" "$SPOOL" \
	"drain_timeout = 20s" "backoff_base = 100ms"
check "collector up: the second run succeeds" test "$(cat "$T/b.rc")" = 0 ||
	grep 'pp:' "$T/b.err" | sed 's/^/# /'
check "it says it sends the earlier run's windows, in its words" \
	grep -q "${#S[@]} windows of earlier runs in " "$T/b.err" || show "$T/b.err"
mapfile -t A < <(find "$T/ng/root/pp" -path "*/$SESS_A/*" -name '*.pb.gz' | sort)
mapfile -t B < <(find "$T/ng/root/pp" -name '*.pb.gz' ! -path "*/$SESS_A/*" | sort)
check "every spooled window of run 1 arrived, and the spool is empty" \
	bash -c "[ ${#A[@]} = ${#S[@]} ] && [ -z \"\$(find '$T/spool/pp' -type f)\" ]"
check "go tool pprof reads every window of both runs" all_read "${A[@]}" "${B[@]}"
check "run 1's windows add up to its recording's samples" same_count "$T/a.data" "${A[@]}"
check "run 2's windows add up to its recording's samples" same_count "$T/b.data" "${B[@]}"

# mode = pyroscope: run 3 with nothing at the ingest port, run 4 with it up.
PY=$(free_port)
record_fanout c "mode = pyroscope" "url = http://127.0.0.1:$PY" "spool_dir = $T/spool2" \
	"drain_timeout = 1s" "backoff_base = 100ms" "backoff_cap = 300ms"
mapfile -t S2 < <(find "$T/spool2/pp" -type f -regextype egrep -regex '.*/[0-9]{13}')
check "pyroscope, collector down: the run fails, its windows in the spool" \
	bash -c "[ \"\$(cat '$T/c.rc')\" != 0 ] && [ ${#S2[@]} -ge 3 ]"
mkdir -p "$T/py"
python3 "$TESTS_SRCDIR/integration/pyroscope_server.py" "$T/py" &
SRV=$!
wait_for 30 test -s "$T/py/port" || { echo "Bail out! the Pyroscope stand-in did not start"; exit 1; }
record_fanout d "mode = pyroscope" "url = http://127.0.0.1:$(cat "$T/py/port")" \
	"spool_dir = $T/spool2" "drain_timeout = 20s" "backoff_base = 100ms"
check "pyroscope, collector up: the second run succeeds" test "$(cat "$T/d.rc")" = 0 ||
	grep 'pp:' "$T/d.err" | sed 's/^/# /'
mapfile -t Y < <(find "$T/py" -name '*.pb.gz' | sort)
# posted N: every request a POST /ingest with from < until, N + 3 at least
# (run 3's spooled windows and run 4's), and the spool empty.
posted() {
	python3 -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
ok = all(r["method"] == "POST" and r["path"] == "/ingest" and
         int(r["query"]["from"]) < int(r["query"]["until"]) for r in rs)
sys.exit(0 if ok and len(rs) >= int(sys.argv[2]) + 3 else 1)' "$T/py/requests.jsonl" "$1" &&
		[ -z "$(find "$T/spool2/pp" -type f)" ]
}
# both_runs PROFILE...: go tool pprof reads each; they hold runs 3 and 4's samples.
both_runs() {
	local want got
	want=$(( $(perf_samples "$T/c.data") + $(perf_samples "$T/d.data") ))
	got=$(sum_samples "$@")
	echo "# recordings: $want samples; profiles: $got in $#"
	[ "$want" -gt 0 ] && [ "$got" = "$want" ] && all_read "$@"
}
check "every window of both runs is a POST /ingest with from < until, the spool empty" \
	posted "${#S2[@]}"
check "go tool pprof reads each, and they add up to both recordings' samples" both_runs "${Y[@]}"
