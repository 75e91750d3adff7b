#!/bin/sh
# Every file sink (lib/sinks.sh) on disks from too small to begin to just
# large enough (the table's sizes): whatever happens, the exit status says
# whether data was lost, the sink says how much, nothing it calls readable
# is unreadable, and every file it leaves is read by perf and holds
# samples.  On the smallest disks where the header fits, the sinks used to
# keep a file with no samples or no records at all (which perf refuses) and
# say "perf report reads it".  (aio_file: from 8K on the header fits, and up
# to about 100K not one ring buffer; zstd: around 72K-128K the header and
# the reserve for the features fit, but hardly a batch.)
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
CHECKS=5 # per sink and size
n=0
for SINK in $(sinks); do n=$((n + $(sink_field "$SINK" disks | wc -w))); done
plan $((CHECKS * n))

# small_disks: the checks of SINK on each of its sizes, in a fresh directory D.
small_disks() {
	D=$T/$SINK
	mkdir "$D" && cd "$D" || return
	printf '[sink.z]\nplugin = %s\npath = %s/d/z.data\n' "$SINK" "$D" >z.ini
	for size in $(sink_field "$SINK" disks); do
		mkdir d
		if ! mount -t tmpfs -o size=$size tmpfs d 2>/dev/null; then
			skip_n $CHECKS "cannot mount a tmpfs"
			rmdir d
			continue
		fi
		cleanup_hook() { umount "$D/d"; }
		# About 3 MB of ring data (zstd compresses them to about 200 KB).
		"$PERFSINK" record --config z.ini -F 20000 -g -- "$WORKLOAD" cpu 1500 >/dev/null 2>err.$size
		rc=$?
		lost=0
		grep -q 'LOST [1-9][0-9]* bytes ([1-9][0-9]* records)' err.$size && lost=1
		case $rc in
		0) check "$SINK $size: exit 0 only when nothing was lost" [ $lost = 0 ] || show err.$size ;;
		1) check "$SINK $size: exit 1 and the sink line counts what was lost" [ $lost = 1 ] || show err.$size ;;
		2) check "$SINK $size: exit 2: the setup failed with a reason" \
			grep -q "z: error: .*'$D/d/z.data'.*No space left on device" err.$size ||
			show err.$size ;;
		*) not_ok "$SINK $size: unexpected exit status $rc" && show err.$size ;;
		esac
		if grep -q "perf report reads it" err.$size; then
			check "$SINK $size: said readable, and it exists" [ -f d/z.data ] || show err.$size
		else
			check "$SINK $size: not said readable: no file, or a run without errors" \
				[ ! -f d/z.data -o $rc = 0 ] || show err.$size
		fi
		if [ -f d/z.data ]; then
			cp d/z.data z.$size.data # perf writes its report beside it
			check "$SINK $size: perf report reads what is left" perf_clean z.$size.data ||
				show z.$size.data.report.err
			check "$SINK $size: and it holds samples" [ "$(perf_samples z.$size.data)" -gt 0 ]
		else
			check "$SINK $size: no file left: the run failed (exit $rc)" [ $rc != 0 ]
			check "$SINK $size: and nothing else either" [ -z "$(ls -A d)" ]
		fi
		[ $rc = 2 ] && [ -f d/z.data ] && not_ok "$SINK $size: a failed setup left a file" ||
			ok "$SINK $size: a failed setup leaves no file"
		umount d
		cleanup_hook() { :; }
		rmdir d
	done
}

for SINK in $(sinks); do
	if sink_built "$SINK"; then
		small_disks
	else
		skip_n $((CHECKS * $(sink_field "$SINK" disks | wc -w))) "$SINK: the sink is not built here"
	fi
done
done_testing
