#!/bin/sh
# Peak RSS of a pprof sink (symbolize = local) that samples many distinct
# files, with and without symbol_cache_max: one program with NF (default
# 20000) functions, so its symbol table is big, copied to N (default 150)
# paths (the same build-id at other paths: what containers' overlays
# give), each copy run in turn for about 40 ms of CPU under `perfsink
# record -g -F 999` (aio_file + pprof, windows of 1 s, to the tests'
# loopback Pyroscope stand-in).  For each BOUNDS value (default "1T 256M
# 16M"; 1T: never reached; -: the key left out, for a perfsink without
# it: PERFSINK=MAIN/src/perfsink BOUNDS=-) perfsink's peak RSS
# (/usr/bin/time; its CPU would count the workload, its child) and the
# sink's -v end line (what its symbol cache held, read, evicted).  As root, from a built tree:
#   bench/pprof_sink_symcache.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PERFSINK=${PERFSINK:-$top/src/perfsink}
n=${N:-150}
nf=${NF:-20000}
bounds=${BOUNDS:-1T 256M 16M}
s=$(mktemp -d /tmp/pprof_sink_symcache.XXXXXX)
srv=
trap '[ -z "$srv" ] || kill "$srv"; rm -rf "$s"' EXIT
mkdir -p "$s/py"
python3 "$top/tests/integration/pyroscope_server.py" "$s/py" &
srv=$!
while [ ! -s "$s/py/port" ]; do sleep 0.1; done
port=$(cat "$s/py/port")
# The program: NF functions kept (called through a table), main spins.
awk -v nf="$nf" 'BEGIN {
	print "#include <time.h>"
	for (i = 0; i < nf; i++) printf "int symcache_bench_function_%d(int x) { return x * %d + 1; }\n", i, i
	print "int (*const tab[])(int) = {"
	for (i = 0; i < nf; i++) printf "symcache_bench_function_%d,\n", i
	print "};"
	print "static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }"
	print "int main(void) { volatile int v = 0; double end = cpu() + 0.04; unsigned i = 0;"
	print "  while (cpu() < end) v += tab[i++ % (sizeof(tab) / sizeof(tab[0]))](v); return v == 42; }"
}' >"$s/prog.c"
${CC:-cc} -O1 -o "$s/prog" "$s/prog.c"
i=1
while [ $i -le "$n" ]; do mkdir -p "$s/c/$i" && cp "$s/prog" "$s/c/$i/prog"; i=$((i + 1)); done
printf '#!/bin/sh\ni=1\nwhile [ $i -le %s ]; do %s/c/$i/prog; i=$((i + 1)); done\n' "$n" "$s" >"$s/run"
chmod +x "$s/run"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| symbol_cache_max | peak RSS MB | the sink's -v end line (symbol cache) |"
echo "|---|---|---|"
for b in $bounds; do
	printf '[sink.local]\nplugin = aio_file\npath = %s/out.data\n[sink.pp]\nplugin = pprof\n' "$s" >"$s/pp.ini"
	printf 'url = http://127.0.0.1:%s\nwindow = 1s\nsymbolize = local\n' "$port" >>"$s/pp.ini"
	[ "$b" = - ] || printf 'symbol_cache_max = %s\n' "$b" >>"$s/pp.ini"
	/usr/bin/time -f '%M' -o "$s/t" "$PERFSINK" record -e cpu-clock -F 999 -g -v \
		--config "$s/pp.ini" -- "$s/run" >/dev/null 2>"$s/err" || { cat "$s/err" >&2; exit 1; }
	line=$(grep -o -e 'symbols of [0-9]* held ([0-9]* bytes[^)]*), [0-9]* reads, [0-9]* evicted' \
		-e '[0-9]* files, [0-9]* of them read' "$s/err" || :)
	awk -v b="$b" -v l="$line" '{ printf "| %s | %.0f | %s |\n", b, $1 / 1024, l }' "$s/t"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
