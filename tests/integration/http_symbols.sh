#!/bin/bash
# Symbol shipping by the http sink, against nginx (and moto S3) on
# loopback: after a recording of a program built into a temp dir, the
# collector has buildid/<id>/executable for it (and the kernel's symbol
# table); a second recording sends no symbol bytes again; symbols_max
# keeps big files back; a stripped upload is replaced by the file with
# symbols, never the other way round; a JIT map is shipped with the
# session, and `perfsink fetch` on a machine without it places it at
# /tmp/perf-PID.map so perf report names the JIT code (never over a file
# already there); symbols = none sends nothing.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }

T=$(mktemp -d /tmp/http_symbols.XXXXXX)
JIT_PID=none JIT_PID3=none
# perfsink record fills $HOME/.debug: this test's own.
export HOME=$T/home
mkdir -p "$HOME"
trap 'nginx_stop; rm -rf "$T"; rm -f /tmp/perf-$JIT_PID.map /tmp/perf-$JIT_PID3.map' EXIT
echo "1..30"
# sym_prog's jit mode runs x86-64 machine code.
JIT_OK=; [ "$(uname -m)" = x86_64 ] && JIT_OK=1
skip_n() { # skip_n N WHY: N planned checks that cannot run here
	local i
	for ((i = 0; i < $1; i++)); do tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $2"; done
}

P=$(free_port)
# fetch lists a session's parts: PROPFIND with dav-ext, else the JSON autoindex.
NGINX_EXTRA="autoindex on; autoindex_format json;"
have_dav_ext && NGINX_EXTRA=$NGINX_LISTING
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

# symbols = all: which libraries samples fall in varies from run to run
# (symbols_sampled.sh tests that choice); here the same files both times.
record a c "symbols = all" -- "$T/bin/sym_prog" 300
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

record a2 c "symbols = all" -- "$T/bin/sym_prog" 300
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

if [ -n "$JIT_OK" ]; then
	# Fanned out to a local aio_file copy too: the recording machine's view.
	record j c4 "[sink.local]" "plugin = aio_file" "path = $T/j_local.data" -- "$T/bin/sym_prog" 300 jit
	JIT_PID=$(sed -n 's/^pid //p' "$T/j.out")
	JMAP=/tmp/perf-$JIT_PID.map
	MAP=$(find "$T/ng/root/c4" -path "*/jit/perf-$JIT_PID.map" 2>/dev/null)
	check "the JIT map the program wrote is shipped under its session's folder" \
		bash -c "test -n '$MAP' && cmp -s '$MAP' '$JMAP'"
	check "as {host}/{session}/jit/perf-PID.map, beside the parts" \
		bash -c "ls '${MAP%/jit/*}' | grep -qx 0000000000"

	# The reading machine has no /tmp/perf-PID.map; fetch brings it.
	J_URL=http://127.0.0.1:$P/c4/${MAP#"$T/ng/root/c4/"}
	J_URL=${J_URL%/jit/*}
	JHOST=$(basename "$(dirname "${MAP%/jit/*}")")
	# jreport NAME [HOME]: NAME.data's samples per symbol, sorted (ties come in
	# any order); HOME: the build-id cache (default: the fresh one of NAME's fetch)
	jreport() { HOME=${2:-$T/home_$1} "$PERF" report -i "$T/$1.data" --stdio --no-children -g none --sort sym 2>/dev/null | grep -v '^#' | grep '%' | sort; }
	# named REPORT: the share of samples in named symbols (not a bare 0x address)
	named() { awk '$3 !~ /^0x/ { s += $1 } END { printf "%.2f%%", s }' "$1"; }
	jreport j_local "$HOME" > "$T/j_local.rep" # the cache perfsink record filled
	cp "$JMAP" "$T/jit.map" && rm -f "$JMAP"
	jfetch() { # jfetch NAME [options]: fetch the JIT session with a fresh HOME
		local name=$1; shift
		mkdir -p "$T/home_$name"
		HOME=$T/home_$name "$PERFSINK" fetch "$@" -o "$T/$name.data" "$J_URL" >"$T/$name.fout" 2>"$T/$name.ferr"
	}
	jfetch fn --no-symbols
	jreport fn > "$T/fn.rep"
	check "fetch --no-symbols places no JIT map" test $? = 0 -a ! -e "$JMAP" || sed 's/^/# /' "$T/fn.ferr"
	check "and perf report shows the JIT code as a bare address" \
		bash -c "grep -q '\[\.\] 0x0000' '$T/fn.rep' && ! grep -q sym_jitted_function '$T/fn.rep'"
	jfetch f1
	check "fetch places the session's map at /tmp/perf-PID.map, byte for byte" \
		bash -c "test $? = 0 && cmp -s '$JMAP' '$T/jit.map'" || sed 's/^/# /' "$T/f1.ferr"
	check "owned by the fetching user, mode 0644" test "$(stat -c '%u %a' "$JMAP" 2>&1)" = "$(id -u) 644"
	check "and says so in its summary" grep -q "jit maps: 1 of 1 placed in /tmp" "$T/f1.ferr"
	jreport f1 > "$T/f1.rep"
	check "perf report of the fetched file names sym_jitted_function" grep -q '\[\.\] sym_jitted_function$' "$T/f1.rep" ||
		sed 's/^/# /' "$T/f1.rep"
	echo "# after fetch: $(grep "sym_jitted_function$" "$T/f1.rep" | awk '{print $1}') of the samples in sym_jitted_function"
	check "and equals the report of the local aio_file copy on the recording machine, symbol for symbol" \
		bash -c "grep -q sym_jitted_function '$T/j_local.rep' && diff -q '$T/j_local.rep' '$T/f1.rep'" ||
		diff "$T/j_local.rep" "$T/f1.rep" | sed 's/^/# /'
	echo "# samples in named symbols: $(named "$T/j_local.rep") on the recording machine," \
		"$(named "$T/f1.rep") after fetch, $(named "$T/fn.rep") after fetch --no-symbols"

	# A file already at /tmp/perf-PID.map (here: another "process" of that pid) is never replaced.
	printf '%s 10 sym_local_function\n' "$(cut -d' ' -f1 "$T/jit.map")" > "$JMAP"
	cp "$JMAP" "$T/local.map"
	jfetch f2
	check "a second fetch leaves an existing /tmp/perf-PID.map as it is" \
		bash -c "test $? = 0 && cmp -s '$JMAP' '$T/local.map'" || sed 's/^/# /' "$T/f2.ferr"
	check "and warns, naming it, and counts it" \
		bash -c "grep -q 'warning.*$JMAP is already there' '$T/f2.ferr' && grep -q '0 of 1 placed in /tmp.*1 already there' '$T/f2.ferr'" ||
		sed 's/^/# /' "$T/f2.ferr"
else
	skip_n 11 "sym_prog's jit mode runs x86-64 code only"
fi

# A live session: the files mapped so far are shipped while it records
# (every 5 s, PERFSINK_BUILD_IDS_EVERY_MS), not only at its end.
record live c6 -- "$T/bin/sym_prog" 120000 &
LIVE=$!
wait_for 60 test -s "$T/ng/root/c6/buildid/$ID/executable"
check "a recording still running has shipped the program's file" \
	bash -c "cmp -s '$T/ng/root/c6/buildid/$ID/executable' '$T/bin/sym_prog' && kill -0 $LIVE" ||
	sed 's/^/# /' "$T/live.err"
pkill -INT -f -- "--config $T/live.ini"
wait "$LIVE"
check "and ships it once: the end finds it settled ($(shipped live | cut -d' ' -f1) files)" \
	bash -c "test \"\$(grep -c 'PUT /c6/buildid/$ID/executable' '$T/ng/access.log' 2>/dev/null)\" = 1" ||
	{ grep "c6/buildid/$ID" "$T/ng/access.log" | sed 's/^/# /'; sed 's/^/# /' "$T/live.err"; }

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
	trap 'kill $MOTO_PID 2>/dev/null; nginx_stop; rm -rf "$T"; rm -f /tmp/perf-$JIT_PID.map /tmp/perf-$JIT_PID3.map' EXIT
	wait_port "$MP"
	read -r AK SK < <(python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" "http://127.0.0.1:$MP" bkt)
	printf '[sink.s3]\nplugin = http\nmode = s3\nurl = http://127.0.0.1:%s\nbucket = bkt\npath_style = true\nprefix = runs\nspool_dir = %s/spool3\nsymbols = all\n' \
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
	# The same JIT map under the prefix, back at /tmp/perf-PID.map by fetch.
	if [ -n "$JIT_OK" ]; then
		AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK "$PERFSINK" record -e cpu-clock -F 999 \
			--config "$T/s3.ini" -- "$T/bin/sym_prog" 200 jit >"$T/s3_3.out" 2>"$T/s3_3.err"
		JIT_PID3=$(sed -n 's/^pid //p' "$T/s3_3.out")
		cp "/tmp/perf-$JIT_PID3.map" "$T/jit3.map" && rm -f "/tmp/perf-$JIT_PID3.map"
		python3 "$TESTS_SRCDIR/integration/http_moto_setup.py" --get "http://127.0.0.1:$MP" bkt \
			"runs/$JHOST/" "$AK" "$SK" "$T/s3all.got" > "$T/s3all.keys"
		S3_SESS=$(sed -n "s#^runs/\(.*\)/jit/perf-$JIT_PID3\.map .*#\1#p" "$T/s3all.keys")
		mkdir -p "$T/home_s3"
		HOME=$T/home_s3 AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_ENDPOINT_URL=http://127.0.0.1:$MP \
			"$PERFSINK" fetch -o "$T/s3f.data" "s3://bkt/runs/$S3_SESS" >"$T/s3f.out" 2>"$T/s3f.err"
		check "s3: {prefix}/{host}/{session}/jit/perf-PID.map is placed by fetch at /tmp/perf-PID.map" \
			bash -c "test $? = 0 -a -n '$S3_SESS' && cmp -s '/tmp/perf-$JIT_PID3.map' '$T/jit3.map'" ||
			sed 's/^/# /' "$T/s3all.keys" "$T/s3f.err"
	else
		skip_n 1 "sym_prog's jit mode runs x86-64 code only"
	fi
else
	skip_n 2 "moto_server or boto3 not installed"
fi
