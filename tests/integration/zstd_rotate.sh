#!/bin/sh
# Rotation with the zstd sink next to aio_file: the same segments, each a
# complete compressed perf.data with the events of its aio_file twin;
# --switch-max-files prunes; --overwrite dumps compressed too.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 10
cd "$T"
cat >rot.ini <<INI
[record]
freq = 2000

[sink.plain]
plugin = aio_file
path = $T/p.data

[sink.z]
plugin = zstd
path = $T/z.data
threads = 2
INI
"$PERFSINK" record --config rot.ini --switch-output=1s -g -- "$WORKLOAD" cpu 3500 >/dev/null 2>err
check "rotating run exits 0" [ $? -eq 0 ] || show err
nz=$(ls z.data.* 2>/dev/null | wc -l)
np=$(ls p.data.* 2>/dev/null | wc -l)
check "as many zstd segments as aio_file ones, at least 2 ($nz, $np)" [ "$nz" -eq "$np" -a "$nz" -ge 2 ]
check "no unused z.data left behind" [ ! -e z.data ]
same=0
for z in z.data.*; do
	"$PERF" script -i "$z" >z.script 2>z.err
	"$PERF" script -i "p${z#z}" >p.script 2>/dev/null
	if cmp -s z.script p.script && [ ! -s z.err ]; then
		same=$((same + 1))
	else
		diag "$z differs from its aio_file twin: $(wc -l <z.script) vs $(wc -l <p.script) lines"
		show z.err
		diff z.script p.script | head -n 5 | sed 's/^/# /'
	fi
done
check "every segment gives its twin's perf script" [ "$same" -eq "$nz" ]

# By size, next to an unrotated aio_file copy of the same run (rotate = false).
cat >size.ini <<INI
[record]
freq = 2000
call-graph = fp
switch-output = 64K

[sink.z]
plugin = zstd
path = $T/zs.data

[sink.whole]
plugin = aio_file
path = $T/whole.data
rotate = false
INI
"$PERFSINK" record --config size.ini -- "$WORKLOAD" cpu 2500 >/dev/null 2>err
n=$(ls zs.data.* 2>/dev/null | wc -l)
check "size rotation: several zstd segments ($n)" [ "$n" -ge 3 ] || show err
sum=0
for z in zs.data.*; do sum=$((sum + $(perf_samples "$z"))); done
want=$(perf_samples whole.data)
check "their samples add up to the unrotated copy's ($sum, $want)" [ "$sum" -eq "$want" -a "$want" -gt 0 ]

rm -f z.data.* p.data.*
"$PERFSINK" record --config rot.ini --switch-output=1s --switch-max-files 2 -- "$WORKLOAD" cpu 3500 >/dev/null 2>err
check "--switch-max-files 2 keeps two zstd segments" [ "$(ls z.data.* | wc -l)" -eq 2 ] || show err
last=$(ls z.data.* | tail -n 1)
# perf script, not report: a last segment cut just before the end may hold
# no sample, and perf report says so on stderr.
"$PERF" script -i "$last" >last.script 2>last.err
check "the newest one is readable" [ $? -eq 0 -a ! -s last.err ] || show last.err

rm -f z.data.* p.data.*
"$PERFSINK" record --config rot.ini --overwrite -g -- "$WORKLOAD" cpu 800 >/dev/null 2>err
z=$(ls z.data.* 2>/dev/null | head -n 1)
check "flight recorder: a zstd dump" [ -n "$z" -a -s "$z" ] || show err
"$PERF" script -i "$z" >z.script 2>/dev/null
"$PERF" script -i "p${z#z}" >p.script 2>/dev/null
check "with the events of the aio_file dump" cmp z.script p.script
done_testing
