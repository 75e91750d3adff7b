# A file sink (SINK, set by core_small_disk.sh and zstd_small_disk.sh) on
# disks from too small to begin to just large enough: whatever happens, the
# exit status says whether data was lost, the sink says how much, nothing
# it calls readable is unreadable, and every file it leaves is read by perf
# and holds samples.  On the smallest disks where the header fits, the
# sinks used to keep a file with no samples or no records at all (which
# perf refuses) and say "perf report reads it".
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
: "${SINK:?set by the wrapper}"
plan 40
cd "$T"
printf '[sink.z]\nplugin = %s\npath = %s/d/z.data\n' "$SINK" "$T" >z.ini
for size in $SIZES; do
	mkdir d
	if ! mount -t tmpfs -o size=$size tmpfs d 2>/dev/null; then
		for i in 1 2 3 4 5; do skip "cannot mount a tmpfs"; done
		rmdir d
		continue
	fi
	cleanup_hook() { umount "$T/d"; }
	# About 3 MB of ring data compress to about 200 KB.
	"$PERFSINK" record --config z.ini -F 20000 -g -- "$WORKLOAD" cpu 1500 >/dev/null 2>err.$size
	rc=$?
	lost=0
	grep -q 'LOST [1-9][0-9]* bytes ([1-9][0-9]* records)' err.$size && lost=1
	case $rc in
	0) check "$size: exit 0 only when nothing was lost" [ $lost = 0 ] || show err.$size ;;
	1) check "$size: exit 1 and the sink line counts what was lost" [ $lost = 1 ] || show err.$size ;;
	2) check "$size: exit 2: the setup failed with a reason" \
		grep -q "z: error: .*'$T/d/z.data'.*No space left on device" err.$size ||
		show err.$size ;;
	*) not_ok "$size: unexpected exit status $rc" && show err.$size ;;
	esac
	if grep -q "perf report reads it" err.$size; then
		check "$size: said readable, and it exists" [ -f d/z.data ] || show err.$size
	else
		check "$size: not said readable: no file, or a run without errors" \
			[ ! -f d/z.data -o $rc = 0 ] || show err.$size
	fi
	if [ -f d/z.data ]; then
		cp d/z.data z.$size.data # perf writes its report beside it
		check "$size: perf report reads what is left" perf_clean z.$size.data ||
			show z.$size.data.report.err
		check "$size: and it holds samples" [ "$(perf_samples z.$size.data)" -gt 0 ]
	else
		check "$size: no file left: the run failed (exit $rc)" [ $rc != 0 ]
		check "$size: and nothing else either" [ -z "$(ls -A d)" ]
	fi
	[ $rc = 2 ] && [ -f d/z.data ] && not_ok "$size: a failed setup left a file" || ok "$size: a failed setup leaves no file"
	umount d
	cleanup_hook() { :; }
	rmdir d
done
done_testing
