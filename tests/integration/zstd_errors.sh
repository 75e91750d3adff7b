#!/bin/sh
# zstd sink errors: bad keys rejected with FILE:LINE before anything runs;
# an unwritable path gives one clear error; a full disk gives a clear error,
# exit 1, and a file perf still reads.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 18
cd "$T"

# key = value on line 3 of a one-sink config: rejected with b.ini:3.
for kv in "level = 0" "level = 23" "threads = 0" "min_batch = 1X"; do
	printf '[sink.z]\nplugin = zstd\n%s\n' "$kv" >b.ini
	"$PERFSINK" record --config b.ini -- "$WORKLOAD" exit 0 >/dev/null 2>err
	rc=$?
	check "'$kv' rejected with FILE:LINE and exit 2" \
		[ $rc -eq 2 ] && grep -q "b.ini:3: .*'${kv%% *}'" err || show err
done

printf '[sink.z]\nplugin = zstd\npath = %s/no/such/dir/x.data\n' "$T" >nodir.ini
"$PERFSINK" record --config nodir.ini -- "$WORKLOAD" exit 0 >/dev/null 2>err
check "missing directory: exit 2" [ $? -eq 2 ] || show err
check "the error names the path and the reason" \
	grep -q "cannot create '$T/no/such/dir/x.data': No such file or directory" err || show err
check "and comes once" [ "$(grep -c 'no/such/dir' err)" -eq 1 ] || show err

mkdir small
mount -t tmpfs -o size=256k tmpfs small 2>/dev/null || { skip_rest=1; }
cleanup_hook() { umount "$T/small"; }
if [ "${skip_rest:-0}" = 1 ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11; do ok "# SKIP cannot mount a tmpfs"; done
	done_testing
fi
printf '[sink.z]\nplugin = zstd\npath = %s/small/full.data\n' "$T" >full.ini
# Already full at start: nothing to write the header to.
dd if=/dev/zero of=small/fill bs=4k count=100 2>/dev/null
"$PERFSINK" record --config full.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err
check "disk full at start: exit 2" [ $? -eq 2 ] || show err
check "with a clear error" \
	grep -q "cannot write '$T/small/full.data': No space left on device" err || show err
check "and no empty file left behind" [ ! -e small/full.data ]
rm -f small/fill
# ~3 MB of ring data compress to ~200 KB: more than the 256 KiB disk holds
# after the header and the records of the other processes.
"$PERFSINK" record --config full.ini -F 20000 -g -- "$WORKLOAD" cpu 4000 >/dev/null 2>err
rc=$?
check "full disk: exit status 1 (got $rc)" [ $rc -eq 1 ] || show err
check "the error says the disk is full and names the file" \
	grep -q "writing '$T/small/full.data' failed: No space left on device" err || show err
check "one error line from the sink" [ "$(grep -c 'z: error' err)" -eq 1 ] || show err
check "the sink reports what it dropped" grep -q 'LOST .* bytes' err || show err
# The disk is full: perf's report goes next to a copy.
cp small/full.data full.copy.data
check "perf report reads what was written" perf_clean full.copy.data ||
	show full.copy.data.report.err
check "and it holds samples" [ "$(perf_samples full.copy.data)" -gt 1000 ]
"$PERF" report -i full.copy.data --header-only >hdr 2>&1
check "with the compression feature" grep -q '^# compressed : Zstd' hdr || show hdr
check "the space kept for the features was given back" \
	[ "$(du -k small/full.data | cut -f1)" -le $(($(stat -c %s small/full.data) / 1024 + 8)) ]
done_testing
