#!/bin/bash
# Symbols of the files call chains pass through (issue 31 part 3): a
# program whose main() calls once into a shared library that spins there,
# built with frame pointers and recorded with -g.  Samples fall in the
# library (and libc, the kernel); the program's own code is only in the
# call chains.  With the http sink's default (symbols = sampled) both the
# library and the program are shipped to a loopback nginx collector, a
# lazy `fetch` (the default) into a fresh HOME takes both, and with both
# moved away `perf script -F ip,sym` names main's frames from the fetched
# copy.  Before, only sample ips marked files: the program was neither
# shipped nor fetched, and its frames were unnamed.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root for perf_event_open"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }

diag() { printf "%s\n" "$@" | sed "s/^/# /"; }
show() { sed "s/^/# /" "$@"; }
T=$(mktemp -d /tmp/symbols_chain.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..7"
collector_start "$T/ng"
mkdir -p "$T/bin"

cat > "$T/hot.c" <<'EOC'
#include <time.h>
/* The library: where the samples fall. */
__attribute__((noinline)) unsigned long chain_hot(unsigned long x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 2654435761u + 1;
	return x;
}
/* Spin in chain_hot for ms milliseconds. */
unsigned long chain_run(long ms)
{
	struct timespec t0, t;
	unsigned long x = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = chain_hot(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return x;
}
EOC
cat > "$T/main.c" <<'EOC'
#include <stdlib.h>
unsigned long chain_run(long ms);
/* The program: calls into the library once, never runs long itself. */
int main(int argc, char **argv)
{
	return (int)(chain_run(atol(argv[1])) & 1) * 0;
}
EOC
CF="-O1 -g -fno-omit-frame-pointer -Wl,--build-id"
cc $CF -shared -fPIC -o "$T/bin/libchainhot.so" "$T/hot.c" &&
	cc $CF -o "$T/bin/chainmain" "$T/main.c" -L"$T/bin" -lchainhot -Wl,-rpath,"$T/bin" ||
	{ echo "Bail out! cannot build the test program"; exit 1; }
bid() { LC_ALL=C readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
MAIN=$(bid "$T/bin/chainmain") LIB=$(bid "$T/bin/libchainhot.so")

printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\n' "$P" "$T" > "$T/c.ini"
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/c.ini" -- "$T/bin/chainmain" 800 \
	>"$T/rec.out" 2>"$T/rec.err"
check "a -g recording into the http sink succeeds" test $? = 0 || show "$T/rec.err"
SESS=$(one_session "$ROOT/c")
check "the library the samples fell in is shipped" test -n "$SESS" -a -s "$ROOT/c/buildid/$LIB/executable" ||
	{ show "$T/rec.err"; diag "on the collector: $(ls "$ROOT/c/buildid" 2>/dev/null | paste -sd' ')"; }
check "the program only call chains pass through is shipped too (symbols = sampled)" \
	test -s "$ROOT/c/buildid/$MAIN/executable"

mv "$T/bin" "$T/moved" # only the fetched copies can name them now
HOME=$T/h "$PERFSINK" fetch -o "$T/f.data" "http://127.0.0.1:$P/c/$SESS" >"$T/f.out" 2>"$T/f.err"
check "a lazy fetch into a fresh HOME succeeds" test $? = 0 || show "$T/f.err"
check "and takes the program's build-id into ~/.debug" test -e "$T/h/.debug/.build-id/${MAIN:0:2}/${MAIN:2}" ||
	{ show "$T/f.err"; diag "in ~/.debug: $(ls "$T/h/.debug/.build-id"/*/ 2>/dev/null | paste -sd' ')"; }
HOME=$T/h "$PERF" script -F ip,sym -i "$T/f.data" >"$T/script.out" 2>"$T/script.err"
check "perf script names the library's frames" grep -qw chain_hot "$T/script.out" ||
	{ head -n 20 "$T/script.out" "$T/script.err" | show /dev/stdin; }
check "and main's frames, from the fetched copy of the program" grep -qw main "$T/script.out" ||
	{ grep -B3 -A3 -m 2 chain_run "$T/script.out" | show /dev/stdin; }
exit $tap_fail
