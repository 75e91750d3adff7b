#!/bin/bash
# perfsink upload never says "sent" by exit 0 while parts stay in the spool,
# and a signal ends it at once (issue 31 part 4, issue 27 item 7):
#   - the sink's thread is inside its first round (a preloaded shim slows
#     its first curl_multi_perform) when upload asks for the spool: upload
#     still sends every part and exits 0 (it used to take the spool for
#     empty before reading it, send nothing, print "N parts ... not sent"
#     and exit 0);
#   - a collector that is down: exit 1, every part still spooled;
#   - a collector dripping its answer a byte at a time: SIGTERM or SIGINT
#     ends upload within a second, with one "interrupted" line and exit 1,
#     and every part still spooled for the next run.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/edge_upload.XXXXXX)
HPID=
trap '[ -n "$HPID" ] && kill "$HPID" 2>/dev/null; nginx_stop; rm -rf "$T"' EXIT
echo "1..11"

SHIM=$TESTS_BUILDDIR/integration/.libs/slow_multi.so
[ -f "$SHIM" ] || { echo "Bail out! $SHIM not built"; exit 1; }
# ASan wants its runtime first; the shim only sleeps and calls on.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# spool_fill: the spool a run whose collector was down left (recorded once,
# into T/orig; a copy each time).
spool_fill() {
	if [ ! -d "$T/orig" ]; then
		local url=$URL
		config "http://127.0.0.1:$(free_port)/up" && sed -i "s|$T/spool|$T/orig|" "$T/c.ini"
		(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c.ini -- \
			"$TESTS_BUILDDIR/integration/workload" cpu 400 >"$T/rec.out" 2>&1)
		config "$url"
	fi
	rm -rf "$T/spool" && cp -a "$T/orig" "$T/spool"
}
config() { # config URL
	URL=$1
	printf '[sink.net]\nplugin = http\nspool_dir = %s\nurl = %s\ndrain_timeout = 1s\n' \
		"$T/spool" "$1" > "$T/c.ini"
	printf 'backoff_base = 100ms\nstall_timeout = 30s\n' >> "$T/c.ini"
}
spooled() { find "$T/spool/net" -type f | sort; }
intact() { spooled | diff -q "$T/before" - >/dev/null; } # every part as it was

# ---------------------------------------------------------- the first round
collector_start "$T/ng"
config "http://127.0.0.1:$P/up"
spool_fill && spooled > "$T/before"
[ "$(wc -l < "$T/before")" -ge 3 ] || { echo "Bail out! spool not made"; cat "$T/rec.out"; exit 1; }
SESS=$(dirname "$(find "$T/spool/net" -type f -name 0000000000)")
REL=${SESS#"$T/spool/net/"}
parts_cat "$SESS" > "$T/stream"
(cd "$T" && LD_PRELOAD=$SHIM timeout 60 "$PERFSINK" upload --config c.ini >"$T/race.out" 2>"$T/race.err")
rc=$?
check "upload while the sink's first round runs: exit 0 (got $rc)" test "$rc" = 0 ||
	sed 's/^/# /' "$T/race.err"
all_sent() { cmp -s "$T/stream" <(parts_cat "$ROOT/up/$REL") && test -f "$ROOT/up/$REL.end"; }
check "... and every part and the end marker reached the collector" all_sent
check "... and the spool is empty" test -z "$(spooled)"

# -------------------------------------------------------- the collector down
nginx_stop
spool_fill && spooled > "$T/before"
(cd "$T" && timeout 60 "$PERFSINK" upload --deadline 2s --config c.ini >"$T/down.out" 2>"$T/down.err")
rc=$?
check "collector down: exit 1 (got $rc)" test "$rc" = 1 || sed 's/^/# /' "$T/down.err"
check "... every part still in the spool" intact

# ------------------------------------------------------ a dripping collector
mkdir -p "$T/drip"
python3 "$TESTS_SRCDIR/integration/hostile_collector.py" drip "$T/drip" --every 0.2 --lifetime 90 &
HPID=$!
wait_for 60 test -s "$T/drip/port" || { echo "Bail out! hostile_collector.py did not start"; exit 1; }
config "http://127.0.0.1:$(cat "$T/drip/port")/up"
gone() { ! kill -0 "$1" 2>/dev/null; }
# stopped SIG: upload against the dripping collector, SIG once its first PUT
# is in; the seconds it took to end in DT, its exit status in RC.
stopped() {
	: > "$T/drip/requests.log"
	(cd "$T" && exec "$PERFSINK" upload --deadline 60s --config c.ini >"$T/$1.out" 2>"$T/$1.err") &
	local pid=$! t0
	wait_for 30 grep -q PUT "$T/drip/requests.log"
	t0=$EPOCHREALTIME
	kill "-$1" "$pid"
	wait_for 5 gone "$pid" || kill -9 "$pid"
	DT=$(echo "$EPOCHREALTIME - $t0" | bc)
	wait "$pid"
	RC=$?
}
for sig in TERM INT; do
	spool_fill && spooled > "$T/before"
	stopped "$sig"
	check "SIG$sig while a byte drips every 0.2 s: upload ends within a second (${DT}s), exit 1 (got $RC)" \
		test "$(echo "$DT <= 1" | bc)" = 1 -a "$RC" = 1 || sed 's/^/# /' "$T/$sig.err"
	check "... one line says it was interrupted and the parts wait in the spool" \
		test "$(grep -c interrupted "$T/$sig.err")" = 1 || sed 's/^/# /' "$T/$sig.err"
	check "... every part still in the spool" intact
done
# shellcheck disable=SC2154
exit $tap_fail
