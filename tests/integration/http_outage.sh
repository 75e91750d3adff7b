#!/bin/bash
# http sink when the collector goes away: nginx is stopped in the middle
# of a paced replay and started again once the outage has shown.  With room in the spool the
# collector ends with the whole stream; with a tiny spool the loss is
# counted exactly, reported, and marked by LOST records perf shows.  Parts
# left behind are sent later by upload().
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_outage.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..13"

make_stream "$T/s.pipe"
P=$(free_port)
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
URL=http://127.0.0.1:$P/perf
COMMON="part_size=16K backoff_base=200ms backoff_cap=2s"

# replay_with_outage SESSION SPOOL GONE [key=value...]: 4 KiB every 100 ms,
# the stream twice (about 3 s), and on for as long as $T/hold exists.
# nginx goes down once the collector holds a part, and comes back once
# GONE (a command) says the outage has had its effect; then the hold goes,
# so the replay outlasts both on any machine.
replay_with_outage() {
	local s=$1 spool=$2 gone=$3; shift 3
	touch "$T/hold"
	"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s "$s" -b 4096 -r 2 -p 100 -w "$T/hold" \
		-e "$T/$s.exp" url=$URL spool_dir="$spool" $COMMON "$@" >"$T/$s.out" 2>"$T/$s.err" &
	local drv=$!
	wait_for 60 has_files "$T/ng/root/perf/testhost/$s" 1 || echo "# no part reached the collector"
	nginx_stop
	wait_for 60 $gone || echo "# the outage did not show: $gone"
	nginx_start "$T/ng"
	rm -f "$T/hold"
	wait $drv
}
# The sink noticed the outage and holds several parts in its spool.
spooled() { grep -q "; retrying" "$T/big.err" && has_files "$T/spool" 3; }
# The spool overflowed: the sink dropped a part.
dropping() { grep -q "losing data" "$T/tiny.err"; }

replay_with_outage big "$T/spool" spooled
check "outage with room in the spool: every op returns 0" test $? = 0
parts_cat "$T/ng/root/perf/testhost/big" > "$T/big.got"
check "the collector has the whole stream" cmp -s "$T/big.got" "$T/big.exp"
# Whatever curl saw first (refused, or a reset mid-request), one line says so.
check "the outage was retried and reported once" \
	test "$(grep -c "; retrying" "$T/big.err")" = 1 || sed 's/^/# /' "$T/big.err"
check "and the recovery too" grep -q "collector reachable again" "$T/big.err"
check "the spool is empty afterwards" test -z "$(find "$T/spool" -type f)"

replay_with_outage tiny "$T/spool" dropping spool_max=40K
parts_cat "$T/ng/root/perf/testhost/tiny" > "$T/tiny.got"
python3 "$TESTS_SRCDIR/integration/http_stream_diff.py" "$T/tiny.exp" "$T/tiny.got" > "$T/tiny.diff"
check "tiny spool: the stream is the one sent with gaps marked by LOST records" test $? = 0
read -r lb lr lm < <(sed 's/[a-z_]*=//g' "$T/tiny.diff")
summary=$(grep "warning: lost" "$T/tiny.err")
check "some data was lost" test "${lb:-0}" -gt 0
check "the sink counts exactly the bytes and records missing ($lb, $lr)" \
	grep -q "lost $lb bytes ($lr records) in $lm parts" <<<"$summary"
check "and warns about the loss at close" grep -q "warning: lost $lb bytes" "$T/tiny.err"
"$PERF" script -i - < "$T/tiny.got" > "$T/tiny.script" 2>"$T/tiny.perr"
check "perf warns about the lost chunks" grep -q "lost $lm chunks" "$T/tiny.perr"
check "perf script --show-lost-events shows one LOST per gap" \
	test "$("$PERF" script --show-lost-events -i - < "$T/tiny.got" 2>/dev/null | grep -c PERF_RECORD_LOST)" = "$lm"

# Nothing listening: parts stay in the spool, and upload() sends them later.
nginx_stop
"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s later -b 4096 -e "$T/later.exp" \
	url=$URL spool_dir="$T/spool" $COMMON drain_timeout=1s >"$T/later.out" 2>"$T/later.err"
check "collector down at close: the parts wait in the spool" \
	test "$(find "$T/spool" -type f | wc -l)" -gt 0 -a ! -d "$T/ng/root/perf/testhost/later"
nginx_start "$T/ng"
"$HTTP_DRIVER" upload "$HTTP_PLUGIN" -t 10000 url=$URL spool_dir="$T/spool" $COMMON \
	>"$T/up.out" 2>"$T/up.err"
check "upload() sends them: the collector has the stream, the spool is empty" \
	bash -c "cmp -s '$T/later.exp' <(cd '$T/ng/root/perf/testhost/later' && cat \$(ls)) &&
		test -z \"\$(find '$T/spool' -type f)\"" ||
	{ sed 's/^/# /' "$T/up.out" "$T/up.err"; find "$T/spool" "$T/ng/root/perf/testhost/later" -type f | sed 's/^/# /'; }
exit 0
