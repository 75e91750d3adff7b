#!/bin/bash
# What an operator sees at a terminal (run in a pseudo-terminal): the live
# status line with each sink's state while the collector is down (nothing
# listens), the drain at exit said with its deadline, a second Ctrl-C that
# leaves the rest in the spool and exits at once, the session URL at the
# start and in the summary, and whose backlog a later run sent.  No status
# line with --no-status, -q, or when stderr is not a terminal.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root for -a"; exit 0; }

T=$(mktemp -d /tmp/ops_status.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..16"
PTY="python3 $TESTS_SRCDIR/integration/pty_run.py"
P=$(free_port)
mkdir -m 700 "$T/spool"
config() { # config FILE URL: a local file and an http sink with a spool
	printf '[sink.local]\nplugin = aio_file\npath = %s\n' "$T/local.data" > "$1"
	printf '[sink.net]\nplugin = http\nurl = %s\nspool_dir = %s\npart_size = 16K\n' "$2" "$T/spool" >> "$1"
	printf 'drain_timeout = 60s\nbackoff_base = 200ms\nbackoff_cap = 1s\n' >> "$1"
}
spooled() { find "$T/spool/net" -type f 2>/dev/null | wc -l; }

# 1. The collector is down: nothing listens on P yet.
config "$T/down.ini" "http://127.0.0.1:$P/c"
STATUS='\[ [1-9][0-9]*s .* ev/s .* MB/s  lost [0-9]+ \| local: ok \| net: (retrying in [0-9]+s|spooling [0-9.]+ MB)'
(cd "$T" && $PTY "$T/down.log" "expect:60:$STATUS" ctrl-c 'expect:30:waiting at most 60 s' ctrl-c exit:15 \
	-- "$PERFSINK" record -a -F 499 --config down.ini) > "$T/down.res" 2>&1
check "collector down: the status line shows the sink retrying or spooling, and the run ends" \
	grep -q '^exit 0$' "$T/down.res" || { show "$T/down.res"; tail -c 2000 "$T/down.log" | cat -A | sed 's/^/# /'; }
check "the session URL is printed at the start" \
	grep -aEq "^\[ sink net \(http\): streaming to http://127.0.0.1:$P/c/[^/]+/[^/]+/ \]" "$T/down.log"
check "the drain at exit says what it sends, the deadline and what Ctrl-C does" \
	grep -aq "sending the last .* MB to http://127.0.0.1:$P/c/.*; waiting at most 60 s (drain_timeout); Ctrl-C again leaves it in the spool $T/spool/net" "$T/down.log"
check "the second Ctrl-C says what it left in the spool, and the spool has it" \
	eval "grep -aq 'interrupted: [0-9]* parts ([0-9]* bytes) left unsent in $T/spool/net' '$T/down.log' && [ \$(spooled) -gt 0 ]"
check "the summary names this run's bytes left in the spool" \
	grep -aEq "^\[ sink net \(http\): .* this run's [0-9]+ bytes \([0-9]+ parts\) left in the spool to send later" "$T/down.log"
check "the summary names the local file" grep -aq "written to $T/local.data ]" "$T/down.log"
check "the status line is cleared before the summary" \
	grep -aq $'\r\033\\[K\\[ perfsink record: Captured' "$T/down.log"

# 2. The collector is back: the next run sends the earlier runs' backlog too.
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
(cd "$T" && "$PERFSINK" record -F 499 --config down.ini --summary-json "$T/up.json" -- \
	"$TESTS_BUILDDIR/integration/workload" cpu 300 > "$T/up.out" 2> "$T/up.err")
rc=$?
check "collector up: the run succeeds and sends the backlog" eval "test $rc = 0 && [ \$(spooled) = 0 ]" ||
	show "$T/up.err"
URL=$(sed -n 's/^\[ sink net (http): streaming to \(.*\) \]$/\1/p' "$T/up.err")
REL=${URL#http://127.0.0.1:$P/}
check "the URL printed at the start is where the collector has the session" \
	test -n "$REL" -a -f "$T/ng/root/$REL/0000000000"
check "the summary says it was sent there and how much was earlier runs' backlog" \
	grep -Eq "^\[ sink net \(http\): .* sent to $URL in [0-9]+ parts \([0-9.]+ MB of it earlier runs' backlog\)" "$T/up.err" ||
	show "$T/up.err"
check "--summary-json: the backlog sent, the session done, nothing left" python3 - "$T/up.json" "$URL" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
net = [s for s in d["sinks"] if s["name"] == "net"][0]
assert net["backlog_sent_bytes"] > 0 and net["spooled_bytes"] == 0 and net["backlog_bytes"] == 0, net
assert net["outputs"] == [{"path": sys.argv[2], "state": "done", "bytes": net["bytes_out"] - net["backlog_sent_bytes"]}], net
PY
check "the retries count once: no second summary line from the sink" \
	eval "! grep -q 'summary: sent' '$T/up.err' '$T/down.log'"

# 3. No status line: --no-status, -q, or stderr not a terminal.
noline() { ! grep -aq $'\033\\[K' "$1"; }
(cd "$T" && $PTY "$T/ns.log" exit:60 -- "$PERFSINK" record --no-status -F 499 --config down.ini -- \
	"$TESTS_BUILDDIR/integration/workload" cpu 1500 > "$T/ns.res")
check "--no-status: no status line on a terminal" noline "$T/ns.log"
(cd "$T" && $PTY "$T/q.log" exit:60 -- "$PERFSINK" record -q -F 499 --config down.ini -- \
	"$TESTS_BUILDDIR/integration/workload" cpu 1500 > "$T/q.res")
check "-q: no status line and no summary" eval "noline '$T/q.log' && ! grep -aq Captured '$T/q.log'"
(cd "$T" && $PTY "$T/pipe.log" exit:60 -- sh -c "'$PERFSINK' record -F 499 --config down.ini -- \
	'$TESTS_BUILDDIR/integration/workload' cpu 1500 2>'$T/pipe.err'" > "$T/pipe.res")
check "stderr not a terminal: no status line" eval "noline '$T/pipe.err' && grep -q Captured '$T/pipe.err'"
(cd "$T" && $PTY "$T/on.log" 'expect:60:\[ [1-9][0-9]*s .* ev/s' exit:60 -- "$PERFSINK" record -F 499 \
	--config down.ini -- "$TESTS_BUILDDIR/integration/workload" cpu 3000 > "$T/on.res")
check "a terminal: the status line is there (the checks above can fail)" grep -q '^exit 0$' "$T/on.res" ||
	show "$T/on.res"
exit $tap_fail
