#!/bin/sh
# Ending a recording with signals, for every file sink (lib/sinks.sh):
# SIGINT, SIGTERM, SIGHUP (a closed terminal), and a second SIGINT during
# shutdown all leave a complete file that perf reads, in the sink's format.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
CHECKS=10 # per sink
plan $((CHECKS * $(sinks | wc -l)))
# A busy task, so that every sink (zstd writes in batches) soon has records
# to write whatever else the machine does.
"$WORKLOAD" cpu 600000 >/dev/null & busy=$!
cleanup_hook() { kill "$busy"; }
# Under nohup SIGHUP is ignored, and perfsink keeps it so (documented).
hup_ignored() { [ $((0x$(awk '/^SigIgn/ {print $2}' /proc/$$/status) & 1)) -eq 1 ]; }

# signals: the checks for SINK, in a fresh directory D.
signals() {
	D=$T/$SINK
	mkdir "$D" && cd "$D" || return
	printf '[sink.s]\nplugin = %s\n' "$SINK" >s.ini
	for sig in INT TERM HUP; do
		if [ $sig = HUP ] && hup_ignored; then
			skip "$SINK: SIGHUP ends the recording: SIGHUP is ignored here (nohup)"
			skip "$SINK: SIGHUP: perf report reads the file: SIGHUP is ignored here"
			continue
		fi
		"$PERFSINK" record --config s.ini -a -o $sig.data 2>err.$sig &
		pid=$!
		wait_recording $sig.data
		kill -$sig $pid
		wait $pid
		rc=$?
		check "$SINK: SIG$sig ends the recording with exit 0 (got $rc)" [ $rc -eq 0 ] || show err.$sig
		check "$SINK: SIG$sig: perf report reads the file" perf_clean $sig.data ||
			show $sig.data.report.err
	done
	check "$SINK: SIGINT: the file is in the sink's format" sink_header_ok "$SINK" INT.data
	if [ -f err.HUP ]; then
		check "$SINK: SIGHUP: the log says the recording ended on it" \
			grep -q "SIGHUP: ending the recording" err.HUP || show err.HUP
	else
		skip "$SINK: SIGHUP: the log says the recording ended on it: SIGHUP is ignored here"
	fi
	"$PERFSINK" record --config s.ini -q -a -g -F 5000 -o twice.data 2>err.twice &
	pid=$!
	wait_recording twice.data
	kill -INT $pid
	kill -INT $pid
	wait $pid
	check "$SINK: second SIGINT: still exit 0" [ $? -eq 0 ] || show err.twice
	check "$SINK: second SIGINT: perf report reads the file" perf_clean twice.data ||
		show twice.data.report.err
}

for SINK in $(sinks); do
	if sink_built "$SINK"; then
		signals
	else
		skip_n $CHECKS "$SINK: the sink is not built here"
	fi
done
done_testing
