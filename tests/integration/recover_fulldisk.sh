#!/bin/sh
# The zstd sink on a disk that fills (tmpfs of 16K to 1M): whatever it
# leaves is read by perf directly or after perfsink recover, and it says
# "perf report reads it" only when perf does.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 4
cd "$T"
mkdir small
mount -t tmpfs -o size=16k tmpfs small 2>/dev/null || skip_all "cannot mount a tmpfs"
umount small
cleanup_hook() { umount "$T/small"; }
printf '[sink.z]\nplugin = zstd\npath = %s/small/full.data\n' "$T" >full.ini
# perf_reads FILE: perf report exits 0 and says nothing on stderr but its
# warning that the kernel lost events (a LOST record is data, not damage:
# a loaded machine or an overwritten flight-recorder ring gives them).
perf_reads() {
	"$PERF" report -i "$1" --stdio >"$1.report" 2>"$1.report.err" || return 1
	! grep -v -e '^Warning:$' -e '^$' -e 'Processed [0-9]* events and lost [0-9]* chunks!' \
		-e 'Processed [0-9]* samples and lost' -e 'Check IO/CPU overload!' "$1.report.err" | grep -q .
}
script_clean() { "$PERF" script -i "$1" >/dev/null 2>"$1.script.err" && [ ! -s "$1.script.err" ]; }

false_claims=0 unreadable=0 partial=0 whole=0
for sz in 16k 32k 64k 72k 80k 96k 128k 256k 512k 1m; do
	mount -t tmpfs -o size=$sz tmpfs small
	"$PERFSINK" record --config full.ini -F 20000 -g -- "$WORKLOAD" cpu 1500 >/dev/null 2>err
	rc=$?
	state="exit $rc"
	if [ -e small/full.data ]; then
		# The disk is full: perf's report and recover's temporary file go
		# next to a copy (written beside it, they failed for want of space).
		out=full.$sz.data
		cp small/full.data $out
		n=$(perf_samples $out)
		direct=no
		perf_reads $out && [ "$n" -gt 0 ] && direct=yes
		if grep -q "perf report reads it" err && [ $direct = no ]; then
			false_claims=$((false_claims + 1))
			show err
		fi
		if [ $direct = no ]; then
			"$PERFSINK" recover $out >rec 2>&1 || show rec
			n=$(perf_samples $out)
			perf_reads $out || { [ "$n" -eq 0 ] && script_clean $out; } ||
				{ unreadable=$((unreadable + 1)); show rec $out.report.err; }
		fi
		[ $rc -eq 1 ] && [ "$n" -gt 0 ] && partial=$((partial + 1))
		[ $rc -eq 0 ] && [ $direct = yes ] && whole=$((whole + 1))
		state="$state, $n samples, read directly: $direct"
	else
		state="$state, no file left"
	fi
	diag "$sz: $state"
	umount small
done
check "no size makes the sink claim perf reads a file it cannot ($false_claims)" [ $false_claims -eq 0 ]
check "every output left is read by perf, directly or after recover ($unreadable not)" [ $unreadable -eq 0 ]
check "a disk that fills mid-recording keeps samples ($partial sizes)" [ $partial -gt 0 ]
check "the large sizes hold the whole recording ($whole sizes)" [ $whole -gt 0 ]
done_testing
