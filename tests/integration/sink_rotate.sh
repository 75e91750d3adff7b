#!/bin/sh
# Rotation, for every file sink (lib/sinks.sh): by size, max_files, SIGUSR2,
# time, and the flight recorder's dumps.  Every segment is a complete
# perf.data in the sink's format; the segments of a size-rotated run hold
# exactly the samples of an unrotated aio_file copy recorded in the same
# run (fan-out); time-rotated segments give, one by one, the perf script of
# their aio_file twins cut at the same moments.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
CHECKS=20 # per sink
plan $((CHECKS * $(sinks | wc -l) + 1))
cd "$T"
check "--switch-max-files without rotation is refused" \
	sh -c "! '$PERFSINK' record --switch-max-files 2 -- '$WORKLOAD' exit 0 2>/dev/null"

# same_script A B: perf script gives the same lines for A and B, and says
# nothing on stderr about A.
same_script() {
	"$PERF" script -i "$1" >"$1.script" 2>"$1.script.err"
	"$PERF" script -i "$2" >"$2.script" 2>/dev/null
	cmp -s "$1.script" "$2.script" && [ ! -s "$1.script.err" ] && return 0
	diag "$1 differs from $2: $(wc -l <"$1.script") vs $(wc -l <"$2.script") lines"
	show "$1.script.err"
	diff "$1.script" "$2.script" | head -n 5 | sed 's/^/# /'
	return 1
}

# seg_resolves FILE: the workload's user-space samples in FILE lie in
# named objects (the segment carries its own MMAP records; a cut while the
# workload exits carries the maps of the cut before: core_rotate_exit.sh),
# and a segment with many of them names the hottest function.  A segment
# cut near the end may hold a few samples of the exit path only, none in
# hot_alpha.  Kernel samples are not this test's: one in a BPF program
# another test attached to a syscall tracepoint meanwhile is [unknown].
seg_resolves() {
	"$PERF" report -i "$1" --stdio --no-children -g none --comms workload \
		--sort dso,sym >"$1.syms" 2>/dev/null
	_wl=$("$PERF" script -i "$1" --comms workload -F tid 2>/dev/null | wc -l)
	if grep -qE '\[unknown\] +\[\.\]' "$1.syms" || { [ "$_wl" -ge 200 ] && ! grep -q hot_alpha "$1.syms"; }; then
		diag "$1: $_wl samples of the workload, $(stat -c %s "$1") bytes"
		show "$1.syms"
		return 1
	fi
}

# by_size: SINK rotating at 64K next to an unrotated aio_file copy (11 checks).
# The data (about 5000 samples with call chains, about 7 segments) come
# from a high rate rather than a long workload: this test's CPU is mostly
# the workload's.
by_size() {
	cat >size.ini <<-INI
	[record]
	freq = 4000
	call-graph = fp
	switch-output = 64K

	[sink.seg]
	plugin = $SINK
	path = $D/seg.data

	[sink.whole]
	plugin = aio_file
	path = $D/whole.data
	rotate = false
	direct = true
	INI
	"$PERFSINK" record -v --config size.ini -- "$WORKLOAD" cpu 1250 >/dev/null 2>err
	check "$SINK: size rotation run exits 0" [ $? -eq 0 ] || show err
	n=$(ls seg.data.* 2>/dev/null | wc -l)
	check "$SINK: several segments ($n)" [ "$n" -ge 3 ]
	check "$SINK: names carry a timestamp and a sequence number" \
		sh -c "ls seg.data.* | grep -qE 'seg\.data\.[0-9]{14}\.000000$'"
	bad=0 total=0 other=0
	for f in seg.data.*; do
		perf_clean "$f" || { bad=$((bad + 1)); show "$f.report.err"; }
		seg_resolves "$f" || bad=$((bad + 1))
		sink_header_ok "$SINK" "$f" || other=$((other + 1))
		total=$((total + $(perf_samples "$f")))
	done
	check "$SINK: each segment readable on its own and resolves symbols" [ "$bad" -eq 0 ]
	check "$SINK: each segment in the sink's format" [ "$other" -eq 0 ]
	# The same run's unrotated copy (rotate = false) holds exactly as many.
	want=$(perf_samples whole.data)
	check "$SINK: segments hold every sample once ($total, unrotated copy $want)" \
		[ "$total" -eq "$want" -a "$want" -gt 0 ]
	# The copy's buffers are placed for the segments' offsets, not for its
	# own: past the first cut it goes on with buffered writes, and stays
	# whole.  Only a buffer with a whole 4 KiB block in it can be misplaced:
	# when every buffer after the first cut is smaller (a loaded machine
	# drains often, in small buffers) the copy rightly keeps O_DIRECT and
	# there is nothing to check (test_aio_dio covers the split itself).
	if ! grep -q "whole.data': O_DIRECT writes" err; then
		skip "$SINK: no O_DIRECT here"
	elif grep -q "whole.data': buffered writes from offset" err; then
		ok "$SINK: the unrotated copy turns to buffered writes"
	else
		skip "$SINK: no buffer after the first cut held a whole 4 KiB block"
	fi
	check "$SINK: the unrotated copy reads clean" perf_clean whole.data || show whole.data.report.err

	rm -f seg.data.* whole.data
	"$PERFSINK" record --config size.ini --switch-max-files 2 -- "$WORKLOAD" cpu 1250 >/dev/null 2>err
	n=$(ls seg.data.* | wc -l)
	check "$SINK: --switch-max-files 2 keeps 2 ($n)" [ "$n" -eq 2 ] || show err
	last=$(ls seg.data.* | tail -n 1)
	check "$SINK: the newest one is kept" sh -c "echo '$last' | grep -qv '\.000000$'"
	# perf script, not report: a last segment cut just before the end may
	# hold no sample, and perf report says so on stderr.
	"$PERF" script -i "$last" >last.script 2>last.err
	check "$SINK: the newest one is readable" [ $? -eq 0 -a ! -s last.err ] || show last.err
}

# by_signal: three outputs from two SIGUSR2 and the end (2 checks).  Each
# SIGUSR2 is sent once the output before it holds records (a signal sent
# earlier would merge with the previous one); SIGINT ends the run.
by_signal() {
	printf '[sink.s]\nplugin = %s\n' "$SINK" >s.ini
	"$PERFSINK" record --config s.ini -F 999 --switch-output -o sig.data -- "$WORKLOAD" cpu 60000 >/dev/null 2>err &
	pid=$!
	wait_recording 'sig.data.*'
	kill -USR2 $pid
	wait_for 60 outputs_with_data 'sig.data.*' 2
	kill -USR2 $pid
	wait_for 60 outputs_with_data 'sig.data.*' 3
	kill -INT $pid
	wait $pid
	n=$(ls sig.data.* | wc -l)
	check "$SINK: SIGUSR2 rotation: 3 outputs ($n)" [ "$n" -eq 3 ] || show err
	bad=0
	for f in sig.data.*; do perf_clean "$f" || bad=1; done
	check "$SINK: SIGUSR2 segments readable" [ "$bad" -eq 0 ]
}

# by_time: every second, next to an aio_file twin cut at the same moments;
# then the flight recorder's dump, twin too (7 checks).  2 s of workload CPU
# take at least 2 s, so the 1 s timer cuts at least once on any machine.
by_time() {
	cat >twin.ini <<-INI
	[record]
	freq = 2000

	[sink.plain]
	plugin = aio_file
	path = $D/p.data

	[sink.z]
	plugin = $SINK
	path = $D/z.data
	$(sink_keys "$SINK")
	INI
	"$PERFSINK" record --config twin.ini --switch-output=1s -g -- "$WORKLOAD" cpu 2000 >/dev/null 2>err
	check "$SINK: time rotation run exits 0" [ $? -eq 0 ] || show err
	nz=$(ls z.data.* 2>/dev/null | wc -l)
	np=$(ls p.data.* 2>/dev/null | wc -l)
	check "$SINK: as many segments as aio_file ones, at least 2 ($nz, $np)" [ "$nz" -eq "$np" -a "$nz" -ge 2 ]
	check "$SINK: no unused z.data left behind" [ ! -e z.data ]
	same=0 bad=0
	for z in z.data.*; do
		same_script "$z" "p${z#z}" && same=$((same + 1))
		perf_clean "$z" || bad=1
	done
	check "$SINK: every segment gives its twin's perf script" [ "$same" -eq "$nz" ]
	check "$SINK: time segments readable" [ "$bad" -eq 0 ]

	rm -f z.data.* p.data.*
	"$PERFSINK" record --config twin.ini --overwrite -g -- "$WORKLOAD" cpu 800 >/dev/null 2>err
	z=$(ls z.data.* 2>/dev/null | head -n 1)
	check "$SINK: flight recorder: a dump" [ -n "$z" -a -s "$z" ] || show err
	check "$SINK: with the events of the aio_file dump" same_script "$z" "p${z#z}"
}

for SINK in $(sinks); do
	if sink_built "$SINK"; then
		D=$T/$SINK
		mkdir "$D" && cd "$D" || exit 1
		by_size
		by_signal
		by_time
	else
		skip_n $CHECKS "$SINK: the sink is not built here"
	fi
done
done_testing
