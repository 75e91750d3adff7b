#!/bin/bash
# jitdump files (jit-PID.dump, for perf inject --jit) travel with a session:
# jit_prog, a JIT runtime in miniature built here, writes a valid jitdump
# for a function it generates, maps it (the MMAP record perf inject looks
# for) and runs the function.  Recorded with -k mono and the http sink
# (nginx on loopback), the dump is shipped once to {host}/{session}/jit/
# under its escaped path; with the original gone and a fresh HOME,
# `perfsink fetch` places it at its recorded path (under /tmp, once its
# directory is there again: fetch makes none in /tmp), and
# perf inject --jit then perf report name the jitted function.  A second
# fetch never replaces the file it finds there; a dump recorded outside
# /tmp and ~/.debug/jit is named and not placed, one under ~/.debug/jit
# is placed for the user whose home that is.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (perf_event_open)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }
[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP jit_prog runs x86-64 code only"; exit 0; }

T=$(mktemp -d /tmp/http_jitdump.XXXXXX)
V=$(mktemp -d /var/tmp/http_jitdump.XXXXXX)
trap 'nginx_stop; rm -rf "$T" "$V"' EXIT
echo "1..17"

collector_start "$T/ng"
cc -O1 -g -o "$T/jit_prog" "$TESTS_SRCDIR/integration/jit_prog.c" ||
	{ echo "Bail out! cannot build jit_prog"; exit 1; }

# record NAME COLL DIR: jit_prog writing its dump into DIR, to the collector folder COLL
record() {
	printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/%s\nspool_dir = %s/spool\n' "$P" "$2" "$T" > "$T/$1.ini"
	mkdir -p "$3"
	HOME=$T/rec "$PERFSINK" record -k mono -e cpu-clock -F 999 --config "$T/$1.ini" -- \
		"$T/jit_prog" "$3" 400 >"$T/$1.out" 2>"$T/$1.err"
}
# session COLL: the URL of the only session in COLL
session() { local h; h=$(ls "$ROOT/$1" | grep -vx buildid); echo "http://127.0.0.1:$P/$1/$h/$(ls "$ROOT/$1/$h" | grep -v '\.end$' | head -n 1)"; }
# fetch NAME COLL HOME: fetch COLL's session into NAME.data with HOME
fetch() { mkdir -p "$3"; HOME=$3 "$PERFSINK" fetch -o "$T/$1.data" "$(session "$2")" >"$T/$1.fout" 2>"$T/$1.ferr"; }

mkdir -p "$T/rec"
record a c "$T/dumps"
check "a -k mono recording of jit_prog with the http sink" test $? = 0 || sed 's/^/# /' "$T/a.err"
DUMP=$(sed -n 's/^dump //p' "$T/a.out")
# The collector's name: every byte but [A-Za-z0-9.-] as _xx.
NAME=$(printf '%s' "$DUMP" | od -An -tx1 -v | tr -d ' \n' | sed 's/../&\n/g' |
	while read -r x; do case $x in 2d|2e|3[0-9]|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]) printf "\\x$x";; *) printf '_%s' "$x";; esac; done)
SHIPPED=$(find "$ROOT/c" -path "*/jit/$NAME")
check "the dump is on the collector under {host}/{session}/jit/ as $NAME, byte for byte" \
	bash -c "test -n '$SHIPPED' && cmp -s '$SHIPPED' '$DUMP'" || { ls -R "$ROOT/c" | sed 's/^/# /'; }
check "once: one dump object, counted once in the summary" \
	bash -c "test \$(find '$ROOT/c' -name '*.dump' | wc -l) = 1 && grep -q ' 1 jitdump files' '$T/a.err'" ||
	sed 's/^/# /' "$T/a.err"
echo "# jitdump shipped: $(stat -c %s "$DUMP") bytes"

# Another machine: no dump, a fresh HOME.
cp "$DUMP" "$T/orig.dump" && rm -rf "$T/dumps"
fetch f0 c "$T/h0"
check "with its /tmp directory gone, fetch makes no directory there (named, counted)" \
	bash -c "test ! -e '$T/dumps' && grep -q 'dumps/jit-[0-9]*.dump: its directory does not exist' '$T/f0.ferr'"
# The user makes the directory, as the warning says: the dump is placed.
mkdir -m 0755 "$T/dumps"
fetch f1 c "$T/h1"
check "fetch with a fresh HOME" test $? = 0 || sed 's/^/# /' "$T/f1.ferr"
check "places the dump at its recorded path, byte for byte" cmp -s "$DUMP" "$T/orig.dump"
check "mode 0644, owned by the fetching user" test "$(stat -c '%u %a' "$DUMP" 2>&1)" = "$(id -u) 644"
check "and says so in its summary" grep -q "jitdump files: 1 of 1 placed at their recorded paths" "$T/f1.ferr" ||
	sed 's/^/# /' "$T/f1.ferr"
HOME=$T/h1 "$PERF" inject --jit -i "$T/f1.data" -o "$T/f1.jit" >"$T/inject.out" 2>&1
check "perf inject --jit takes the fetched file" test $? = 0 || sed 's/^/# /' "$T/inject.out"
check "and writes the jitted code beside the dump (jitted-PID-N.so)" \
	bash -c "ls '$(dirname "$DUMP")' | grep -q '^jitted-[0-9]*-[0-9]*\.so$'"
HOME=$T/h1 "$PERF" report -i "$T/f1.jit" --stdio --no-children --sort sym 2>/dev/null | grep '%' | grep -v '^#' > "$T/f1.rep"
check "perf report of the injected file names jitdump_hot_function" grep -q '\[\.\] jitdump_hot_function' "$T/f1.rep" ||
	sed 's/^/# /' "$T/f1.rep"
echo "# after fetch and inject: $(awk '/jitdump_hot_function/ {print $1}' "$T/f1.rep") of the samples in jitdump_hot_function"

# A file already at the path is never replaced.
printf 'not a dump\n' > "$T/mine" && cp "$T/mine" "$DUMP"
fetch f2 c "$T/h2"
check "a second fetch leaves the file at the dump's path as it is" bash -c "test $? = 0 && cmp -s '$DUMP' '$T/mine'" ||
	sed 's/^/# /' "$T/f2.ferr"
check "and warns, naming it, and counts it" \
	bash -c "grep -q 'warning.*$DUMP is already there' '$T/f2.ferr' && grep -q 'jitdump files: 0 of 1 placed.*1 already there' '$T/f2.ferr'" ||
	sed 's/^/# /' "$T/f2.ferr"

# Outside /tmp: only the home it lies in takes it, under ~/.debug/jit.
record v cv "$V/home/.debug/jit/java-jit-test"
VDUMP=$(sed -n 's/^dump //p' "$T/v.out")
check "a dump under /var/tmp/.../home/.debug/jit is shipped" \
	bash -c "test -n '$VDUMP' && test \$(find '$ROOT/cv' -name '*.dump' | wc -l) = 1" || sed 's/^/# /' "$T/v.err"
cp "$VDUMP" "$T/v.dump" && rm -rf "$V/home/.debug"
fetch fv cv "$T/h3"
check "fetch with another HOME does not place it, and says where it would go" \
	bash -c "test $? = 0 && test ! -e '$VDUMP' && grep -q 'not placed at $VDUMP (outside /tmp and ~/.debug/jit)' '$T/fv.ferr' &&
		grep -q '0 of 1 placed.* 1 outside /tmp and ~/.debug/jit' '$T/fv.ferr'" || sed 's/^/# /' "$T/fv.ferr"
mkdir -p "$V/home"
fetch fh cv "$V/home"
check "fetch with HOME=$V/home places it in its ~/.debug/jit, byte for byte" \
	bash -c "test $? = 0 && cmp -s '$VDUMP' '$T/v.dump'" || sed 's/^/# /' "$T/fh.ferr"
# ~/.debug is 0700 when fetch's symbol cache made it first; jit directories 0755.
check "the directories it made are the user's, 0700 or 0755 (nobody else writes)" \
	test -z "$(stat -c '%u %a' "$V/home/.debug" "$V/home/.debug/jit" "$(dirname "$VDUMP")" | grep -vx "$(id -u) 7[05][05]" | grep -v " 7[05][05]$" ; stat -c '%u' "$V/home/.debug" "$V/home/.debug/jit" "$(dirname "$VDUMP")" | grep -vx "$(id -u)")"
exit $tap_fail
