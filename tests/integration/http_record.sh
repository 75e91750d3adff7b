#!/bin/bash
# End to end: `perfsink record` fanned out to aio_file and http (nginx on
# loopback).  perf script of the concatenated parts must equal perf script
# of the local file, line for line.  Bad http configs fail cleanly, and
# `perfsink upload` sends what a run left in the spool.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_record.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..17"

P=$(free_port)
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
WORKLOAD=$TESTS_BUILDDIR/integration/workload

config() { # config FILE [http keys...]: aio_file + http sections
	local f=$1; shift
	{
		printf '[sink.local]\nplugin = aio_file\npath = %s\n' "$T/local.data"
		printf '[sink.net]\nplugin = http\nspool_dir = %s\npart_size = 16K\n' "${SPOOL:-$T/spool}"
		printf '%s\n' "$@"
	} > "$f"
}

same_scripts() { # same_scripts DIR: parts under DIR vs local.data
	parts_cat "$1" > "$T/got.pipe"
	"$PERF" script -i - < "$T/got.pipe" > "$T/a.txt" 2>"$T/a.err" &&
	"$PERF" script -i "$T/local.data" > "$T/b.txt" 2>/dev/null &&
	test -s "$T/a.txt" && ! test -s "$T/a.err" && diff -q "$T/a.txt" "$T/b.txt"
}

config "$T/c1.ini" "url = http://127.0.0.1:$P/r1"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c1.ini -- "$WORKLOAD" cpu 1000 \
	>"$T/r1.out" 2>"$T/r1.err")
check "record fanned out to aio_file and http" test $? = 0
check "perf script of the parts equals perf script of the local file" same_scripts "$T/ng/root/r1"
check "several parts were sent" test "$(find "$T/ng/root/r1" -type f | wc -l)" -ge 3

config "$T/c2.ini" "url = http://127.0.0.1:$P/r2"
(cd "$T" && "$PERFSINK" record -e sched:sched_switch -a -m 8M --config c2.ini -- "$WORKLOAD" sleep 300 \
	>"$T/r2.out" 2>"$T/r2.err")
check "a tracepoint recording (tracing data in part 0) reads the same" same_scripts "$T/ng/root/r2" ||
	{ sed 's/^/# stream: /' "$T/a.err"; sed 's/^/# record: /' "$T/r2.err"; diff "$T/a.txt" "$T/b.txt" | head -n 5 | sed 's/^/# /'; }

config "$T/c4.ini" "url = http://127.0.0.1:$P/r4" "compress = zstd"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c4.ini -- "$WORKLOAD" cpu 1000 \
	>"$T/r4.out" 2>"$T/r4.err")
check "compress = zstd: the COMPRESSED stream reads like the local file" same_scripts "$T/ng/root/r4"
check "and is smaller than it" test "$(stat -c %s "$T/got.pipe")" -lt "$(stat -c %s "$T/local.data")"

# Rotation: every segment is a stream of its own, next to aio_file's segment.
config "$T/c5.ini" "url = http://127.0.0.1:$P/r5"
sed -i "s|^path = .*|path = $T/seg.data|" "$T/c5.ini"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --switch-output=1s --config c5.ini -- \
	"$WORKLOAD" cpu 2500 >"$T/r5.out" 2>"$T/r5.err")
check "--switch-output with http: the recording succeeds" test $? = 0
segments_match() {
	local n=0 d seg
	for d in "$T"/ng/root/r5/*/*/; do
		case $d in */buildid/*) continue ;; esac # symbols, not a session
		d=${d%/}
		seg=${d##*/}
		seg=${seg#*.}
		cp "$T/seg.data.$seg" "$T/local.data" || return 1
		same_scripts "$d" || return 1
		n=$((n + 1))
	done
	[ $n -ge 2 ] && [ $n = "$(ls "$T"/seg.data.* | wc -l)" ]
}
check "each segment's parts read like the matching aio_file segment" segments_match

bad() { # bad NAME EXPECTED-MESSAGE KEY-LINES...
	local name=$1 msg=$2; shift 2
	config "$T/$name.ini" "$@"
	(cd "$T" && timeout 60 "$PERFSINK" record -e cpu-clock --config "$name.ini" -- true \
		>"$T/$name.out" 2>"$T/$name.err")
	local rc=$?
	[ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q -- "$msg" "$T/$name.err" || return 1
	# perfsink check finds the same problem, exit 2.
	(cd "$T" && timeout 60 "$PERFSINK" check -e cpu-clock --config "$name.ini" -- true \
		>"$T/$name.cout" 2>"$T/$name.cerr")
	[ $? = 2 ] && grep -q -- "$msg" "$T/$name.cerr"
}
check "bad URL scheme: clear error" bad b1 "url scheme \"ftp\" is not http or https" "url = ftp://127.0.0.1/x"
check "URL without host: clear error" bad b2 "url \"http://\" is not a valid" "url = http://"
check "unknown mode: error with file:line" bad b3 "b3.ini:9: .*'webdav' is not accepted" \
	"url = http://127.0.0.1:$P/x" "mode = webdav"
check "unwritable spool dir: clear error" \
	env SPOOL=/dev/null/spool bash -c "$(declare -f bad config); T='$T' PERFSINK='$PERFSINK'; bad b4 'cannot spool in .*/dev/null/spool.*/dev/null.*Not a directory' 'url = http://127.0.0.1:$P/x'"
check "credentials in the URL are refused and not echoed" \
	bash -c "$(declare -f bad config); T='$T' PERFSINK='$PERFSINK'; bad b5 'must not hold credentials' 'url = http://u:hunter2@127.0.0.1/x' && ! grep -q hunter2 '$T/b5.err'"

# Collector down: the run ends after drain_timeout, parts stay in the spool.
DOWN=$(free_port)
config "$T/c3.ini" "url = http://127.0.0.1:$DOWN/r3" "drain_timeout = 1s" "backoff_base = 100ms"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c3.ini -- "$WORKLOAD" cpu 500 \
	>"$T/r3.out" 2>"$T/r3.err")
check "collector down: the recording still succeeds" test $? = 0
check "and the parts wait in the spool" test "$(find "$T/spool" -type f | wc -l)" -ge 2
nginx_stop
sed -i "s/^\(listen 127.0.0.1:\)$P/\1$DOWN/; s/listen 127.0.0.1:$P;/listen 127.0.0.1:$DOWN;/" "$T/ng/nginx.conf"
nginx_start "$T/ng"
(cd "$T" && "$PERFSINK" upload --config c3.ini >"$T/u.out" 2>"$T/u.err")
check "perfsink upload sends them" test $? = 0
check "the uploaded parts read like the local file, the spool is empty" \
	bash -c "$(declare -f same_scripts parts_cat); T='$T' PERF='$PERF'; same_scripts '$T/ng/root/r3' && test -z \"\$(find '$T/spool' -type f)\""
exit 0
