#!/bin/bash
# Symbol shipping bounded (issue 31): a workload that maps many libraries
# (python3 importing ssl, sqlite3, lzma, bz2, decimal, ...) but samples in
# few.  By default (symbols = sampled) the http sink ships, to a real nginx
# collector, exactly the files samples fell in: every DSO perf finds hits
# in (perf buildid-list -H on a file sink's copy of the same recording)
# is on the collector, and none the recording only mapped.  symbols = all
# ships every mapped file.  symbols_budget stops at the budget and counts
# the rest as skipped.  The counters are the same in the summary line,
# --summary-json and the --stats-file, and `perfsink ls` shows the
# session's symbol bytes.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root for perf_event_open"; exit 0; }
PY=/usr/bin/python3
[ -x $PY ] || { echo "1..0 # SKIP no $PY"; exit 0; }

diag() { printf "%s\n" "$@" | sed "s/^/# /"; }
show() { sed "s/^/# /" "$1"; }
T=$(mktemp -d /tmp/symbols_sampled.XXXXXX)
export HOME=$T/home # perfsink record fills $HOME/.debug: this test's own
mkdir -p "$HOME"
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..18"
collector_start "$T/ng"

# Many libraries mapped, the time spent in python3, libc and the kernel.
WORK='import ssl, sqlite3, lzma, bz2, decimal, json, ctypes, hashlib, socket, zlib
x = 0
for i in range(1500000): x += i'

record() { # record NAME URL-PATH [keys...]: an http sink and a file sink
	local name=$1 path=$2; shift 2
	{
		printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/%s\nspool_dir = %s/spool\n' \
			"$P" "$path" "$T"
		for k in "$@"; do printf '%s\n' "$k"; done
		printf '[sink.file]\nplugin = file\npath = %s/%s.data\n' "$T" "$name"
	} > "$T/$name.ini"
	"$PERFSINK" record -e cpu-clock -F 999 --config "$T/$name.ini" \
		--summary-json "$T/$name.json" --stats-file "$T/$name.prom" -- $PY -c "$WORK" \
		>"$T/$name.out" 2>"$T/$name.err"
}
executables() { find "$ROOT/$1/buildid" -name executable 2>/dev/null | awk -F/ '{print $(NF-1)}' | sort; }
# summary NAME: "files bytes skipped" from the summary line's symbols
summary() { sed -n 's/.*symbols: \([0-9]*\) files (\([0-9]*\) bytes) shipped\(, \([0-9]*\) skipped\)\{0,1\}.*/\1 \2 \4/p' "$T/$1.err" | sed 's/ $/ 0/'; }
json() { python3 -c 'import json,sys
s=[k for k in json.load(open(sys.argv[1]))["sinks"] if k["name"]=="net"][0]["symbols"]
print(s["files"], s["bytes"], s["skipped"])' "$T/$1.json"; }
prom() {
	local f
	for f in shipped_files shipped_bytes skipped_files; do
		sed -n "s/^perfsink_symbols_${f}_total{sink=\"net\".*} \([0-9]*\)$/\1/p" "$T/$1.prom"
	done | paste -sd' '
}

record a def
check "a recording with the http and file sinks succeeds" test $? = 0 || show "$T/a.err"
"$PERF" buildid-list -i "$T/a.data" 2>/dev/null | awk '{print $1}' | sort -u > "$T/mapped"
"$PERF" buildid-list -H -i "$T/a.data" 2>/dev/null | awk '{print $1}' | sort -u > "$T/hit"
executables def > "$T/shipped"
diag "mapped $(wc -l < "$T/mapped"), with samples $(wc -l < "$T/hit"), shipped $(wc -l < "$T/shipped")"
check "the workload maps many more files than samples fell in" \
	test "$(wc -l < "$T/mapped")" -ge $(($(wc -l < "$T/hit") + 5))
check "every file samples fell in is on the collector (perf report names them)" \
	test -z "$(comm -23 "$T/hit" "$T/shipped")" || diag "missing: $(comm -23 "$T/hit" "$T/shipped")"
check "no file only mapped is shipped by default" \
	test -z "$(comm -13 "$T/hit" "$T/shipped")" || diag "extra: $(comm -13 "$T/hit" "$T/shipped")"
ONE=$(comm -23 "$T/mapped" "$T/hit" | head -n 1)
check "e.g. $("$PERF" buildid-list -i "$T/a.data" 2>/dev/null | awk -v id="$ONE" '$1 == id {print $2}'), mapped, not sampled, is not on the collector" \
	test -n "$ONE" -a ! -e "$ROOT/def/buildid/$ONE/executable"
check "the summary counts the files mapped but not sampled" \
	grep -q "[0-9][0-9]* mapped but not sampled" "$T/a.err"
S=$(summary a)
check "summary, --summary-json and --stats-file count the same symbols ($S)" \
	test -n "$S" -a "$S" = "$(json a)" -a "$S" = "$(prom a)" ||
	diag "summary '$S' json '$(json a)' stats '$(prom a)'"
read -r files bytes _ <<< "$S"
check "the bytes counted are the executables' bytes on the collector" \
	test "$bytes" -ge "$(find "$ROOT/def/buildid" -name executable -printf '%s\n' | awk '{s+=$1} END {print s+0}')"

"$PERFSINK" ls "http://127.0.0.1:$P/def" >"$T/ls.out" 2>"$T/ls.err"
check "perfsink ls shows the session's symbol bytes ($bytes)" \
	test "$(awk 'NR == 1 {print $9} NR == 2 {print $7}' "$T/ls.out" | paste -sd' ')" = "SYMBOLS $bytes" ||
	show "$T/ls.out"
"$PERFSINK" ls --json "http://127.0.0.1:$P/def" >"$T/ls.json"
check "and ls --json as symbol_bytes" \
	python3 -c "import json,sys; sys.exit(json.load(open('$T/ls.json'))[0]['symbol_bytes'] != $bytes)"

record b all "symbols = all"
check "symbols = all: the recording succeeds" test $? = 0 || show "$T/b.err"
"$PERF" buildid-list -i "$T/b.data" 2>/dev/null | awk '{print $1}' | sort -u > "$T/mapped_b"
executables all > "$T/shipped_b"
check "symbols = all ships every mapped file" test -z "$(comm -23 "$T/mapped_b" "$T/shipped_b")" ||
	diag "missing: $(comm -23 "$T/mapped_b" "$T/shipped_b")"
read -r files_b bytes_b _ <<< "$(summary b)"
check "and more bytes than the default ($bytes_b > $bytes)" test "${bytes_b:-0}" -gt "$bytes"

# A budget a little over the smallest file: some shipped, the rest skipped.
record c budget "symbols = all" "symbols_budget = 300K"
check "symbols_budget: the recording succeeds" test $? = 0 || show "$T/c.err"
S=$(summary c)
read -r files_c bytes_c skipped_c <<< "$S"
check "no more than the budget is shipped ($bytes_c bytes)" test "${bytes_c:-1}" -le $((300 * 1024))
check "the rest is counted as skipped ($skipped_c)" test "${skipped_c:-0}" -ge 5
check "summary, --summary-json and --stats-file agree on it ($S)" \
	test "$S" = "$(json c)" -a "$S" = "$(prom c)" || diag "json '$(json c)' stats '$(prom c)'"
check "the collector holds no more than the budget" \
	test "$(find "$ROOT/budget/buildid" -type f -not -path "*/sessions/*" -printf '%s\n' 2>/dev/null | awk '{s+=$1} END {print s+0}')" -le $((300 * 1024))
exit $tap_fail
