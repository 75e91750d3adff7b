#!/bin/sh
# CPU and peak RSS of the pprof sink beside aio_file (issue 29): bench's
# workload (psb_workload, every CPU busy) recorded system-wide for SECONDS
# (default 4) at 10 kHz, with -g and with --call-graph dwarf,8192, by
# `perfsink record` with aio_file alone and with aio_file + pprof (mode =
# pyroscope, windows of 1 s, to the tests' loopback Pyroscope stand-in),
# symbolize = none and symbolize = local.
# perfsink's own user+sys CPU and peak RSS under /usr/bin/time (the
# workload's tasks run apart, not as its children); the pprof sink's cost is the
# difference (the gate that releases the workload is perfsink's child
# but only waits).  REPS (default 2) runs of each, interleaved; medians.
# The load average is printed first: the figures mean little on a busy box.
# As root, from a built tree: bench/pprof_sink_cost.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PERFSINK=${PERFSINK:-$top/src/perfsink}
secs=${SECONDS_RUN:-4}
reps=${REPS:-2}
s=$(mktemp -d /tmp/pprof_sink_cost.XXXXXX)
srv=
trap '[ -z "$srv" ] || kill "$srv"; rm -rf "$s"' EXIT
mkdir -p "$s/py" "$s/wl"
python3 "$top/tests/integration/pyroscope_server.py" "$s/py" &
srv=$!
while [ ! -s "$s/py/port" ]; do sleep 0.1; done
port=$(cat "$s/py/port")
printf '[sink.local]\nplugin = aio_file\npath = %s/out.data\n' "$s" >"$s/aio.ini"
cp "$s/aio.ini" "$s/pp.ini"
printf '[sink.pp]\nplugin = pprof\nurl = http://127.0.0.1:%s\nwindow = 1s\n' "$port" >>"$s/pp.ini"
cp "$s/pp.ini" "$s/pl.ini"
printf 'symbolize = local\n' >>"$s/pl.ini"
# one CG CONF: "cpu_s rss_mb" of one run into stdout.
one() {
	rm -rf "$s/wl" && mkdir "$s/wl"
	"$top/bench/psb_workload" run cpu "$secs" "$s/wl" >/dev/null 2>&1 &
	wl=$!
	while [ ! -s "$s/wl/pids" ]; do sleep 0.1; done
	/usr/bin/time -f '%U %S %M' -o "$s/t" "$PERFSINK" record -a -e cpu-clock -F 10000 $1 \
		--config "$2" -q -- "$top/bench/psb_workload" gate "$s/wl" >/dev/null 2>"$s/err" ||
		{ cat "$s/err" >&2; exit 1; }
	wait "$wl" 2>/dev/null || :
	awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$s/t"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| call graph | symbolize | aio_file CPU s | RSS MB | aio_file + pprof CPU s | RSS MB | pprof sink CPU s | RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for cg in "-g" "--call-graph dwarf,8192"; do
	: >"$s/a"; : >"$s/b"; : >"$s/c"
	i=0
	while [ $i -lt "$reps" ]; do
		one "$cg" "$s/aio.ini" >>"$s/a"
		one "$cg" "$s/pp.ini" >>"$s/b"
		one "$cg" "$s/pl.ini" >>"$s/c"
		i=$((i + 1))
	done
	ac=$(cut -d' ' -f1 "$s/a" | med); ar=$(cut -d' ' -f2 "$s/a" | med)
	for m in b c; do
		bc=$(cut -d' ' -f1 "$s/$m" | med); br=$(cut -d' ' -f2 "$s/$m" | med)
		awk -v cg="$cg" -v sy="$([ $m = b ] && echo none || echo local)" -v ac="$ac" -v ar="$ar" \
			-v bc="$bc" -v br="$br" 'BEGIN {
			printf "| `%s` | %s | %.2f | %d | %.2f | %d | %+.2f | %+d |\n", cg, sy, ac, ar, bc, br, bc - ac, br - ar }'
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
