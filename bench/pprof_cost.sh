#!/bin/sh
# CPU and peak RSS of `perfsink pprof` beside `perf report --stdio` on the
# same recording (issue 29): one after the other, each under /usr/bin/time,
# and the ratio.  As root, from a built tree:
#   bench/pprof_cost.sh FILE        time both on FILE
#   bench/pprof_cost.sh             record bench's dwarf10k run first (perfbench
#                                   --keep, SECONDS s, default 4: ~450 MB) in a
#                                   scratch directory, time both, delete it
# Prints a Markdown table (the one in docs/BENCHMARKS.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PERFSINK=${PERFSINK:-$top/src/perfsink}
PERF=${PERF:-perf}
scratch=$(mktemp -d /tmp/pprof_cost.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ $# -ge 1 ]; then
	data=$1
else
	"$top/bench/perfbench" --workloads dwarf10k --recorders perfsink --reps 1 \
		--seconds "${SECONDS_RUN:-4}" --keep --out "$scratch/bench" >/dev/null
	data=$(find "$scratch/bench" -name out.data | head -n 1)
fi
# run NAME CMD...: "user+sys seconds, peak RSS MB" of CMD into $scratch/NAME.
run() {
	_n=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$scratch/$_n.time" "$@" >/dev/null 2>"$scratch/$_n.err"
	awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$scratch/$_n.time" >"$scratch/$_n"
}
run pprof "$PERFSINK" pprof -o "$scratch/out.pb.gz" "$data"
run report "$PERF" report --stdio -i "$data"
read -r pc pr <"$scratch/pprof"
read -r rc rr <"$scratch/report"
mb=$(($(stat -c %s "$data") / 1048576))
echo "| recording | \`perfsink pprof\` CPU s | peak RSS MB | \`perf report --stdio\` CPU s | peak RSS MB | CPU ratio | RSS ratio |"
echo "|---|---|---|---|---|---|---|"
awk -v mb="$mb" -v pc="$pc" -v pr="$pr" -v rc="$rc" -v rr="$rr" 'BEGIN {
	printf "| %d MB, DWARF (dwarf10k) | %.2f | %d | %.2f | %d | %.3f | %.2f |\n", mb, pc, pr, rc, rr, pc / rc, pr / rr }'
grep 'pprof:' "$scratch/pprof.err" | sed 's/^/    /'
