#!/bin/sh
# A full disk, for every file sink (lib/sinks.sh), on a tmpfs.  Full at the
# start: exit 2, one clear error, no empty file left.  Filling during the
# run: exit 1, one error from the sink naming the file and the reason, what
# was lost counted on the sink's line, and a file perf reads, in the sink's
# format, holding the samples the summary counts, with no space left
# reserved past its end.  (aio_file's write modes on a full ext4, buffered
# and O_DIRECT: core_enospc.sh.)
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
mkdir "$T/probe"
mount -t tmpfs -o size=16k tmpfs "$T/probe" 2>/dev/null || skip_all "cannot mount a tmpfs"
umount "$T/probe"
CHECKS=13 # per sink
plan $((CHECKS * $(sinks | wc -l)))
cleanup_hook() { for _m in "$T"/*/small; do mountpoint -q "$_m" && umount "$_m"; done; }

# full_disk: the checks for SINK, in a fresh directory D.
full_disk() {
	D=$T/$SINK
	mkdir "$D" "$D/small" && cd "$D" || return
	out=$D/small/full.data
	printf '[sink.f]\nplugin = %s\npath = %s\n' "$SINK" "$out" >full.ini

	# Already full at start: nothing to write the header to.
	mount -t tmpfs -o size=256k tmpfs small
	dd if=/dev/zero of=small/fill bs=4k 2>/dev/null
	"$PERFSINK" record --config full.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err.start
	check "$SINK: disk full at start: exit 2 (got $?)" [ $? -eq 2 ] || show err.start
	check "$SINK: with a clear error" grep -q "f: error: .*'$out'.*No space left on device" err.start ||
		show err.start
	check "$SINK: and no empty file left behind" [ ! -e "$out" ]
	umount small

	# Fills during the run: ~3 MB of ring data (zstd compresses them to
	# ~200 KB) on a disk of the table's smallest size that lets it begin.
	mount -t tmpfs -o size="$(sink_field "$SINK" fills)" tmpfs small
	"$PERFSINK" record --config full.ini -F 20000 -g -- "$WORKLOAD" cpu 4000 >/dev/null 2>err
	rc=$?
	check "$SINK: full disk: exit status 1 (got $rc)" [ $rc -eq 1 ] || show err
	check "$SINK: the error says the disk is full" grep -q 'No space left on device' err || show err
	check "$SINK: and names the file" grep -q "f: error: .*'$out'.*No space left on device" err || show err
	check "$SINK: one error line from the sink" [ "$(grep -c 'f: error' err)" -eq 1 ] || show err
	check "$SINK: the sink line counts the bytes and records lost" \
		grep -q "sink f ($SINK): .*LOST [1-9][0-9]* bytes ([1-9][0-9]* records), FAILED" err || show err
	# The disk is full: perf's report goes next to a copy.
	cp "$out" full.copy.data
	check "$SINK: perf report reads what was written" perf_clean full.copy.data ||
		show full.copy.data.report.err
	n=$(perf_samples full.copy.data)
	check "$SINK: and it holds samples ($n)" [ "$n" -gt 1000 ]
	said=$(sed -n 's/.*Captured .* (\([0-9]*\) samples.*/\1/p' err)
	check "$SINK: the summary's samples ($said) are what perf finds in the file" [ "$said" = "$n" ] ||
		show err
	check "$SINK: in the sink's format" sink_header_ok "$SINK" full.copy.data
	check "$SINK: the space kept for the features was given back" \
		[ "$(du -k "$out" | cut -f1)" -le $(($(stat -c %s "$out") / 1024 + 8)) ]
	umount small
}

for SINK in $(sinks); do
	if sink_built "$SINK"; then
		full_disk
	else
		skip_n $CHECKS "$SINK: the sink is not built here"
	fi
done
done_testing
