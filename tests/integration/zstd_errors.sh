#!/bin/sh
# zstd sink errors: bad keys rejected with FILE:LINE before anything runs;
# an unwritable path gives one clear error.  (A full disk, for every file
# sink: sink_full_disk.sh.)
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 7
cd "$T"

# key = value on line 3 of a one-sink config: rejected with b.ini:3.
for kv in "level = 0" "level = 23" "threads = 0" "min_batch = 1X"; do
	printf '[sink.z]\nplugin = zstd\n%s\n' "$kv" >b.ini
	"$PERFSINK" record --config b.ini -- "$WORKLOAD" exit 0 >/dev/null 2>err
	rc=$?
	check "'$kv' rejected with FILE:LINE and exit 2" \
		eval "[ $rc -eq 2 ] && grep -q \"b.ini:3: .*'${kv%% *}'\" err" || show err
done

printf '[sink.z]\nplugin = zstd\npath = %s/no/such/dir/x.data\n' "$T" >nodir.ini
"$PERFSINK" record --config nodir.ini -- "$WORKLOAD" exit 0 >/dev/null 2>err
check "missing directory: exit 2" [ $? -eq 2 ] || show err
check "the error names the path and the reason" \
	grep -q "cannot write '$T/no/such/dir/x.data': '$T/no': No such file or directory" err || show err
check "and comes once" [ "$(grep -c 'no/such/dir' err)" -eq 1 ] || show err

done_testing
