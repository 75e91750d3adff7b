#!/bin/bash
# A session recorded while the collector is down, sent later by `perfsink
# upload`: its end marker waits in the spool after its tail and is sent
# last, so `perfsink ls` shows it ended and `perfsink fetch` gives a file
# that reports like the run's aio_file copy, with its build-ids; the
# symbols the run could not ship are shipped by upload.  A recorder killed
# with -9 leaves no end marker; a tampered marker is quarantined, not sent.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_spool_end.XXXXXX)
REC_PID= WL_PID= MOTO_PID=
trap '[ -n "$REC_PID" ] && kill -9 $REC_PID $WL_PID 2>/dev/null; [ -n "$MOTO_PID" ] && kill $MOTO_PID 2>/dev/null
	nginx_stop; wait; rm -rf "$T"' EXIT
echo "1..25"

P=$(free_port)
URL=http://127.0.0.1:$P/c
# ls and fetch list the collector: PROPFIND with dav-ext, else the JSON autoindex.
if have_dav_ext; then NGINX_EXTRA=$NGINX_LISTING; else NGINX_EXTRA="autoindex on; autoindex_format json;"; fi
nginx_conf "$T/ng" "$P"
ROOT=$T/ng/root/c
SPOOL=$T/spool/net
WORKLOAD=$TESTS_BUILDDIR/integration/workload
export HOME=$T/home # record fills a build-id cache
mkdir -p "$HOME"

config() { # config FILE LOCAL: aio_file + http with a spool
	printf '[sink.local]\nplugin = aio_file\npath = %s\n' "$2" > "$1"
	printf '[sink.net]\nplugin = http\nurl = %s\nspool_dir = %s\npart_size = 8K\n' "$URL" "$T/spool" >> "$1"
	printf 'drain_timeout = 1s\nbackoff_base = 100ms\nbackoff_cap = 500ms\n' >> "$1"
}
report() { "$PERF" report -i "$1" --stdio 2>/dev/null | grep -v '^# (Tip:'; }
same_report() { # same_report A B: perf report of both equal, and not empty
	report "$1" > "$T/ra.txt" && report "$2" > "$T/rb.txt" &&
	[ "$(grep -c '%' "$T/ra.txt")" -gt 3 ] && diff -q "$T/ra.txt" "$T/rb.txt" >/dev/null
}
show() { sed 's/^/# /' "$1" | head -n 40; }
sessions() { ls "$SPOOL/$HOST" 2>/dev/null; }
spool_parts() { find "$SPOOL/$HOST/$1" -type f -regextype posix-extended -regex '.*/[0-9]{10,19}' 2>/dev/null | wc -l; }
ls_row() { grep "^$HOST  *$1 " "$T/ls.out"; }

# ------------------------------------------- 1. a clean run, collector down
config "$T/c.ini" "$T/l1.data"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c.ini -- "$WORKLOAD" cpu 500 \
	>"$T/r1.out" 2>"$T/r1.err")
check "collector down: the recording succeeds" test $? = 0 || show "$T/r1.err"
HOST=$(ls "$SPOOL")
S1=$(sessions)
N1=$(spool_parts "$S1")
check "its parts ($N1) and its end marker wait in the spool" \
	bash -c "test $N1 -ge 3 && test -f '$SPOOL/$HOST/$S1/end'"
check "the spooled marker says how many parts the stream has" \
	grep -Eqx "\{\"parts\": $N1, \"start_ns\": [0-9]+, \"end_ns\": [0-9]+\}" "$SPOOL/$HOST/$S1/end"
check "the run says the end marker waits, and what ls shows until it is sent" \
	grep -q "parts ([0-9]* bytes) and 1 end marker not sent; they wait in $SPOOL .*(until then \`perfsink ls\` shows the session not ended)" "$T/r1.err" ||
	show "$T/r1.err"
check "the symbols it could not ship are counted and said" \
	bash -c "grep -Eq 'symbols: 0 files shipped .* ([1-9][0-9]* failed|[1-9][0-9]* not tried)' '$T/r1.err' &&
		grep -q 'the symbols not shipped go with the stream.s build-id part, which waits in the spool' '$T/r1.err'"

# ------------------------------------- 2. a recorder killed with -9, down
config "$T/k.ini" "$T/l2.data"
(cd "$T" && exec "$PERFSINK" record -e cpu-clock -F 999 --config k.ini -- "$WORKLOAD" cpu 60000 \
	>"$T/r2.out" 2>"$T/r2.err") &
REC_PID=$!
killed_spooled() { local s; s=$(sessions | grep -vx "$S1"); [ -n "$s" ] && [ "$(spool_parts "$s")" -ge 2 ]; }
wait_for 60 killed_spooled || echo "# the killed run spooled nothing"
WL_PID=$(ps -o pid= --ppid "$REC_PID")
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null
[ -n "$WL_PID" ] && kill -9 $WL_PID 2>/dev/null
REC_PID= WL_PID=
S2=$(sessions | grep -vx "$S1")
check "kill -9: the parts are spooled, no end marker" \
	bash -c "test -n '$S2' && test $(spool_parts "$S2") -ge 2 && ! test -e '$SPOOL/$HOST/$S2/end'"

# ------------------------------------------------- 3. upload, then ls/fetch
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
(cd "$T" && timeout 120 "$PERFSINK" upload --config c.ini >"$T/u.out" 2>"$T/u.err")
check "perfsink upload exits 0" test $? = 0 || show "$T/u.err"
check "it says it sent the parts and one end marker" \
	grep -q "sent [0-9]* parts ([0-9]* bytes) and 1 end marker, .* left 0 parts and 0 end markers" "$T/u.err" ||
	show "$T/u.err"
check "the spool is empty" test -z "$(find "$T/spool" -type f)"
check "the collector has every part and the marker beside them" \
	bash -c "test \$(ls '$ROOT/$HOST/$S1' | wc -l) = $N1 && grep -q '^{\"parts\": $N1, ' '$ROOT/$HOST/$S1.end'"
# The marker tells a reader the stream is whole: it must come after the parts.
last_put() { grep -o "PUT /c/$HOST/$1[^ ]*" "$T/ng/access.log" | tail -n 1; }
check "the marker was the session's last PUT" test "$(last_put "$S1")" = "PUT /c/$HOST/$S1.end" ||
	grep "PUT /c/$HOST/$S1" "$T/ng/access.log" | tail -n 3 | sed 's/^/# /'
check "the killed session got its parts and no marker" \
	bash -c "test \$(ls '$ROOT/$HOST/$S2' | wc -l) -ge 2 && ! test -e '$ROOT/$HOST/$S2.end'"
"$PERFSINK" ls "$URL" >"$T/ls.out" 2>"$T/ls.err"
check "ls: the uploaded session is ended" bash -c "$(declare -f ls_row); HOST=$HOST T=$T; ls_row $S1 | grep -q ' ended$'" ||
	show "$T/ls.out"
check "ls: the killed one is not" bash -c "$(declare -f ls_row); HOST=$HOST T=$T; ls_row $S2 | grep -q ' open$'"
"$PERFSINK" fetch --no-symbols -o "$T/f1.data" "$URL/$HOST/$S1" >"$T/f1.out" 2>"$T/f1.err"
check "fetch of the uploaded session exits 0, with no warning" \
	bash -c "test $? = 0 && ! grep -q warning '$T/f1.err'" || show "$T/f1.err"
check "perf report of the fetched file equals that of the aio_file copy" \
	same_report "$T/f1.data" "$T/l1.data" || diff "$T/ra.txt" "$T/rb.txt" | head -n 5 | sed 's/^/# /'
"$PERF" buildid-list -i "$T/l1.data" 2>/dev/null | sort > "$T/bl.txt"
"$PERF" buildid-list -i "$T/f1.data" 2>/dev/null | sort > "$T/bf.txt"
check "and has the run's build-ids (the build-id part was spooled and sent)" \
	bash -c "grep -q workload '$T/bl.txt' && diff -q '$T/bl.txt' '$T/bf.txt' >/dev/null"
WBID=$(awk '/workload/ {print $1}' "$T/bl.txt")
check "upload shipped the symbols the run could not (the workload's executable)" \
	bash -c "test -n '$WBID' && cmp -s '$WORKLOAD' '$ROOT/buildid/$WBID/executable' &&
		grep -Eq 'symbols: [1-9][0-9]* files shipped' '$T/u.err'" || show "$T/u.err"
"$PERFSINK" fetch --no-symbols -o "$T/f2.data" "$URL/$HOST/$S2" >"$T/f2.out" 2>"$T/f2.err"
check "fetch of the killed session warns that it has no end marker" \
	grep -q "$HOST/$S2 has no end marker" "$T/f2.err"

# ---------------------------------------- 4. a tampered marker is not sent
nginx_stop
config "$T/t.ini" "$T/l3.data"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 --config t.ini -- "$WORKLOAD" cpu 300 \
	>"$T/r3.out" 2>"$T/r3.err")
S3=$(sessions | grep -vx "$S1" | grep -vx "$S2")
echo '{"parts": 1}' > "$SPOOL/$HOST/$S3/end"
nginx_start "$T/ng"
(cd "$T" && timeout 120 "$PERFSINK" upload --config t.ini >"$T/u3.out" 2>"$T/u3.err")
check "upload exits 1 when it quarantined a marker" test $? = 1 || show "$T/u3.err"
check "a warning names the marker and why" \
	grep -q "warning: spool $SPOOL/$HOST/$S3/end: says 1 parts, but part 00000000[0-9]* was in the spool: moved to $T/spool/quarantine/net/$HOST/$S3/end" "$T/u3.err" ||
	show "$T/u3.err"
check "the parts were sent, the marker was not" \
	bash -c "test \$(ls '$ROOT/$HOST/$S3' | wc -l) -ge 2 && ! test -e '$ROOT/$HOST/$S3.end' &&
		test -f '$T/spool/quarantine/net/$HOST/$S3/end'"

# ------------------------------------------ 5. the same in s3 mode (moto)
if ! command -v moto_server >/dev/null || ! python3 -c 'import boto3' 2>/dev/null; then
	for i in 1 2 3; do ok "# SKIP moto_server or boto3 not installed"; done
	exit 0
fi
MP=$(free_port)
EP=http://127.0.0.1:$MP
INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$MP" >"$T/moto.log" 2>&1 &
MOTO_PID=$!
wait_port "$MP" || { echo "Bail out! moto_server did not start"; exit 1; }
read -r KID SECRET < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "$EP" bkt)
printf '[p]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$KID" "$SECRET" > "$T/credentials"
s3config() { # s3config FILE ENDPOINT: an s3 sink; the spool is the same whatever the endpoint
	printf '[sink.bkt]\nplugin = http\nmode = s3\nurl = %s\nbucket = bkt\nprefix = runs\n' "$2" > "$1"
	printf 'path_style = true\ncredentials_file = %s\nprofile = p\nspool_dir = %s\n' "$T/credentials" "$T/spool" >> "$1"
	printf 'part_size = 8K\ndrain_timeout = 1s\nbackoff_base = 100ms\nsymbols = none\n' >> "$1"
}
s3config "$T/s3down.ini" "http://127.0.0.1:$(free_port)"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 --config s3down.ini -- "$WORKLOAD" cpu 300 \
	>"$T/r5.out" 2>"$T/r5.err")
S5=$(ls "$T/spool/bkt/$HOST" 2>/dev/null)
check "s3, endpoint down: the parts and the end marker wait in the spool" \
	bash -c "test -n '$S5' && test -f '$T/spool/bkt/$HOST/$S5/end'" || show "$T/r5.err"
s3config "$T/s3.ini" "$EP"
(cd "$T" && timeout 120 "$PERFSINK" upload --config s3.ini >"$T/u5.out" 2>"$T/u5.err")
check "upload to the bucket exits 0 and sends the end marker" \
	bash -c "test $? = 0 && grep -q 'and 1 end marker, ' '$T/u5.err'" || show "$T/u5.err"
"$PERFSINK" ls --config "$T/s3.ini" s3://bkt/runs >"$T/ls5.out" 2>"$T/ls5.err"
check "ls s3://bkt/runs: the session is ended" grep -q "^$HOST  *$S5 .* ended$" "$T/ls5.out" ||
	show "$T/ls5.out"
exit 0
