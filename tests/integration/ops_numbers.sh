#!/bin/bash
# One set of numbers, said the same way in the summary, --summary-json and
# --stats-file (perfsink(1), SUMMARY AND LOSS): the headline's MB is what
# each sink took in, with rotation too; a sink's "written" is the size of
# its outputs (the ones listed add up to it); zstd's "compressed to" is
# the same quantity; the headline's time is the recording time, the
# sinks' finishing after the stop said apart; part counts never count the
# end marker.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 10
PROM="python3 $TESTS_SRCDIR/integration/prom_check.py"
cd "$T"
for s in plain:aio_file small:zstd; do
	printf '[sink.%s]\nplugin = %s\npath = %s/%s.data\n' "${s%:*}" "${s#*:}" "$T" "${s%:*}"
done > rot.ini

# 1. Two file sinks, rotating: several outputs each.
"$PERFSINK" record -e cpu-clock -F 999 --config rot.ini --switch-output=16K --summary-json rot.json \
	--stats-file rot.prom -- "$WORKLOAD" cpu 1500 > rot.out 2> rot.err
check "the rotating recording succeeds, with several outputs per sink" \
	eval "test $? = 0 && test \$(ls plain.data.* | wc -l) -ge 3" || show rot.err
# summary FILE: the summary's numbers as JSON (MB as printed).
summary() {
	python3 - "$1" <<'PY'
import json, re, sys
t = open(sys.argv[1]).read()
h = re.search(r"^\[ perfsink record: Captured ([0-9.]+) MB in ([0-9.]+) s \(", t, re.M)
d = {"captured": h and float(h.group(1)), "secs": h and float(h.group(2)), "sinks": {}}
for m in re.finditer(r"^\[ sink (\S+) \((\w+)\): ([0-9.]+) MB in, ([0-9.]+) MB (?:written|sent)", t, re.M):
    s = d["sinks"][m.group(1)] = {"in": float(m.group(3)), "written": float(m.group(4))}
    s["listed"] = [float(x) for x in re.findall(r"^\[ sink %s: \S+ \(([0-9.]+) MB\) \]$" % m.group(1), t, re.M)]
d["compressed"] = [(float(a), float(b)) for a, b in
                   re.findall(r"'\S+': ([0-9.]+) MB compressed to ([0-9.]+) MB", t)]
print(json.dumps(d))
PY
}
summary rot.err > rot.sum
check "the headline's MB is each sink's MB in (ring data and perfsink's own records)" python3 - rot.sum <<'PY' || show rot.err
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sinks"] and all(s["in"] == d["captured"] for s in d["sinks"].values()), d
PY
check "each sink's written is the sum of its outputs' sizes, as listed" python3 - rot.sum <<'PY' || show rot.err
import json, sys
d = json.load(open(sys.argv[1]))
for name, s in d["sinks"].items():
    assert len(s["listed"]) >= 3 and abs(sum(s["listed"]) - s["written"]) <= 0.001 * len(s["listed"]), (name, s)
PY
check "zstd's 'compressed to' is what the summary calls written, output by output" python3 - rot.sum <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
c, small = d["compressed"], d["sinks"]["small"]
assert [b for _, b in c] == small["listed"], (c, small)
assert abs(sum(a for a, _ in c) - small["in"]) <= 0.001 * len(c), (c, small)
PY
	show rot.err
check "--summary-json: the same numbers, in bytes, true to the files on disk" python3 - rot.json <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for s in d["sinks"]:
    assert s["bytes_in"] == d["bytes"] and s["buffers"] == d["buffers"], (s, d["bytes"], d["buffers"])
    sizes = [os.path.getsize(o["path"]) for o in s["outputs"]]
    assert [o["bytes"] for o in s["outputs"]] == sizes and s["bytes_out"] == sum(sizes), s
assert d["ring_bytes"] < d["bytes"], d
PY
SMALL_OUT=$(python3 -c "import json;print([s for s in json.load(open('rot.json'))['sinks'] if s['name']=='small'][0]['bytes_out'])")
check "--stats-file: the same numbers" $PROM rot.prom \
	"perfsink_bytes_total=$(python3 -c "import json;print(json.load(open('rot.json'))['bytes'])")" \
	"perfsink_buffers_total=$(python3 -c "import json;print(json.load(open('rot.json'))['buffers'])")" \
	"perfsink_sink_out_bytes_total{sink=\"small\",plugin=\"zstd\"}=$SMALL_OUT"

# 2. A collector that is down: the drain waits drain_timeout after the stop.
if [ ! -f "$TOP_BUILDDIR/plugins/http/.libs/http.so" ]; then
	for i in 1 2 3 4; do skip "the http plugin is not built (no libcurl)"; done
	done_testing
fi
mkdir -m 700 spool
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:9/c\nspool_dir = %s\npart_size = 8K\ndrain_timeout = 3s\n' \
	"$T/spool" > down.ini
"$PERFSINK" record -a -F 999 --duration 1s --config down.ini --summary-json down.json \
	--stats-file down.prom > down.out 2> down.err &
PID=$!
# While the drain goes on: the stats file still rewritten, saying so.
draining() {
	grep -q '^perfsink_recording 1$' down.prom 2>/dev/null &&
		awk '$1 == "perfsink_drain_seconds" && $2 >= 1 { f = 1 } END { exit !f }' down.prom
}
check "--stats-file is rewritten while the sinks drain (perfsink_drain_seconds)" wait_for 30 draining
wait $PID
summary down.err > down.sum
check "the headline's time is the recording time (--duration 1s), not the 3 s drain after it" \
	python3 - down.sum down.json <<'PY' || show down.err
import json, sys
d, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert 1.0 <= d["secs"] < 2.0 and abs(d["secs"] - j["duration_s"]) <= 0.006, (d, j["duration_s"])
assert j["drain_s"] >= 2.5, j["drain_s"]
PY
check "the sinks' finishing is said apart" grep -Eq '^\[ perfsink record: the sinks finished [3-9]\.[0-9]+ s after the recording stopped \]$' down.err
PARTS=$(find spool -type f -name '[0-9]*' | wc -l)
check "parts left in the spool: the sink's count, the summary's, JSON's and the spool's agree ($PARTS, no end marker)" \
	eval "grep -q '^perfsink: net: warning: $PARTS parts ([0-9]* bytes) and 1 end marker not sent' down.err &&
	      grep -q \"this run's [0-9]* bytes ($PARTS parts) left in the spool\" down.err &&
	      grep -q '\"spooled_parts\": $PARTS,' down.json && test $PARTS -gt 0" || { show down.err; ls -R spool | sed 's/^/# /'; }
done_testing
