#!/bin/bash
# Symbol shipping by the http sink, against nginx (and moto S3) on
# loopback: after a recording of a program built into a temp dir, the
# collector has buildid/<id>/executable for it (and the kernel's symbol
# table); a second recording sends no symbol bytes again; symbols_max
# keeps big files back; a stripped upload is replaced by the file with
# symbols, never the other way round; a JIT map is shipped with the
# session; symbols = none sends nothing.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }

T=$(mktemp -d /tmp/http_symbols.XXXXXX)
trap 'nginx_stop; rm -rf "$T"; rm -f /tmp/perf-$JIT_PID.map' EXIT
echo "1..18"

P=$(free_port)
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
mkdir "$T/bin"
cc -O1 -g -Wl,--build-id -o "$T/bin/sym_prog" "$TESTS_SRCDIR/integration/sym_prog.c" ||
	{ echo "Bail out! cannot build sym_prog"; exit 1; }
ID=$(LC_ALL=C readelf -n "$T/bin/sym_prog" | awk '/Build ID/ {print $3}')
KID=$("$PERF" buildid-list -k 2>/dev/null)

record() { # record NAME URL-PATH [keys...] -- PROGRAM ARGS: record into the collector
	local name=$1 path=$2; shift 2
	{
		printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/%s\nspool_dir = %s/spool\n' \
			"$P" "$path" "$T"
		while [ "$1" != -- ]; do printf '%s\n' "$1"; shift; done
	} > "$T/$name.ini"
	shift
	"$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/$name.ini" -- "$@" >"$T/$name.out" 2>"$T/$name.err"
}
# shipped NAME: the summary's "N files shipped (B bytes" as "N B"
shipped() { sed -n 's/.*symbols: \([0-9]*\) files shipped (\([0-9]*\) bytes.*/\1 \2/p' "$T/$1.err"; }
counted() { grep -o "[0-9]* $2" "$T/$1.err" | cut -d' ' -f1; } # counted NAME WHAT

record a c -- "$T/bin/sym_prog" 300
check "a recording with the http sink succeeds" test $? = 0 || sed 's/^/# /' "$T/a.err"
B=$T/ng/root/c/buildid
check "the collector has buildid/<id>/executable of the program, byte for byte" \
	cmp -s "$B/$ID/executable" "$T/bin/sym_prog"
check "and the kernel's symbol table under the running kernel's build-id" \
	bash -c "test -n '$KID' && head -n 1 '$B/$KID/executable' | grep -Eq '^[0-9a-f]+ [A-Za-z] '"
# The separate debug files this host has for what the program mapped (libc's, when libc6-dbg is in).
debug_shipped() {
	local d id n=0
	for d in "$B"/*/; do
		id=$(basename "$d")
		[ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] || continue
		cmp -s "$d/debuginfo" "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}
if ls /usr/lib/debug/.build-id/*/*.debug >/dev/null 2>&1; then
	check "each separate debug file the host has is at buildid/<id>/debuginfo, byte for byte" debug_shipped
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP no /usr/lib/debug/.build-id on this host"
fi
read -r n1 b1 < <(shipped a)
check "the summary counts what was shipped ($n1 files, $b1 bytes)" test "${n1:-0}" -ge 2 -a "${b1:-0}" -gt 0 ||
	sed 's/^/# /' "$T/a.err"
echo "# symbols of one recording of the test program: $n1 files, $b1 bytes"

record a2 c -- "$T/bin/sym_prog" 300
read -r n2 b2 < <(shipped a2)
check "a second recording of the same binaries ships no symbol bytes" test "$n2" = 0 -a "$b2" = 0 ||
	sed 's/^/# /' "$T/a2.err"
check "and counts them as already on the collector" test "$(counted a2 'already on the collector')" -ge 2

record cap c2 "symbols_max = 4K" -- "$T/bin/sym_prog" 300
check "symbols_max: files over the cap are not shipped" test ! -e "$T/ng/root/c2/buildid/$ID"
check "and are counted" test "$(counted cap 'over symbols_max')" -ge 1 || sed 's/^/# /' "$T/cap.err"

# A stripped copy has the same build-id.  Shipped first, it is replaced by
# the file with symbols; shipped after, it replaces nothing.
strip -o "$T/bin/stripped" "$T/bin/sym_prog"
record s1 c3 -- "$T/bin/stripped" 300
check "a stripped binary is shipped as it is" cmp -s "$T/ng/root/c3/buildid/$ID/executable" "$T/bin/stripped"
record s2 c3 -- "$T/bin/sym_prog" 300
check "the same build-id with symbols replaces the stripped upload" \
	cmp -s "$T/ng/root/c3/buildid/$ID/executable" "$T/bin/sym_prog"
check "and says so" grep -q "1 replacing a stripped upload" "$T/s2.err" || sed 's/^/# /' "$T/s2.err"
record s3 c3 -- "$T/bin/stripped" 300
check "a stripped binary never replaces the file with symbols" \
	cmp -s "$T/ng/root/c3/buildid/$ID/executable" "$T/bin/sym_prog"

record j c4 -- "$T/bin/sym_prog" 300 jit
JIT_PID=$(sed -n 's/^pid //p' "$T/j.out")
MAP=$(find "$T/ng/root/c4" -path "*/jit/perf-$JIT_PID.map" 2>/dev/null)
check "the JIT map the program wrote is shipped under its session's folder" \
	bash -c "test -n '$MAP' && cmp -s '$MAP' /tmp/perf-$JIT_PID.map"
check "as {host}/{session}/jit/perf-PID.map, beside the parts" \
	bash -c "ls '${MAP%/jit/*}' | grep -qx 0000000000"

record n c5 "symbols = none" -- "$T/bin/sym_prog" 300
check "symbols = none ships nothing" test ! -e "$T/ng/root/c5/buildid"

# A collector that never answers: the recording still ends within drain_timeout.
SP=$(free_port)
python3 "$TESTS_SRCDIR/integration/http_silent.py" "$SP" 2>/dev/null &
SILENT=$!
wait_port "$SP"
start=$SECONDS
{
	printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/d\nspool_dir = %s/spool2\n' "$SP" "$T"
	printf 'drain_timeout = 2s\nconnect_timeout = 1s\nstall_timeout = 1s\n'
} > "$T/d.ini"
"$PERFSINK" record -e cpu-clock -F 999 --config "$T/d.ini" -- "$T/bin/sym_prog" 100 >/dev/null 2>"$T/d.err"
took=$((SECONDS - start))
kill $SILENT 2>/dev/null
check "a silent collector: the run ends within drain_timeout plus a margin (took ${took}s)" test "$took" -le 8 ||
	sed 's/^/# /' "$T/d.err"

# S3 (moto): the same layout under the prefix, HEAD before PUT signed as the parts are.
if command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null; then
	MP=$(free_port)
	INITIAL_NO_AUTH_ACTION_COUNT=4 moto_server -H 127.0.0.1 -p "$MP" >"$T/moto.log" 2>&1 &
	MOTO_PID=$!
	trap 'kill $MOTO_PID 2>/dev/null; nginx_stop; rm -rf "$T"; rm -f /tmp/perf-$JIT_PID.map' EXIT
	wait_port "$MP"
	read -r AK SK < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "http://127.0.0.1:$MP" bkt)
	printf '[sink.s3]\nplugin = http\nmode = s3\nurl = http://127.0.0.1:%s\nbucket = bkt\npath_style = true\nprefix = runs\nspool_dir = %s/spool3\n' \
		"$MP" "$T" > "$T/s3.ini"
	for run in 1 2; do
		AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK "$PERFSINK" record -e cpu-clock -F 999 \
			--config "$T/s3.ini" -- "$T/bin/sym_prog" 200 >/dev/null 2>"$T/s3_$run.err"
	done
	python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" --get "http://127.0.0.1:$MP" bkt \
		"runs/buildid/$ID/" "$AK" "$SK" "$T/s3.got" > "$T/s3.keys"
	check "s3: {prefix}/buildid/<id>/executable is the program; the second run shipped nothing" \
		bash -c "cmp -s '$T/s3.got' '$T/bin/sym_prog' && grep -q '0 files shipped (0 bytes' '$T/s3_2.err'" ||
		sed 's/^/# /' "$T/s3_1.err" "$T/s3_2.err" "$T/s3.keys"
else
	echo "ok 18 # SKIP moto_server or boto3 not installed"
fi
