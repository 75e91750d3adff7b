#!/bin/sh
# A full disk: a clear error, a non-zero exit, and a file perf still reads.
. "$TESTS_SRCDIR/lib.sh"
need_root
mkdir "$T/small"
mount -t tmpfs -o size=3m tmpfs "$T/small" 2>/dev/null || skip_all "cannot mount a tmpfs"
cleanup_hook() { umount "$T/small"; }
plan 5
cd "$T"
"$PERFSINK" record -a -F 20000 -g --duration 10 -o small/full.data -- "$WORKLOAD" cpu 4000 >/dev/null 2>err
rc=$?
check "exit status is 1 (got $rc)" [ $rc -eq 1 ] || show err
check "error says the disk is full" grep -q 'No space left on device' err || show err
check "error names the file" grep -q 'small/full.data' err
# The tmpfs is full: perf's report goes next to a copy.
cp small/full.data full.data
check "perf report reads what was written" perf_clean full.data || show full.data.report.err
check "and it holds samples" [ "$(perf_samples full.data)" -gt 100 ]
done_testing
