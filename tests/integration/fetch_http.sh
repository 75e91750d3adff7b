#!/bin/bash
# perfsink ls and fetch against nginx on loopback (WebDAV PROPFIND through
# Debian's dav-ext module, and the JSON autoindex fallback): a recording
# fanned out to aio_file and http comes back as a perf.data file whose
# perf report equals the local file's; gaps and corrupt parts fail naming
# the part; --follow follows a live session; ~/.debug is filled from the
# collector's buildid/ tree.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
have_dav_ext || { echo "1..0 # SKIP libnginx-mod-http-dav-ext not installed"; exit 0; }

T=$(mktemp -d /tmp/fetch_http.XXXXXX)
REC_PID=
trap '[ -n "$REC_PID" ] && kill $REC_PID 2>/dev/null; nginx_stop; wait; rm -rf "$T"' EXIT
echo "1..35"

P=$(free_port)
URL=http://127.0.0.1:$P
# /c: PROPFIND and autoindex; /plain: autoindex only (nginx without dav-ext).
NGINX_EXTRA=$NGINX_LISTING
# /tok: PROPFIND for a bearer token only.
NGINX_SERVER_EXTRA="location /plain { dav_methods PUT; create_full_put_path on; client_max_body_size 0; autoindex on; autoindex_format json; }
		location /tok { if (\$http_authorization != \"Bearer tok-789\") { return 401; } dav_ext_methods PROPFIND OPTIONS; }"
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
ROOT=$T/ng/root
WORKLOAD=$T/bin/workload   # a copy that the symbols check moves away later
mkdir -p "$T/bin" && cp "$TESTS_BUILDDIR/integration/workload" "$WORKLOAD"

config() { # config FILE LOCAL URL [http keys...]: aio_file + http sections
	local f=$1 local=$2 url=$3; shift 3
	{
		printf '[sink.local]\nplugin = aio_file\npath = %s\n' "$local"
		printf '[sink.net]\nplugin = http\nurl = %s\nspool_dir = %s\npart_size = 16K\n' "$url" "$T/spool"
		printf '%s\n' "$@"
	} > "$f"
}
# report FILE: perf report --stdio without perf's random tip line
report() { # report FILE [perf report options]
	local f=$1; shift
	HOME=${RHOME:-$HOME} "$PERF" report -i "$f" --stdio "$@" 2>/dev/null | grep -v '^# (Tip:'
}
# flat FILE: samples per comm, and the workload's per dso and symbol, in a
# fixed order (perf orders call-graph entries of equal weight as it meets
# them; -a runs have ties).  Other processes' symbols are not compared: in
# an -a session they are resolved when perf reads the file, and a JIT map
# or binary another test deletes meanwhile (tests run in parallel) turns a
# name into an address.
flat() {
	report "$1" --no-children -g none --sort comm | grep '%' | sort
	report "$1" --no-children -g none --comms workload --sort dso,sym | grep '%' | sort
}
same_flat() { flat "$1" > "$T/fa.txt" && flat "$2" > "$T/fb.txt" &&
	[ "$(wc -l < "$T/fa.txt")" -gt 3 ] && diff -q "$T/fa.txt" "$T/fb.txt" >/dev/null; }
same_report() { # same_report A B
	report "$1" > "$T/ra.txt" && report "$2" > "$T/rb.txt" &&
	[ "$(grep -c '%' "$T/ra.txt")" -gt 3 ] && diff -q "$T/ra.txt" "$T/rb.txt" >/dev/null
}
# buildid/ beside the hosts is the symbols the sink ships, not a host.
session_of() { basename "$(find "$ROOT/$1" -mindepth 2 -maxdepth 2 -type d -not -path "*/buildid/*" | head -n 1)"; }
HOST=

# ---------------------------------------------------------------- record
config "$T/c1.ini" "$T/l1.data" "$URL/c"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c1.ini -- "$WORKLOAD" cpu 800 \
	>"$T/r1.out" 2>"$T/r1.err")
check "record fanned out to aio_file and http" test $? = 0
HOST=$(ls "$ROOT/c" | grep -vx buildid)
S1=$(session_of c)
check "the end marker {session}.end says how many parts" \
	grep -Eqx "\{\"parts\": $(ls "$ROOT/c/$HOST/$S1" | wc -l), \"start_ns\": [0-9]+, \"end_ns\": [0-9]+\}" "$ROOT/c/$HOST/$S1.end"
config "$T/c2.ini" "$T/l2.data" "$URL/c" "compress = zstd"
(cd "$T" && "$PERFSINK" record -e cpu-clock -e sched:sched_switch -a -F 999 -g --config c2.ini -- \
	"$WORKLOAD" cpu 800 >"$T/r2.out" 2>"$T/r2.err")
S2=$(ls "$ROOT/c/$HOST" | grep -v '\.end$' | grep -vx "$S1")

# -------------------------------------------------------------------- ls
"$PERFSINK" ls "$URL/c" >"$T/ls.out" 2>"$T/ls.err"
check "ls exits 0" test $? = 0 || sed 's/^/# /' "$T/ls.err"
row() { grep "^$HOST  *$1 " "$T/ls.out"; }
check "ls lists both sessions, ended" \
	bash -c "$(declare -f row); HOST=$HOST T=$T; row $S1 | grep -q ' ended$' && row $S2 | grep -q ' ended$'"
check "with their part count and bytes" \
	test "$(row "$S1" | awk '{print $5, $6}')" = "$(ls "$ROOT/c/$HOST/$S1" | wc -l) $(cat "$ROOT/c/$HOST/$S1"/* | wc -c)"
"$PERFSINK" ls --json "$URL/c" >"$T/ls.json"
check "ls --json gives the same sessions as JSON" \
	python3 -c "import json,sys; d=json.load(open('$T/ls.json')); s={(x['host'],x['session'],x['ended']) for x in d}; sys.exit(s != {('$HOST','$S1',True),('$HOST','$S2',True)})"
cp -r "$ROOT/c" "$ROOT/plain"
"$PERFSINK" ls "$URL/plain" >"$T/ls2.out" 2>"$T/ls2.err"
check "without PROPFIND, ls falls back to nginx's JSON autoindex" \
	diff <(cut -c1-52 "$T/ls.out") <(cut -c1-52 "$T/ls2.out")
cp -r "$ROOT/c" "$ROOT/tok"
echo tok-789 > "$T/token"
config "$T/tok.ini" "$T/unused.data" "$URL/tok" "bearer_token_file = $T/token"
"$PERFSINK" ls "$URL/tok" >"$T/ls5.out" 2>"$T/ls5.err"
check "a collector that wants a token: 401 without one" \
	bash -c "test $? = 1 && grep -q 'PROPFIND $URL/tok/: HTTP 401' '$T/ls5.err'"
"$PERFSINK" ls --config "$T/tok.ini" "$URL/tok" >"$T/ls5.out" 2>"$T/ls5.err"
check "ls --config: bearer_token_file of the http sink's section" \
	diff <(cut -c1-52 "$T/ls.out") <(cut -c1-52 "$T/ls5.out")
"$PERFSINK" ls "$URL/nothing-here" >"$T/ls3.out" 2>"$T/ls3.err"
check "ls of a URL that is not there exits 1 with the status" \
	bash -c "test $? = 1 && grep -q 'HTTP 404' '$T/ls3.err'"

# ----------------------------------------------------------------- fetch
"$PERFSINK" fetch --no-symbols -o "$T/f1.data" "$URL/c/$HOST/$S1" >"$T/f1.out" 2>"$T/f1.err"
check "fetch exits 0" test $? = 0 || sed 's/^/# /' "$T/f1.err"
check "the file is file mode (not a pipe stream)" \
	test "$(od -An -t u8 -j 8 -N 8 "$T/f1.data" | tr -d ' ')" = 104
check "perf report of the fetched file equals that of the local aio_file copy" \
	same_report "$T/f1.data" "$T/l1.data" || diff "$T/ra.txt" "$T/rb.txt" | head -n 5 | sed 's/^/# /'
cp "$T/f1.data" "$T/f1.copy"
"$PERFSINK" fetch --no-symbols -o "$T/f1.data" "$URL/c/$HOST/$S1" >/dev/null 2>&1
check "fetching again keeps the former file as FILE.old" cmp -s "$T/f1.copy" "$T/f1.data.old"
echo precious > "$T/target"
ln -s "$T/target" "$T/link.data"
"$PERFSINK" fetch --no-symbols -o "$T/link.data" "$URL/c/$HOST/$S1" >/dev/null 2>"$T/link.err"
check "an output that is a symlink is refused (exit 2), its target untouched" \
	bash -c "test $? = 2 && grep -qE 'not a regular file|symbolic link' '$T/link.err' && test \"\$(cat '$T/target')\" = precious"
"$PERFSINK" fetch --no-symbols -o "$T/f2.data" "$URL/c/$HOST/$S2" >"$T/f2.out" 2>"$T/f2.err"
check "a compressed -a tracepoint session: the same samples per comm, dso, symbol" \
	same_flat "$T/f2.data" "$T/l2.data" || diff "$T/fa.txt" "$T/fb.txt" | head -n 8 | sed 's/^/# /'
check "and stays compressed (COMPRESSED feature, smaller)" \
	bash -c "'$PERF' report -i '$T/f2.data' --header-only | grep -q '^# compressed : Zstd' &&
		test $(stat -c %s "$T/f2.data") -lt $(stat -c %s "$T/l2.data")"
"$PERFSINK" fetch --no-symbols --decompress -o "$T/f3.data" "$URL/c/$HOST/$S2" >"$T/f3.out" 2>"$T/f3.err"
check "--decompress: no COMPRESSED feature" \
	fails bash -c "'$PERF' report -i '$T/f3.data' --header-only | grep -q '^# compressed'"
check "and the same samples" same_flat "$T/f3.data" "$T/l2.data" ||
	diff "$T/fa.txt" "$T/fb.txt" | head -n 8 | sed 's/^/# /'

# perf's own -z pipe stream as a one-part session: its zstd frames span
# COMPRESSED records (perfsink's do not), --decompress must still cut them.
mkdir -p "$ROOT/c/$HOST/perfz"
"$PERF" record -q -z -g -F 999 -o - -- "$TESTS_BUILDDIR/integration/workload" cpu 500 \
	> "$ROOT/c/$HOST/perfz/0000000000" 2>/dev/null
echo '{"parts": 1}' > "$ROOT/c/$HOST/perfz.end"
"$PERFSINK" fetch --no-symbols --decompress -o "$T/pz.data" "$URL/c/$HOST/perfz" >"$T/pz.out" 2>"$T/pz.err"
flat_pipe() { # flat of a pipe-mode stream, read as perf reads one: on stdin
	report - --no-children -g none --sort comm < "$1" | grep '%' | sort
	report - --no-children -g none --comms workload --sort dso,sym < "$1" | grep '%' | sort
}
perfz_ok() {
	flat_pipe "$ROOT/c/$HOST/perfz/0000000000" > "$T/pza.txt" && flat "$T/pz.data" > "$T/pzb.txt" &&
	[ "$(wc -l < "$T/pza.txt")" -gt 3 ] && diff -q "$T/pza.txt" "$T/pzb.txt" >/dev/null
}
check "perf record -z's own pipe stream, --decompress: the samples of perf report -i -" perfz_ok ||
	diff "$T/pza.txt" "$T/pzb.txt" | head -n 8 | sed 's/^/# /'

# --------------------------------------------------- gaps and corruption
sess_copy() { # sess_copy NAME: a copy of S1 under another session name
	cp -r "$ROOT/c/$HOST/$S1" "$ROOT/c/$HOST/$1" && cp "$ROOT/c/$HOST/$S1.end" "$ROOT/c/$HOST/$1.end"
}
sess_copy gap
rm "$ROOT/c/$HOST/gap/0000000002"
"$PERFSINK" fetch --no-symbols -o "$T/g.data" "$URL/c/$HOST/gap" >"$T/g.out" 2>"$T/g.err"
check "a deleted part: fetch exits 1" test $? = 1
check "naming the gap" grep -q "gap: part 0000000002 of $HOST/gap is missing" "$T/g.err" ||
	sed 's/^/# /' "$T/g.err"
check "the rest is still a readable file" bash -c "'$PERF' report -i '$T/g.data' --stdio >/dev/null 2>&1"
sess_copy tail
last=$(ls "$ROOT/c/$HOST/tail" | tail -n 1)
rm "$ROOT/c/$HOST/tail/$last"
"$PERFSINK" fetch --no-symbols -o "$T/t.data" "$URL/c/$HOST/tail" >"$T/t.out" 2>"$T/t.err"
check "a deleted last part is a gap too (the end marker counts the parts)" \
	bash -c "test $? = 1 && grep -q 'gap: part $last .*end marker says' '$T/t.err'"
sess_copy bad
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(6); f.write(b"\x03\x00")' "$ROOT/c/$HOST/bad/0000000001"
"$PERFSINK" fetch --no-symbols -o "$T/b.data" "$URL/c/$HOST/bad" >"$T/b.out" 2>"$T/b.err"
check "a corrupt part: exit 1, reported with the reason" \
	bash -c "test $? = 1 && grep -q 'corrupt part: $HOST/bad/0000000001 .*record at offset 0 has size 3' '$T/b.err'" ||
	sed 's/^/# /' "$T/b.err"
"$PERFSINK" ls "$URL/c" > "$T/ls4.out"
check "ls shows a session with a gap as incomplete" grep -q "^$HOST  *gap .* incomplete$" "$T/ls4.out"

# ---------------------------------------------------------------- follow
config "$T/c5.ini" "$T/l5.data" "$URL/live" "max_latency = 200ms"
(cd "$T" && exec "$PERFSINK" record -e cpu-clock -F 999 -g --config c5.ini -- "$WORKLOAD" cpu 4000 \
	>"$T/r5.out" 2>"$T/r5.err") &
REC_PID=$!
wait_for 60 has_files "$ROOT/live" 2
S5=$(session_of live)
"$PERFSINK" fetch --follow --interval 200ms --no-symbols -o "$T/f5.data" "$URL/live/$HOST/$S5" \
	>"$T/f5.out" 2>"$T/f5.err" &
FETCH_PID=$!
readable_live() { # the file reads with samples while the recording still runs
	kill -0 "$REC_PID" 2>/dev/null &&
	[ "$("$PERF" script -i "$T/f5.data" -F ip 2>/dev/null | wc -l)" -gt 50 ] && kill -0 "$REC_PID"
}
check "--follow: the file is readable, with samples, while the session is recorded" wait_for 60 readable_live
wait "$REC_PID"
REC_PID=
check "--follow ends by itself once the end marker arrives" wait_for 60 bash -c "! kill -0 $FETCH_PID 2>/dev/null"
wait "$FETCH_PID"
check "with exit 0" test $? = 0 || sed 's/^/# /' "$T/f5.err"
check "and the followed file's report equals the local file's" same_report "$T/f5.data" "$T/l5.data"

sess_copy open
rm "$ROOT/c/$HOST/open.end"
"$PERFSINK" fetch --follow --interval 100ms --no-symbols -o "$T/f6.data" "$URL/c/$HOST/open" \
	>"$T/f6.out" 2>"$T/f6.err" &
FETCH_PID=$!
wait_for 60 bash -c "'$PERF' report -i '$T/f6.data' --stdio >/dev/null 2>&1"
kill -INT "$FETCH_PID"
wait "$FETCH_PID"
rc=$?
sigint_ok() { [ "$rc" = 0 ] && same_report "$T/f6.data" "$T/l1.data"; }
check "--follow of a session without an end marker stops on SIGINT, exit 0, file complete" sigint_ok

# --------------------------------------------------------------- symbols
# The stream ends with HEADER_BUILD_ID records (the sink sends them as its
# last part); the binary is placed in buildid/ by hand here, as the sink's
# symbol shipping will upload it.
BID=$(readelf -n "$WORKLOAD" | awk '/Build ID/ { print $3 }')
check "the fetched file lists the program's build-id (BUILD_ID from the stream)" \
	grep -q "^$BID $WORKLOAD\$" <("$PERF" buildid-list -i "$T/f1.data" 2>/dev/null)
mkdir -p "$ROOT/c/buildid/$BID"
cp "$WORKLOAD" "$ROOT/c/buildid/$BID/executable"
# The program's own samples: dso workload, by symbol
own() { report "$1" --no-children --sort dso,sym -g none | grep ' workload  '; }
own "$T/l1.data" > "$T/before.txt"   # symbols as on the recording host
mv "$WORKLOAD" "$T/workload.moved"
mkdir "$T/home" "$T/home2"
RHOME=$T/home2 "$PERFSINK" fetch --no-symbols -o "$T/s0.data" "$URL/c/$HOST/$S1" >/dev/null 2>&1
RHOME=$T/home2 own "$T/s0.data" > "$T/nosym.txt"
check "without the binary and without symbols, the report misses the program's functions" \
	bash -c "test -s '$T/nosym.txt' && ! grep -q hot_alpha '$T/nosym.txt'"
HOME=$T/home "$PERFSINK" fetch -o "$T/s1.data" "$URL/c/$HOST/$S1" >"$T/s1.out" 2>"$T/s1.err"
check "fetch fills ~/.debug from buildid/ (perf's layout)" \
	bash -c "cmp -s '$T/home/.debug/.build-id/${BID:0:2}/${BID:2}/elf' '$T/workload.moved' &&
		grep -q 'symbols: [1-9][0-9]* files, .* fetched' '$T/s1.err'" || sed 's/^/# /' "$T/s1.err"
RHOME=$T/home own "$T/s1.data" > "$T/after.txt"
check "and perf report names the program's functions as on the recording host" \
	bash -c "grep -q hot_alpha '$T/before.txt' && diff -q '$T/before.txt' '$T/after.txt' >/dev/null" ||
	diff "$T/before.txt" "$T/after.txt" | head -n 6 | sed 's/^/# /'
exit $tap_fail
