#!/bin/bash
# `perfsink ls` shows when a session was recorded, on the recording
# host's clock (the start and end the http sink writes into the end
# marker), not when its parts reached the collector: after the
# collector's files are touched to another date, START and END are still
# those of the recording (issue 31).  A session without an end marker
# (open) shows the start its name carries and no end.  With rotation,
# each segment ends when the next one begins.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (nginx as root, perf_event_open)"; exit 0; }

T=$(mktemp -d /tmp/ls_times.XXXXXX)
export HOME=$T/home
mkdir -p "$HOME"
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..9"
collector_start "$T/ng"
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\nsymbols = none\n' \
	"$P" "$T" >"$T/net.ini"

T0=$(date +%s)
"$PERFSINK" record -e cpu-clock -F 999 --config "$T/net.ini" -- \
	"$TESTS_BUILDDIR/integration/workload" cpu 1500 >"$T/rec.out" 2>"$T/rec.err"
check "a recording into the collector succeeds" test $? = 0 || sed 's/^/# /' "$T/rec.err"
T1=$(date +%s)
S=$(one_session "$ROOT/c")
# Arrival times say nothing now: every file of the collector dates from 2001.
find "$ROOT/c" -exec touch -h -d '2001-02-03 04:05:06' {} +

epoch() { [ "$1" = - ] && echo - || date -u -d "$1" +%s; } # epoch 2026-12-06T23:20:00Z
"$PERFSINK" ls "http://127.0.0.1:$P/c" >"$T/ls.out" 2>"$T/ls.err"
check "ls exits 0 and names START and END" \
	bash -c "test $? = 0 && head -n 1 '$T/ls.out' | grep -q 'START (UTC) *END (UTC)'" || sed 's/^/# /' "$T/ls.out" "$T/ls.err"
read -r A B < <(awk -v s="${S#*/}" '$2 == s {print $3, $4}' "$T/ls.out")
A=$(epoch "${A:--}") B=$(epoch "${B:--}")
check "START is when the recording began ($A in [$T0, $T1]), not the files' date" \
	test "$A" != - -a "$A" -ge "$T0" -a "$A" -le "$T1"
check "END is when it ended ($B: START + the 1.5 s workload, to the second)" \
	test "$B" != - -a "$B" -ge $((A + 1)) -a "$B" -le "$T1"
"$PERFSINK" ls --json "http://127.0.0.1:$P/c" >"$T/ls.json"
check "ls --json: start and end the same, first and last the parts' arrival (2001)" \
	python3 -c "import json,sys
d = json.load(open('$T/ls.json'))[0]
sys.exit(not (d['start'] == '$(date -u -d @"$A" +%FT%TZ)' and d['end'] == '$(date -u -d @"$B" +%FT%TZ)'
	      and d['first'].startswith('2001-') and d['last'].startswith('2001-')))" ||
	sed 's/^/# /' "$T/ls.json"

# Without its end marker (a recorder killed): the start its name carries.
rm "$ROOT/c/$S.end"
"$PERFSINK" ls "http://127.0.0.1:$P/c" >"$T/ls2.out" 2>&1
read -r A2 B2 ST < <(awk -v s="${S#*/}" '$2 == s {print $3, $4, $NF}' "$T/ls2.out")
near() { [ "$1" != - ] && [ $(($1 - $2)) -ge -1 ] && [ $(($1 - $2)) -le 1 ]; } # near A B: within 1 s
check "an open session shows the start in its name (the recording host's UTC clock)" \
	bash -c "$(declare -f near); test '$ST' = open && near '$(epoch "${A2:--}")' '$A'"
check "and no end (-), not an arrival time" test "$B2" = -

# Rotation: every segment is a session of its own, in the order it was recorded.
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/r\nspool_dir = %s/spool\nsymbols = none\n' \
	"$P" "$T" >"$T/rot.ini"
R0=$(date +%s)
"$PERFSINK" record -e cpu-clock -F 999 --switch-output=1s --config "$T/rot.ini" -- \
	"$TESTS_BUILDDIR/integration/workload" cpu 2500 >"$T/rot.out" 2>"$T/rot.err"
check "a rotating recording into the collector succeeds" test $? = 0 || sed 's/^/# /' "$T/rot.err"
R1=$(date +%s)
find "$ROOT/r" -exec touch -h -d '2001-02-03 04:05:06' {} +
"$PERFSINK" ls --json "http://127.0.0.1:$P/r" >"$T/rot.json"
check "its segments (2 or more) follow each other: each ends as the next begins, within the run" \
	python3 -c "import json, sys, calendar, time
t = lambda s: calendar.timegm(time.strptime(s, '%Y-%m-%dT%H:%M:%SZ'))
d = sorted(json.load(open('$T/rot.json')), key=lambda x: x['session'])
ok = len(d) >= 2 and all(x['state'] == 'ended' and $R0 <= t(x['start']) <= t(x['end']) <= $R1 for x in d)
ok = ok and all(a['end'] == b['start'] for a, b in zip(d, d[1:]))
sys.exit(not ok)" || sed 's/^/# /' "$T/rot.json"
exit $tap_fail
