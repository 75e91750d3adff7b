#!/bin/bash
# Separate debug files found through .gnu_debuglink (issue 31): a program
# stripped with its debug info in bin/.debug/NAME.debug (objcopy
# --only-keep-debug, --add-gnu-debuglink), where gdb and perf look, and not
# under /usr/lib/debug/.build-id.  The http sink ships that file as
# buildid/<id>/debuginfo and counts it; a file of that name whose CRC32 is
# not the link's (bin/NAME.debug, the first place looked at) is passed
# over; after `perfsink fetch` on a fresh HOME, with the program gone,
# perf report names the program's functions from the debug file alone.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null && command -v objcopy >/dev/null ||
	{ echo "1..0 # SKIP no cc or objcopy to build the test program"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (nginx as root)"; exit 0; }

T=$(mktemp -d /tmp/symbols_debuglink.XXXXXX)
chmod 755 "$T" # debug files are read at their path only when anyone may read them there
export HOME=$T/home
mkdir -p "$HOME"
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..6"
collector_start "$T/ng"
mkdir -p "$T/bin/.debug"
cc -O1 -g -Wl,--build-id -o "$T/bin/sym_prog" "$TESTS_SRCDIR/integration/sym_prog.c" &&
	objcopy --only-keep-debug "$T/bin/sym_prog" "$T/bin/.debug/sym_prog.debug" &&
	objcopy --strip-all "$T/bin/sym_prog" &&
	(cd "$T/bin/.debug" && objcopy --add-gnu-debuglink=sym_prog.debug "$T/bin/sym_prog") ||
	{ echo "Bail out! cannot build the stripped sym_prog and its debug file"; exit 1; }
# The first place looked at holds a file of that name with other bytes.
echo "not the debug file" >"$T/bin/sym_prog.debug"
chmod 644 "$T/bin/.debug/sym_prog.debug" "$T/bin/sym_prog.debug"
ID=$(LC_ALL=C readelf -n "$T/bin/sym_prog" | awk '/Build ID/ {print $3}')

printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\n' "$P" "$T" >"$T/net.ini"
"$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/net.ini" -- "$T/bin/sym_prog" 400 \
	>"$T/rec.out" 2>"$T/rec.err"
check "a recording of the stripped program succeeds" test $? = 0 || sed 's/^/# /' "$T/rec.err"
check "its debug file (bin/.debug/sym_prog.debug) is at buildid/$ID/debuginfo, byte for byte" \
	cmp -s "$ROOT/c/buildid/$ID/debuginfo" "$T/bin/.debug/sym_prog.debug"
check "the summary counts it as found through .gnu_debuglink" \
	grep -q 'symbols: [0-9]* files shipped ([0-9]* bytes, [0-9]* replacing a stripped upload, 1 debug files found through .gnu_debuglink)' "$T/rec.err" ||
	grep 'symbols:' "$T/rec.err" | sed 's/^/# /'
check "the stripped program itself is there too (executable)" \
	cmp -s "$ROOT/c/buildid/$ID/executable" "$T/bin/sym_prog"

# Another machine: a fresh HOME, the program and its debug files gone.
rm -rf "$T/bin" "$HOME/.debug"
S=$(one_session "$ROOT/c")
"$PERFSINK" fetch -o "$T/got.data" "http://127.0.0.1:$P/c/$S" >"$T/fetch.out" 2>"$T/fetch.err"
check "fetch puts the debug file in the build-id cache" \
	bash -c "test $? = 0 && test -f '$HOME/.debug/.build-id/${ID:0:2}/${ID:2}/debug'" || sed 's/^/# /' "$T/fetch.err"
"$PERF" report -i "$T/got.data" --stdio --no-children --sort sym 2>/dev/null >"$T/report.txt"
check "perf report names the stripped program's functions from it" \
	grep -q 'sym_alpha_work\|sym_beta_work' "$T/report.txt" || head -20 "$T/report.txt" | sed 's/^/# /'
exit $tap_fail
