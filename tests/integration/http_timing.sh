#!/bin/bash
# The http sink's clocks, measured on its own log (http_driver stamps each
# line with CLOCK_MONOTONIC): stall_timeout ends a silent request within
# 10 %, a 429/503 with Retry-After waits what the collector asked (capped
# by backoff_cap) instead of the backoff; and the size limits of the key
# table refuse queue_size = 1T.  Ratios, never a budget for the whole test.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_timing.XXXXXX)
trap 'nginx_stop; [ -n "$hung_pid" ] && kill "$hung_pid" 2>/dev/null; rm -rf "$T"' EXIT
echo "1..10"

make_stream "$T/s.pipe"
export HTTP_DRIVER_TIMES=1 HTTP_DRIVER_DEBUG=1

# gaps LOG START END: for each line matching START, the ms until the next
# line matching END (one number a line).
gaps() {
	awk -v s="$2" -v e="$3" '
		{ t = substr($1, 2, length($1) - 2) * 1000 }
		$0 ~ s { start = t; next }
		$0 ~ e && start != "" { printf "%d\n", t - start; start = "" }' "$1"
}
# tries LOG: how long each try of a part after the first ran before "Timeout
# was reached": the time between two such lines less the wait the first one
# announced ("next [try ]in N ms").  Needs no line but those (the session
# note's PUT, which times out too, is left out).
tries() {
	awk '/stall_timeout\): Timeout was reached/ {
		t = substr($1, 2, length($1) - 2) * 1000
		if (prev != "") printf "%d\n", t - prev - wait
		prev = t
		match($0, /next (try )?in [0-9]+ ms/)
		w = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", w); wait = w + 0
	}' "$1"
}
# ratios_within FILE WANT_MS LO HI: at least 3 numbers in FILE, none below
# LO * WANT_MS (never early), the shortest at most HI * WANT_MS.  A wrong
# clock makes every try wrong (curl's LOW_SPEED clock: all ~7 s); a loaded
# machine only wakes some of them late, so the best try is the measure.
ratios_within() {
	sort -n "$1" | awk -v w="$2" -v lo="$3" -v hi="$4" '
		{ v[n++] = $1; if ($1 / w < lo) early++; printf "# %d ms (ratio %.3f)\n", $1, $1 / w }
		END { if (n < 3) exit 1; m = v[0] / w; printf "# best ratio %.3f\n", m
		      exit (early || m > hi) }'
}

# A collector that reads the whole request and never answers.  curl's own
# LOW_SPEED clock let such a try run ~7 s for stall_timeout = 1s.
HUNG=$(free_port)
python3 "$TESTS_SRCDIR/integration/http_silent.py" "$HUNG" &
hung_pid=$!
wait_port "$HUNG"
"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s st url=http://127.0.0.1:$HUNG/perf \
	spool_dir="$T/spool" stall_timeout=1s drain_timeout=10s backoff_base=100ms backoff_cap=200ms \
	>"$T/st.out" 2>"$T/st.err"
check "a collector that never answers: the run ends" test $? = 0
tries "$T/st.err" > "$T/st.gaps"
# Not before 1 s; late by at most 10 % (the old curl LOW_SPEED clock: ~7 s).
# drain_timeout leaves room for about 8 tries, so a slow start still leaves
# the 3 that ratios_within needs.
check "stall_timeout = 1s ends a try after 1 s, within 10 % (best of $(wc -l < "$T/st.gaps") tries)" \
	ratios_within "$T/st.gaps" 1000 0.99 1.1 || sed 's/^/# /' "$T/st.err" | head -20
kill "$hung_pid"
wait "$hung_pid" 2>/dev/null
hung_pid=

# nginx answers 503 + Retry-After (2 s, or 30 s) until the test opens it.
P=$(free_port)
NGINX_EXTRA="location /ra2/ { dav_methods PUT; create_full_put_path on;
	if (!-f $T/open2) { add_header Retry-After 2 always; return 503; } }
	location /ra30/ { dav_methods PUT; create_full_put_path on;
	if (!-f $T/open30) { add_header Retry-After 30 always; return 429; } }" \
	nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
# Parts only: the session note the sink writes after the stream (buildid/)
# is refused too and must not count as a try.
refusals() { [ "$(grep -c "\"PUT /$1/testhost/.* $2 " "$T/ng/access.log")" -ge "$3" ]; }

# retry_run NAME STATUS CAP: replay to /NAME/ with backoff 100ms..CAP; open
# the location once nginx has refused 4 tries.
retry_run() {
	"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s "$1" -e "$T/$1.exp" \
		url=http://127.0.0.1:$P/$1 spool_dir="$T/spool" drain_timeout=60s \
		backoff_base=100ms backoff_cap="$3" >"$T/$1.out" 2>"$T/$1.err" &
	local drv=$!
	wait_for 60 refusals "$1" "$2" 4 || echo "# nginx did not refuse 4 tries"
	touch "$T/open${1#ra}"
	wait $drv
}
retry_run ra2 503 5s
check "503 with Retry-After: 2: the run ends once the collector takes parts" test $? = 0
check "and the collector has the whole stream" cmp -s "$T/ra2.exp" <(parts_cat "$T/ng/root/ra2")
gaps "$T/ra2.err" "Retry-After" "request starts" > "$T/ra2.gaps"
check "each retry waits the 2 s asked (within 10 %), not the 0.1 s backoff" \
	ratios_within "$T/ra2.gaps" 2000 0.99 1.1 || sed 's/^/# /' "$T/ra2.err" | head -20
check "the log says the collector asked" grep -q "retrying as the collector asked (Retry-After)" "$T/ra2.err"

retry_run ra30 429 1s
check "429 with Retry-After: 30 and backoff_cap = 1s: the run ends" test $? = 0
gaps "$T/ra30.err" "Retry-After" "request starts" > "$T/ra30.gaps"
check "each retry waits backoff_cap (1 s, within 10 %), not the 30 s asked" \
	ratios_within "$T/ra30.gaps" 1000 0.99 1.1 || sed 's/^/# /' "$T/ra30.err" | head -20

# Size limits of the key table, applied when the config is read.
limit() { # limit KEY VALUE MESSAGE
	printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/x\nspool_dir = %s\n%s = %s\n' \
		"$P" "$T/spool" "$1" "$2" > "$T/l.ini"
	(cd "$T" && timeout 60 "$PERFSINK" record -e cpu-clock --config l.ini -- true >"$T/l.out" 2>"$T/l.err")
	[ $? = 2 ] && grep -q -- "$3" "$T/l.err"
}
check "queue_size = 1T is refused, with the accepted range" \
	limit queue_size 1T "l.ini:5: .*'1T' is out of range; accepted: from 4096 to 4294967296 bytes"
check "spool_max = 2T is refused" limit spool_max 2T "l.ini:5: .*'2T' is out of range"
exit 0
