#!/bin/sh
# perfsink recover on files made to look killed: good recordings (aio_file,
# zstd, a tracepoint) cut at a table of points, garbage after the data, a
# complete file (left alone), -o (original untouched), files that are not
# perf.data or have damaged attrs (exit 1), usage errors (exit 2), a full
# disk under -o (nothing half-written left).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 29
cd "$T"
# Exactly 4000 getppid tracepoint hits: counts after a cut can be checked
# against a known total; cpu-clock with call chains for build-ids and zstd.
cat >two.ini <<INI
[sink.plain]
plugin = aio_file
path = $T/good.data

[sink.z]
plugin = zstd
path = $T/goodz.data
INI
"$PERFSINK" record -q --config two.ini -e syscalls:sys_enter_getppid -- "$WORKLOAD" getppid 4000 2>err
check "tracepoint recording exits 0" [ $? -eq 0 ] || show err
"$PERFSINK" record -q -g -F 999 -o cpu.data -- "$WORKLOAD" cpu 800 >/dev/null 2>>err
want=$(perf_samples good.data)
wantz=$(perf_samples goodz.data)
check "reference files hold the 4000 hits ($want, zstd $wantz)" [ "$want" -eq 4000 -a "$wantz" -eq 4000 ]

# data.offset and data.size of a header.
hdr() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# Complete files are left alone; -o copies them unchanged.
cp good.data keep.data
"$PERFSINK" recover good.data >out 2>err
check "a complete file: exit 0, said so" grep -q "good.data: complete, left alone" out || show out err
check "... and its bytes are unchanged" cmp -s good.data keep.data

# cut FILE N NAME: a copy of FILE cut to N bytes, its feature bitmap zeroed
# as a killed recorder leaves it (data.size stays: the sinks keep it current).
cut_copy() {
	head -c "$2" "$1" >"$3"
	[ "$2" -ge 104 ] && dd if=/dev/zero of="$3" bs=1 seek=72 count=32 conv=notrunc 2>/dev/null
	return 0
}

# The table: cut points inside the data, at its exact end (features gone),
# inside the features.  Each must be repaired to a file perf reads with
# nothing on stderr, holding at most as many hits as the original, more
# as the cut moves on, and all of them once the data is whole.
for src in good.data goodz.data; do
	off=$(hdr $src 40)
	size=$(hdr $src 48)
	end=$((off + size))
	last=0 ok=1 table=""
	for at in $((off + 200)) $((off + size / 4)) $((off + size / 2)) $((end - 1)) $end $((end + 40)); do
		cut_copy $src $at cut.data
		"$PERFSINK" recover cut.data >out 2>err || { ok=0; show out err; }
		n=$(perf_samples cut.data)
		perf_clean cut.data || { [ "$n" -eq 0 ] && "$PERF" script -i cut.data 2>&1 >/dev/null | wc -c | grep -qx 0; } ||
			{ ok=0; show cut.data.report.err; }
		[ "$n" -ge "$last" ] && [ "$n" -le 4000 ] || ok=0
		[ "$at" -ge "$end" ] && [ "$n" -ne 4000 ] && ok=0
		last=$n
		table="$table $((at - off)):$n"
	done
	diag "$src cut at data byte:hits kept =$table"
	check "$src cut at 6 points: each repaired, readable, hits grow to all 4000" [ $ok -eq 1 ]
done
# The tracepoint needs TRACING_DATA and its name from tracefs.
cut_copy good.data $(($(hdr good.data 40) + $(hdr good.data 48))) tp.data
"$PERFSINK" recover tp.data >out 2>err
check "the repaired tracepoint file names its event" sh -c "'$PERF' script -i tp.data -F event 2>/dev/null | grep -q 'syscalls:sys_enter_getppid'"
# COMPRESSED feature from the data: perf reports it, mmap_len is enough.
cut_copy goodz.data $(($(hdr goodz.data 40) + $(hdr goodz.data 48) / 2)) z.data
"$PERFSINK" recover -v z.data >out 2>err
check "zstd: the repaired file announces its compression" sh -c "'$PERF' report -i z.data --header-only 2>/dev/null | grep -q 'compressed : Zstd'" || show out
check "zstd: -v says how many COMPRESSED records and their largest size" grep -q "COMPRESSED records, the largest [0-9]* bytes decompressed" out || show out

# Build-ids of the files the MMAP records name, as the engine writes them.
cut_copy cpu.data $(($(hdr cpu.data 40) + $(hdr cpu.data 48))) bid.data
"$PERFSINK" recover bid.data >out 2>err
check "build-ids rebuilt: the workload's matches perf record's view" sh -c \
	"'$PERF' buildid-list -i bid.data 2>/dev/null | grep -q \"\$('$PERF' buildid-list -i cpu.data 2>/dev/null | grep workload)\""
check "the samples resolve to the workload's functions" sh -c "'$PERF' report -i bid.data --stdio 2>/dev/null | grep -q hot_alpha"

# Groups: GROUP_DESC rebuilt from the attrs (members are not disabled).
"$PERFSINK" record -q -e '{cpu-clock,task-clock},cs' -o grp.data -- "$WORKLOAD" cpu 50 2>err
cut_copy grp.data $(($(hdr grp.data 40) + $(hdr grp.data 48))) grpcut.data
"$PERFSINK" recover grpcut.data >out 2>&1
check "a group's GROUP_DESC is rebuilt: perf evlist -g shows it" \
	sh -c "'$PERF' evlist -g -i grpcut.data 2>/dev/null | grep -qx '{cpu-clock,task-clock}'" || show out err

# Garbage after the last record (a torn write, the next file's bytes).
cut_copy good.data $(($(hdr good.data 40) + $(hdr good.data 48))) junk.data
head -c 3000 /dev/urandom >>junk.data
before=$(stat -c %s junk.data)
"$PERFSINK" recover junk.data >out 2>err
check "garbage after the data is cut: all 4000 hits kept" [ "$(perf_samples junk.data)" -eq 4000 ] || show out err
check "... and the report says so" grep -q "records kept, [1-9][0-9]* bytes cut" out || show out
# A record whose tail a killed write left zero from a page boundary on
# (the data offset is page-aligned): dropped, the ones before it kept.  A
# boundary where one record ends and the next begins has nothing torn, so
# try a few until one cuts through a record.
off=$(hdr cpu.data 40)
torn=0
for pg in 3 4 5 6 7 8; do
	cut_copy cpu.data $((off + pg * 4096 + 1024)) torn.data
	dd if=/dev/zero of=torn.data bs=1 seek=$((off + pg * 4096)) count=1024 conv=notrunc 2>/dev/null
	"$PERFSINK" recover -v torn.data >out 2>err
	grep -q "a record torn by the kill" out && torn=$pg && break
done
check "a record torn at a page boundary is dropped (page $torn), the rest reads clean" \
	[ $torn -gt 0 ] && [ "$(hdr torn.data 48)" -lt $((torn * 4096)) ] && perf_clean torn.data ||
	show out torn.data.report.err

# What a killed perf record leaves (data.size 0, perf refuses it) is
# repaired too.  perf writes once its rings are half full: wait for that.
"$PERF" record -q -g -o killed.data -- "$WORKLOAD" cpu 60000 >/dev/null 2>&1 &
ppid=$!
wait_for 60 sh -c '[ "$(stat -c %s killed.data 2>/dev/null || echo 0)" -gt 100000 ]'
w=$(pgrep -P $ppid | head -n 1)
kill -9 $ppid
wait $ppid 2>/dev/null
[ -n "$w" ] && kill -9 "$w"
refused=no
perf_clean killed.data || refused=yes
"$PERFSINK" recover killed.data >out 2>err
check "perf record killed with -9: perf refuses it ($refused), recover repairs it" \
	[ $refused = yes ] && perf_clean killed.data && [ "$(perf_samples killed.data)" -gt 100 ] ||
	show out err killed.data.report.err

# -o: the original stays byte for byte, the copy is repaired.  Cut half
# way through the data: the first 1000 bytes, cut before, sometimes held
# the setup records alone, and perf report refuses a file with no sample.
cut_copy good.data $(($(hdr good.data 40) + $(hdr good.data 48) / 2)) orig.data
cp orig.data orig.copy
"$PERFSINK" recover -o fixed.data orig.data >out 2>err
check "-o exits 0 and names the copy" grep -q "orig.data: repaired into fixed.data" out || show out err
check "-o leaves the original untouched" cmp -s orig.data orig.copy
check "-o's copy reads clean" perf_clean fixed.data || show fixed.data.report.err
check "in place and with -o give the same file" sh -c "'$PERFSINK' recover orig.data >/dev/null && cmp -s orig.data fixed.data"
check "no temporary file left behind" sh -c "! ls -a | grep -q '\.recover\.'"

# Files that cannot be repaired: exit 1, untouched.
head -c 5000 /etc/services >text.data
cp text.data text.copy
"$PERFSINK" recover text.data >out 2>err
rc=$?
check "not perf.data: exit 1 ($rc), reason given" [ $rc -eq 1 ] && grep -q "not a perf.data file" err || show err
check "... and left as it was" cmp -s text.data text.copy
cut_copy good.data 2000 attrs.data
printf '\377\377\377\377\377\377\377\177' | dd of=attrs.data bs=1 seek=32 conv=notrunc 2>/dev/null
"$PERFSINK" recover attrs.data >out 2>err
rc=$?
check "damaged attrs: exit 1 ($rc)" [ $rc -eq 1 ] && grep -q "attrs damaged" err || show err
ln -s orig.data link.data
"$PERFSINK" recover link.data >out 2>err
check "a symbolic link is refused (exit $?)" grep -q "symbolic link" err || show err

# Usage errors: exit 2.
"$PERFSINK" recover >/dev/null 2>err
check "no FILE: exit 2" [ $? -eq 2 ]
"$PERFSINK" recover -o x.data a.data b.data >/dev/null 2>err
check "-o with two FILEs: exit 2" [ $? -eq 2 ]
"$PERFSINK" recover --bogus orig.data >/dev/null 2>err
check "unknown option: exit 2" [ $? -eq 2 ]

# A full disk under -o: exit 1, no partial output and no temporary file.
mkdir small
if mount -t tmpfs -o size=16k tmpfs small 2>/dev/null; then
	cleanup_hook() { umount "$T/small"; }
	"$PERFSINK" recover -o small/out.data cpu.data >out 2>err
	rc=$?
	check "full disk: exit 1 ($rc), nothing left in the directory" [ $rc -eq 1 ] && [ -z "$(ls -A small)" ] || show err
else
	skip "cannot mount a tmpfs"
fi
done_testing
