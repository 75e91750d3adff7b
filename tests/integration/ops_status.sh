#!/bin/bash
# What an operator sees at a terminal (run in a pseudo-terminal): the live
# status line with the recording time against --duration, the rates and
# the running totals, and each sink's state while the collector is down
# (nothing listens), the drain at exit said with its deadline and counted
# down on the status line, a second Ctrl-C that leaves the rest in the
# spool and exits at once, the session URL at the start and in the summary,
# and whose backlog a later run sent.  In 80 columns the line fits without
# cutting a sink's amount.  No status line with --no-status, -q, or when
# stderr is not a terminal.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root for -a"; exit 0; }

T=$(mktemp -d /tmp/ops_status.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..19"
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
STATUS='\[ [1-9][0-9]*s/600s  [0-9]+ ev/s  [0-9.]+ MB/s  [0-9.]+[kMG]? samples  [0-9.]+ MB  lost [0-9]+ \| local: ok \| net: (retrying in [0-9]+s|spooling [0-9.]+ MB)'
# The countdown at 57 s or less: the drain began 3 s ago, its line redrawn since.
(cd "$T" && $PTY "$T/down.log" cols:160 "expect:60:$STATUS" ctrl-c 'expect:30:waiting at most 60 s' \
	'expect:30:drain ([1-4][0-9]|5[0-7])s left' ctrl-c exit:15 \
	-- "$PERFSINK" record -a -F 499 --duration 600s --config down.ini) > "$T/down.res" 2>&1
check "collector down: the status line shows the sink retrying or spooling, and the run ends" \
	grep -q '^exit 0$' "$T/down.res" || { show "$T/down.res"; tail -c 2000 "$T/down.log" | cat -A | sed 's/^/# /'; }
check "the status line: time against --duration, rates, running totals (samples, MB captured)" \
	grep -aEq '\[ [1-9][0-9]*s/600s  [0-9]+ ev/s  [0-9.]+ MB/s  [0-9.]+[kMG]? samples  [0-9.]+ MB  lost ' "$T/down.log"
check "after the first Ctrl-C the status line counts the drain down, redrawn every second" \
	eval "test \$(grep -aoE 'net: [^|]*, drain [0-9]+s left ]' '$T/down.log' | sort -u | wc -l) -ge 2" ||
	grep -aoE '\[ [^[]*drain[^]]*\]' "$T/down.log" | sed 's/^/# /'
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

# 3. 80 columns and three sinks, two spooling: every line fits and ends whole.
config "$T/narrow.ini" "http://127.0.0.1:$(free_port)/c"
sed -i 's/^\[sink.net\]$/[sink.collector-eu-west-1]/; s/^drain_timeout = 60s$/drain_timeout = 1s/' "$T/narrow.ini"
printf '[sink.collector-us-east-2]\nplugin = http\nurl = http://127.0.0.1:9/c\nspool_dir = %s\ndrain_timeout = 1s\n' \
	"$T/spool" >> "$T/narrow.ini"
(cd "$T" && $PTY "$T/narrow.log" cols:80 'expect:60:spool' exit:60 -- "$PERFSINK" record -a -F 499 \
	--duration 4s --config narrow.ini) > "$T/narrow.res"
check "80 columns: every status line fits and ends whole, no sink's amount cut" \
	python3 - "$T/narrow.log" <<'PY' || { show "$T/narrow.res"; tail -c 3000 "$T/narrow.log" | cat -A | sed 's/^/# /'; }
import re, sys
lines = [l.decode() for l in re.findall(rb'\r\x1b\[K(\[ [^\r\n]*)', open(sys.argv[1], 'rb').read())
         if not l.startswith((b'[ perfsink', b'[ sink'))]
piece = re.compile(r'^(local: ok|collector-[a-z0-9-]+: (ok|retrying in \d+s|retry \d+s|spooling [\d.]+ MB|spool [\d.]+M)'
                   r'(, spool(ing)? [\d.]+( MB|M))?(, (drain )?\d+s left)?|\+\d+ more)$')
assert any('spool' in l for l in lines), lines
for l in lines:
    assert len(l) < 80 and l.endswith(' ]'), (len(l), l)
    for p in l[:-2].split(' | ')[1:]:
        assert piece.match(p), (p, l)
PY

# 4. No status line: --no-status, -q, or stderr not a terminal.
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
(cd "$T" && $PTY "$T/on.log" cols:160 'expect:60:\[ [1-9][0-9]*s .* ev/s' exit:60 -- "$PERFSINK" record -F 499 \
	--config down.ini -- "$TESTS_BUILDDIR/integration/workload" cpu 3000 > "$T/on.res")
check "a terminal: the status line is there (the checks above can fail)" grep -q '^exit 0$' "$T/on.res" ||
	show "$T/on.res"
exit $tap_fail
