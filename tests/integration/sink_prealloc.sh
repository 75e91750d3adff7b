#!/bin/bash
# O_DIRECT file sinks grow the file ahead of the data with fallocate, so
# their writes overwrite allocated blocks instead of appending (see
# prealloc in plugins/kit/file_sink.c): the finished file still ends where
# perf's feature sections end, a killed recording's file (zeros after the
# data) is read by perf and cut to its data by perfsink recover, and a
# nearly full ext4 gives only part of its free space at a time.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
SINKS="aio_file uring_file"
plan $((10 * 2))
cd "$T"

# layout FILE: "file-size data-end features-end" from the perf.data header
# (features-end: where the last feature section ends; data-end if none).
layout() {
	python3 - "$1" <<'PY'
import os, struct, sys
f = open(sys.argv[1], 'rb'); h = f.read(104)
doff, dsize = struct.unpack_from('<QQ', h, 40)
bits = int.from_bytes(h[72:104], 'little')
nr = bin(bits & ~1).count('1')
f.seek(doff + dsize); idx = f.read(16 * nr)
end = doff + dsize
for i in range(len(idx) // 16):
    o, s = struct.unpack_from('<QQ', idx, 16 * i)
    end = max(end, o + s)
print(os.path.getsize(sys.argv[1]), doff + dsize, end)
PY
}
ends_at_features() { set -- $(layout "$1"); [ "$1" = "$3" ]; }
# grown FILE: the file reaches past its data by at least a MiB (the zeros ahead).
grown() { set -- $(layout "$1"); [ "$1" -ge $(($2 + 1048576)) ]; }
checkpointed() { [ "$(data_size "$1")" -gt 200000 ] 2>/dev/null; }
# killed_run INI FILE: record with INI until FILE's data.size passes 200 KB, then kill -9.
# FILE is removed first: the finished recording before it, at the same path,
# is past 200 KB already, and a slow start (ASan) was once killed before it
# had replaced it, leaving that finished file to be checked as the killed one.
killed_run() {
	rm -f "$2"
	"$PERFSINK" record -q --config "$1" -e cpu-clock -F 4000 -g -- "$WORKLOAD" cpu 600000 >/dev/null 2>k.err &
	pid=$!
	wait_for 20 child_of $pid
	wait_for 30 checkpointed "$2"
	kill -9 $pid
	wait $pid 2>/dev/null
	kill -9 "$w" 2>/dev/null
}

mkdir ext4
ext4=yes
truncate -s 32M ext4.img && mkfs.ext4 -q -F ext4.img && mount -o loop ext4.img ext4 || ext4=no
cleanup_hook() { [ "$ext4" = no ] || umount "$T/ext4"; }

for SINK in $SINKS; do
	if ! sink_built $SINK; then
		skip_n 10 "$SINK: not built, or its kernel interface is unavailable here"
		continue
	fi
	printf '[sink.f]\nplugin = %s\ndirect = true\npath = %s\n' $SINK "$T/$SINK.data" > $SINK.ini
	"$PERFSINK" record -v --config $SINK.ini -e cpu-clock -F 4000 -g -- "$WORKLOAD" cpu 800 >/dev/null 2>$SINK.err
	check "$SINK: a recording with O_DIRECT exits 0" [ $? = 0 ] || show $SINK.err
	check "$SINK: -v says the file was grown ahead of its data" \
		grep -q "$SINK.data': grown ahead of the data [1-9][0-9]* times" $SINK.err || show $SINK.err
	check "$SINK: the file ends where its last feature section ends ($(layout $SINK.data))" \
		ends_at_features $SINK.data
	check "$SINK: perf report reads it" perf_clean $SINK.data || show $SINK.data.report.err

	# Killed: the zeros ahead are on disk; perf reads the data, recover cuts them.
	killed_run $SINK.ini $SINK.data
	check "$SINK: killed, the file reaches past its data ($(layout $SINK.data))" grown $SINK.data
	check "$SINK: perf report reads the killed file" perf_clean $SINK.data || show $SINK.data.report.err
	"$PERFSINK" recover $SINK.data >rec.out 2>&1
	check "$SINK: perfsink recover repairs it" [ $? = 0 ] || show rec.out
	check "$SINK: and cuts it where its features end ($(layout $SINK.data))" ends_at_features $SINK.data
	check "$SINK: perf report reads the repaired file" perf_clean $SINK.data || show $SINK.data.report.err

	# A nearly full disk: a step is at most an eighth of the free space.
	if [ "$ext4" = no ]; then
		skip "cannot mount an ext4 image"
		continue
	fi
	printf '[sink.f]\nplugin = %s\ndirect = true\npath = %s\n' $SINK "$T/ext4/$SINK.data" > small.ini
	free0=$(df -B1 --output=avail ext4 | tail -n 1)
	killed_run small.ini ext4/$SINK.data
	set -- $(layout ext4/$SINK.data)
	check "$SINK: on a nearly full disk the file grew by less than half the free space ($(($1 - $2)) of $free0 bytes)" \
		[ $(($1 - $2)) -lt $((free0 / 2)) ]
	rm -f ext4/$SINK.data
done
done_testing
