#!/bin/bash
# http sink overflow policies while the collector is away: drop_oldest
# drops (counted, LOST-marked) and spools the rest at close for upload();
# block holds the writer until the collector is back, losing nothing.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_policy.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..10"

make_stream "$T/s.pipe"
P=$(free_port)
nginx_conf "$T/ng" "$P"
URL=http://127.0.0.1:$P/perf
COMMON="part_size=16K queue_size=32K backoff_base=100ms backoff_cap=500ms"

# Nobody listens: 5 replays (about 240 KiB) against a 32 KiB queue.
"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s d1 -b 4096 -r 5 -e "$T/d1.exp" url=$URL \
	overflow=drop_oldest drain_timeout=1s spool_dir="$T/spool" $COMMON >"$T/d1.out" 2>"$T/d1.err"
check "drop_oldest with the collector down: the run ends" test $? = 0
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
"$HTTP_DRIVER" upload "$HTTP_PLUGIN" url=$URL spool_dir="$T/spool" $COMMON >"$T/u.out" 2>"$T/u.err"
check "upload() sends what was kept" test $? = 0
parts_cat "$T/ng/root/perf/testhost/d1" > "$T/d1.got"
python3 "$TESTS_SRCDIR/integration/http_stream_diff.py" "$T/d1.exp" "$T/d1.got" > "$T/d1.diff"
check "the stream is the one sent, with dropped parts marked LOST" test $? = 0
read -r lb lr lm < <(sed 's/[a-z_]*=//g' "$T/d1.diff")
check "the drops are counted exactly ($lb bytes, $lr records)" \
	grep -q "lost $lb bytes ($lr records) in $lm parts" "$T/d1.err"

# A host name that does not resolve, inside a network namespace with only
# loopback (so the lookup fails at once and no packet leaves the machine).
if unshare -n true 2>/dev/null; then
	unshare -n -- sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh \
		"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s n1 url=http://no-such-host.invalid/perf \
		spool_dir="$T/spool3" drain_timeout=1s $COMMON >"$T/n1.out" 2>"$T/n1.err"
	check "unknown host: the run still ends cleanly" test $? = 0
	check "it is reported and the parts are spooled" \
		bash -c "grep -q \"Couldn't resolve host name; retrying\" '$T/n1.err' &&
			test -n \"\$(find '$T/spool3' -type f)\""
else
	ok "# SKIP unshare -n not available"
	ok "# SKIP unshare -n not available"
fi

# A collector that accepts connections and never answers: stall_timeout
# ends each try, and the parts wait in the spool.
HUNG=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held = []
while True:
    held.append(s.accept()[0])
' "$HUNG" &
hung_pid=$!
wait_port "$HUNG"
"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s h1 url=http://127.0.0.1:$HUNG/perf \
	spool_dir="$T/spool4" stall_timeout=1s drain_timeout=3s $COMMON >"$T/h1.out" 2>"$T/h1.err"
check "a collector that never answers: the run ends after drain_timeout" test $? = 0
check "the stall is detected, retried, and the parts are spooled" \
	bash -c "grep -q 'Timeout was reached; retrying' '$T/h1.err' &&
		test -n \"\$(find '$T/spool4' -type f)\""
kill $hung_pid
wait $hung_pid 2>/dev/null

# block: the collector is down at the start until the sink has retried;
# nothing may be lost.
nginx_stop
"$HTTP_DRIVER" record "$HTTP_PLUGIN" "$T/s.pipe" -s b1 -b 4096 -r 5 -e "$T/b1.exp" url=$URL \
	overflow=block spool_dir="$T/spool2" $COMMON >"$T/b1.out" 2>"$T/b1.err" &
drv=$!
wait_for 60 grep -q "; retrying" "$T/b1.err" || echo "# the sink did not see the outage"
nginx_start "$T/ng"
wait $drv
check "block: the run ends once the collector is back" test $? = 0
check "block: the collector has the whole stream" \
	cmp -s "$T/b1.exp" <(parts_cat "$T/ng/root/perf/testhost/b1")
exit 0
