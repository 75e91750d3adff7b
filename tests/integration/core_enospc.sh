#!/bin/sh
# A full disk: a clear error, a non-zero exit, what was lost counted, a
# summary that counts what the file lacks, and a file perf still reads,
# on a tmpfs (buffered writes) and on an ext4 image, buffered and with
# O_DIRECT (direct = true).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
mkdir "$T/small" "$T/ext4"
mount -t tmpfs -o size=3m tmpfs "$T/small" 2>/dev/null || skip_all "cannot mount a tmpfs"
truncate -s 8M "$T/ext4.img" && mkfs.ext4 -q -F "$T/ext4.img" && mount -o loop "$T/ext4.img" "$T/ext4" ||
	{ umount "$T/small"; skip_all "cannot mount an ext4 image"; }
cleanup_hook() { umount "$T/small"; umount "$T/ext4"; }
plan 24
cd "$T"

full_disk() { # DIR MODE [DIRECT]: fill DIR, check the error and what is left
	rm -f $1/full.data
	printf '[sink.f]\nplugin = aio_file\ndirect = %s\n' ${3:-false} >f.ini
	"$PERFSINK" record -v --config f.ini -a -F 20000 -g --duration 10 -o $1/full.data -- "$WORKLOAD" cpu 4000 >/dev/null 2>err.$1
	rc=$?
	check "$1, $2: exit status is 1 (got $rc)" [ $rc -eq 1 ] || show err.$1
	check "$1, $2: error says the disk is full" grep -q 'No space left on device' err.$1 || show err.$1
	check "$1, $2: error names the file" grep -q "$1/full.data" err.$1
	check "$1, $2: the sink line counts the bytes and records it lost" \
		grep -q 'sink f (aio_file): .*LOST [1-9][0-9]* bytes ([1-9][0-9]* records), FAILED' err.$1 || show err.$1
	check "$1, $2: the log says $2 writes" grep -q "full.data': $2 writes" err.$1 || show err.$1
	# The disk is full: perf's report goes next to a copy.
	cp $1/full.data full.$1.data
	check "$1, $2: perf report reads what was written" perf_clean full.$1.data || show full.$1.data.report.err
	check "$1, $2: and it holds samples" [ "$(perf_samples full.$1.data)" -gt 100 ]
	said=$(sed -n 's/.*Captured .* (\([0-9]*\) samples.*/\1/p' err.$1)
	check "$1, $2: the summary's samples ($said) are what perf finds in the file" \
		[ "$said" = "$(perf_samples full.$1.data)" ] || show err.$1
}
full_disk small buffered true # tmpfs does not offer O_DIRECT
full_disk ext4 buffered
full_disk ext4 O_DIRECT true
done_testing
