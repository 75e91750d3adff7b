#!/bin/sh
# Ending a recording with signals: SIGINT, SIGTERM, SIGHUP (a closed
# terminal), and a second SIGINT during shutdown all leave a complete file.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 9
cd "$T"
# Under nohup SIGHUP is ignored, and perfsink keeps it so (documented).
hup_ignored() { [ $((0x$(awk '/^SigIgn/ {print $2}' /proc/$$/status) & 1)) -eq 1 ]; }
for sig in INT TERM HUP; do
	if [ $sig = HUP ] && hup_ignored; then
		skip "SIGHUP ends the recording: SIGHUP is ignored here (nohup)"
		skip "SIGHUP: perf report reads the file: SIGHUP is ignored here"
		continue
	fi
	"$PERFSINK" record -a -o $sig.data 2>err.$sig &
	pid=$!
	wait_recording $sig.data
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig ends the recording with exit 0 (got $rc)" [ $rc -eq 0 ] || show err.$sig
	check "SIG$sig: perf report reads the file" perf_clean $sig.data || show $sig.data.report.err
done
if [ -f err.HUP ]; then
	check "SIGHUP: the log says the recording ended on it" grep -q "SIGHUP: ending the recording" err.HUP ||
		show err.HUP
else
	skip "SIGHUP: the log says the recording ended on it: SIGHUP is ignored here"
fi
"$PERFSINK" record -q -a -g -F 5000 -o twice.data 2>err.twice &
pid=$!
wait_recording twice.data
kill -INT $pid
kill -INT $pid
wait $pid
check "second SIGINT: still exit 0" [ $? -eq 0 ] || show err.twice
check "second SIGINT: perf report reads the file" perf_clean twice.data || show twice.data.report.err
done_testing
