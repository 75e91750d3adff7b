#!/bin/sh
# zstd levels 1, 3 and 19 all give files perf reads with the same events
# as the uncompressed file; -o sets the path of a lone zstd sink.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 9
cd "$T"
{
	printf '[record]\nfreq = 2000\n\n[sink.plain]\nplugin = aio_file\npath = %s/plain.data\n' "$T"
	for l in 1 3 19; do
		printf '\n[sink.l%s]\nplugin = zstd\npath = %s/l%s.data\nlevel = %s\n' $l "$T" $l $l
	done
} >levels.ini
"$PERFSINK" record --config levels.ini -g -- "$WORKLOAD" cpu 800 >/dev/null 2>err
check "run with three levels exits 0" [ $? -eq 0 ] || show err
"$PERF" script -i plain.data >plain.script 2>/dev/null
for l in 1 3 19; do
	"$PERF" script -i l$l.data >l$l.script 2>l$l.err
	check "level $l: same perf script as the plain file" cmp plain.script l$l.script ||
		show l$l.err
	"$PERF" report -i l$l.data --header-only >l$l.hdr 2>&1
	check "level $l: the header says so" grep -q "^# compressed : Zstd, level = $l," l$l.hdr ||
		show l$l.hdr
done
printf '[sink.z]\nplugin = zstd\nlevel = 3\n' >lone.ini
"$PERFSINK" record --config lone.ini -o "$T/o.data" -- "$WORKLOAD" cpu 300 >/dev/null 2>err
check "-o sets the path of the zstd sink" [ $? -eq 0 -a -s o.data ] || show err
check "and perf report reads it" perf_clean o.data || show o.data.report.err
done_testing
