#!/bin/sh
# What docs/perf-format.md says of padding, against the real perf: a
# FINISHED_INIT of any size, anywhere in the data section, is read past in
# silence (a direct write from a ring would need such pads to align the
# file offset; docs/BENCHMARKS.md, "Writing straight from the ring"), while
# a record of a type perf does not know stops it.  The pads are inserted
# by bench/pad_probe.py into a perfsink recording with DWARF stacks.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v python3 >/dev/null || skip_all "python3 runs bench/pad_probe.py"
PROBE="$TOP_SRCDIR/bench/pad_probe.py"
plan 6
cd "$T"
"$PERFSINK" record -q -o in.data -F 2000 --call-graph dwarf -- "$WORKLOAD" cpu 200 >/dev/null 2>err
check "a recording to pad" [ $? -eq 0 -a -s in.data ] || show err
"$PERF" script -i in.data >in.script 2>/dev/null

# padded SIZE EVERY: perf script and perf report read a copy with pads of
# SIZE bytes (0 EVERY: after each FINISHED_ROUND) as they read the original.
padded() {
	python3 "$PROBE" in.data pad.data 82 "$1" "$2" >probe.out 2>&1 || { show probe.out; return 1; }
	grep -q ': [1-9][0-9]* records of type 82' probe.out || { show probe.out; return 1; }
	"$PERF" script -i pad.data >pad.script 2>script.err &&
		"$PERF" report --stdio -i pad.data >/dev/null 2>report.err &&
		[ ! -s script.err ] && [ ! -s report.err ] && cmp -s in.script pad.script ||
		{ show probe.out script.err report.err; return 1; }
}
check "8-byte FINISHED_INIT after every record: read in silence, same perf script" padded 8 1
check "504-byte FINISHED_INIT after every 5th record: the same" padded 504 5
check "65528-byte FINISHED_INIT after every FINISHED_ROUND: the same" padded 65528 0
# inits FILE: the FINISHED_INIT records perf report --stats counts in FILE.
inits() { "$PERF" report --stats -i "$1" 2>/dev/null | sed -n 's/.*FINISHED_INIT events: *\([0-9]*\).*/\1/p'; }
python3 "$PROBE" in.data pad.data 82 512 0 >probe.out
pads=$(sed -n 's/.*: \([0-9]*\) records of type 82.*/\1/p' probe.out)
check "perf report --stats counts the $pads pads beside the recording's own FINISHED_INIT" \
	[ "$(inits pad.data)" = "$(($(inits in.data) + pads))" ]
# The probe can tell a pad perf skips from one it does not: type 99 fails.
python3 "$PROBE" in.data pad.data 99 512 1 >/dev/null
"$PERF" report --stdio -i pad.data >/dev/null 2>report.err
check "a record of an unknown type (99) is not read past" grep -q 'failed to process type: 99' report.err ||
	show report.err
done_testing
