#!/bin/bash
# bench/perfbench --quick: every workload and recorder runs, the counter
# reads every output, and the figures make sense.  No timing assertions.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v python3 >/dev/null || skip_all "python3 runs the benchmark driver"
[ -x "$TOP_BUILDDIR/bench/psb_count" ] || skip_all "bench programs not built"
plan 11

OUT="$T/bench"
PSB_BUILDDIR="$TOP_BUILDDIR" python3 "$TOP_SRCDIR/bench/perfbench" --quick --out "$OUT" \
	--perf "$PERF" --perfsink "$PERFSINK" >"$T/stdout" 2>"$T/stderr"
rc=$?
check "perfbench --quick exits 0" [ "$rc" = 0 ] || show "$T/stderr"
check "results.csv, results.json and results.md written" \
	test -s "$OUT/results.csv" -a -s "$OUT/results.json" -a -s "$OUT/results.md"
check "the markdown table names the machine and the command" \
	grep -q "^Command: \`bench/perfbench --quick" "$OUT/results.md"

# One python check per property, so a failure says which.
sane() {
	python3 - "$OUT/results.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs, what = d["runs"], sys.argv[2]
bad = []
for r in runs:
    name = f'{r["workload"]}/{r["recorder"]}'
    if what == "all":
        # every (workload, recorder) pair ran and was counted
        if "capture_pct" not in r or r.get("bad_records"):
            bad.append(name)
    elif what == "figures":
        # a recording holds samples, no more of the workload than it made (+10 %
        # for timer jitter), some of it unless the rings overflow by design
        # (dwarf at 100 kHz can keep almost none on a loaded machine), and
        # the recorder used CPU
        some = r["capture_pct"] > 0 or r["workload"] == "dwarf"
        if not (some and 0 <= r["capture_pct"] <= 110 and r["samples"] > 0 and r["expected"] > 0
                and r["out_bytes"] > 0 and r["cpu_s"] > 0 and r["rss_mb"] > 0 and r["lost"] >= 0
                and r["exit_s"] >= 0):
            bad.append(f'{name}: capture {r["capture_pct"]:.1f} expected {r["expected"]} '
                       f'out {r["out_bytes"]} cpu {r["cpu_s"]} exit {r["exit_s"]:.3f}')
    elif what == "self":
        # exclude-self: perfsink never samples or traces itself
        if r["recorder"].startswith("perfsink") and r["own"] != 0:
            bad.append(f'{name}: {r["own"]} own samples')
    elif what == "summary":
        pass
if what == "summary":
    pairs = {(r["workload"], r["recorder"]) for r in runs}
    if len(d["summary"]) != len(pairs) or not runs:
        bad.append(f'{len(d["summary"])} summary rows for {len(pairs)} pairs')
if bad:
    print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY
}
check "every workload/recorder pair was recorded and counted" sane all
check "capture, output, CPU, RSS and exit figures are sane" sane figures
check "perfsink has no samples of its own in any output" sane self
check "one median row per workload and recorder" sane summary
PSB_BUILDDIR="$TOP_BUILDDIR" python3 "$TOP_SRCDIR/bench/perfbench" --from-json "$OUT/results.json" \
	--out "$T/again" >/dev/null 2>"$T/again.err"
check "--from-json renders the same tables from results.json" cmp "$OUT/results.md" "$T/again/results.md" ||
	show "$T/again.err"

# The counter agrees with perf itself: file mode, -z (COMPRESSED) and pipe mode.
count_agrees() { # FILE: psb_count's samples == perf script's lines
	local ours theirs
	ours=$("$TOP_BUILDDIR/bench/psb_count" "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
	theirs=$("$PERF" script -i "$1" -F tid -G 2>/dev/null | wc -l)
	[ -n "$ours" ] && [ "$ours" = "$theirs" ] && [ "$ours" -gt 0 ] || { diag "$1: psb_count $ours, perf script $theirs"; false; }
}
"$PERF" record -q -e cpu-clock -F 999 -g -o "$T/file.data" -- "$WORKLOAD" cpu 300 >/dev/null 2>&1
check "psb_count counts the samples perf script shows (file mode)" count_agrees "$T/file.data"
"$PERF" record -q -z -e cpu-clock -F 999 -g -o "$T/z.data" -- "$WORKLOAD" cpu 300 >/dev/null 2>&1
check "psb_count counts the samples perf script shows (perf -z)" count_agrees "$T/z.data"
"$PERF" record -q -e cpu-clock -F 999 -g -o - -- "$WORKLOAD" cpu 300 >"$T/pipe.data" 2>/dev/null
check "psb_count counts the samples perf script shows (pipe mode)" count_agrees "$T/pipe.data"
done_testing
