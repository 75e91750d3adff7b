#!/bin/sh
# How long a big `perfsink flamegraph` page takes to open in headless
# Chromium (issue 29: a 100k-frame profile in under 2 s).  As root or not,
# from a built tree (make check builds tests/integration/flame_synth):
#   bench/flame_open.sh [FRAMES [RUNS]]     default 100000 frames, 5 runs
# The page is made by flame_synth through flame_write, as perfsink
# flamegraph writes it, as HTML and as SVG.  "load+script" is the page's own
# performance.now() when its script finished drawing (data-load-ms: from
# navigation start, parsing included); "chromium wall" is the whole
# headless run minus the same run on an empty page (browser start-up).
# Prints a Markdown table (the one in docs/BENCHMARKS.md), medians of RUNS.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
frames=${1:-100000}
runs=${2:-5}
synth=$top/tests/integration/flame_synth
[ -x "$synth" ] || { echo "no $synth: run make -C tests integration/flame_synth first" >&2; exit 2; }
chromium=$(command -v chromium) || { echo "chromium is not installed (Debian's chromium)" >&2; exit 2; }
scratch=$(mktemp -d /tmp/flame_open.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# open PAGE: "load_ms wall_ms" of one headless run.
open_page() {
	_s=$(date +%s%N)
	HOME=$scratch timeout 300 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$scratch/profile" --dump-dom "file://$1" >"$scratch/dom" 2>/dev/null
	_e=$(date +%s%N)
	_l=$(grep -o 'data-load-ms="[0-9]*"' "$scratch/dom" | tr -dc 0-9)
	echo "${_l:--1} $(((_e - _s) / 1000000))"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '<!DOCTYPE html><html><body><script>document.title="x"</script></body></html>\n' >"$scratch/empty.html"
open_page "$scratch/empty.html" >/dev/null   # the first run makes the profile
i=0
while [ $i -lt "$runs" ]; do open_page "$scratch/empty.html"; i=$((i + 1)); done >"$scratch/empty.runs"
base=$(awk '{ print $2 }' "$scratch/empty.runs" | median)
echo "| page | frames | bytes | load+script ms (median) | chromium wall ms, start-up taken off (median) |"
echo "|---|---|---|---|---|"
for kind in html svg; do
	page=$scratch/big.$kind
	made=$("$synth" "$frames" "$page")
	i=0
	while [ $i -lt "$runs" ]; do open_page "$page"; i=$((i + 1)); done >"$scratch/$kind.runs"
	load=$(awk '{ print $1 }' "$scratch/$kind.runs" | median)
	wall=$(awk -v b="$base" '{ print $2 - b }' "$scratch/$kind.runs" | median)
	echo "| .$kind | ${made%% frames*} | $(wc -c <"$page") | $load | $wall |"
done
echo
echo "(chromium $("$chromium" --version 2>/dev/null | awk '{ print $2 }'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg); empty page: $base ms)"
