#!/bin/bash
# Where the data went, and the counters in machine-readable form: the
# summary names every output of every sink, each rotated output is printed
# as it is finished, --summary-json agrees with what perf report counts in
# the files, and --stats-file is valid Prometheus text written while
# recording and at the end.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 14
PROM="python3 $TESTS_SRCDIR/integration/prom_check.py"
cd "$T"
cat > fan.ini <<INI
[sink.plain]
plugin = aio_file
path = $T/plain.data
[sink.small]
plugin = zstd
path = $T/small.data
INI

# 1. Fan-out to two file sinks: both paths named, JSON true to perf report.
"$PERFSINK" record -e cpu-clock -F 999 --config fan.ini --summary-json run.json --stats-file run.prom \
	-- "$WORKLOAD" cpu 600 > run.out 2> run.err
check "the recording succeeds" test $? = 0 || show run.err
check "the summary names each sink's file" \
	eval "grep -q '^\[ sink plain (aio_file): .* written to $T/plain.data' run.err &&
	      grep -q '^\[ sink small (zstd): .* written to $T/small.data' run.err"
SAMPLES=$(perf_samples plain.data)
LOST=$("$PERF" report -i plain.data --stats 2>/dev/null | awk '/LOST_SAMPLES|LOST events/ {s += $(NF-1)} END {print s + 0}')
check "--summary-json: samples_written and lost_samples are perf report's counts ($SAMPLES, $LOST)" \
	python3 - run.json "$SAMPLES" "$LOST" "$(perf_samples small.data)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
samples, lost, small = map(int, sys.argv[2:5])
assert d["samples_written"] == samples == small, (d["samples_written"], samples, small)
assert d["samples"] == samples and d["lost_samples"] == lost, d
assert d["ring_bytes"] > 0 and d["buffers"] > 0 and d["rings"] > 0
PY
check "--summary-json: each sink's one output, done, with its size on disk" \
	python3 - run.json "$T" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
names = {s["name"]: s for s in d["sinks"]}
for name in ("plain", "small"):
    s = names[name]
    path = os.path.join(sys.argv[2], name + ".data")
    assert s["outputs"] == [{"path": path, "state": "done", "bytes": os.path.getsize(path)}], s
    assert s["bytes_in"] > 0 and s["bytes_out"] > 0 and not s["failed"] and s["state"] == "ok", s
assert names["small"]["bytes_out"] < names["plain"]["bytes_out"]
PY
check "--stats-file at the end: valid Prometheus text with the run's final counts" \
	$PROM run.prom perfsink_recording=0 "perfsink_samples_total=$SAMPLES" \
	'perfsink_sink_state{sink="plain",plugin="aio_file"}=0' \
	"perfsink_sink_in_bytes_total{sink=\"plain\",plugin=\"aio_file\"}=$(python3 -c "import json;print([s for s in json.load(open('run.json'))['sinks'] if s['name']=='plain'][0]['bytes_in'])")"
check "no temporary file is left beside them" test -z "$(ls | grep '\.tmp\.')"

# 2. While recording: the stats file appears and says so, rewritten.
"$PERFSINK" record -a -F 499 -o live.data --stats-file live.prom > live.out 2> live.err &
PID=$!
recording_now() { $PROM live.prom perfsink_recording=1 > /dev/null 2>&1; }
check "--stats-file while recording: written within seconds, perfsink_recording 1" wait_for 30 recording_now
first=$(grep '^perfsink_last_update_timestamp_seconds' live.prom)
rewritten() { ! grep -q "^$first\$" live.prom 2>/dev/null; }
check "and rewritten every few seconds" wait_for 30 rewritten
kill -INT $PID
wait $PID
check "after the end: perfsink_recording 0" $PROM live.prom perfsink_recording=0

# 3. Rotation: one line per finished output, at once; all named at the end.
"$PERFSINK" record -e cpu-clock -F 999 -o seg.data --switch-output=16K --summary-json seg.json \
	-- "$WORKLOAD" cpu 1500 > seg.out 2> seg.err
FILES=$(ls seg.data.* | wc -l)
DUMPS=$(grep -c '^\[ sink default ([^)]*): Dump seg.data\.[0-9]*\.[0-9]* ([0-9.]* MB) \]$' seg.err)
check "each rotated output is printed as it is finished ($DUMPS lines, $FILES files)" \
	test "$FILES" -ge 3 -a "$DUMPS" = $((FILES - 1)) || show seg.err
check "the summary lists every output" \
	eval "for f in seg.data.*; do grep -q \"^\[ sink default: \$f (\" seg.err || exit 1; done"
check "--summary-json lists them with their sizes" python3 - seg.json <<'PY'
import json, os, sys, glob
d = json.load(open(sys.argv[1]))
outs = d["sinks"][0]["outputs"]
assert sorted(o["path"] for o in outs) == sorted(glob.glob("seg.data.*")), outs
assert all(o["state"] == "done" and o["bytes"] == os.path.getsize(o["path"]) for o in outs), outs
assert d["rotations"] == len(outs) - 1
PY

# 4. --switch-max-files: the removed ones are not named as if they existed.
"$PERFSINK" record -e cpu-clock -F 999 -o max.data --switch-output=16K --switch-max-files 2 \
	--summary-json max.json -- "$WORKLOAD" cpu 1500 > max.out 2> max.err
check "--switch-max-files 2: two kept, the rest said removed" \
	eval "test \$(ls max.data.* | wc -l) = 2 && grep -q 'written to [3-9][0-9]* outputs ([1-9][0-9]* removed' max.err"
check "--summary-json: removed outputs have state removed" python3 - max.json <<'PY'
import json, os, sys
outs = json.load(open(sys.argv[1]))["sinks"][0]["outputs"]
kept = [o for o in outs if o["state"] == "done"]
assert len(kept) == 2 and all(os.path.exists(o["path"]) for o in kept), outs
assert all(not os.path.exists(o["path"]) for o in outs if o["state"] == "removed"), outs
assert len(outs) > 2
PY
done_testing
