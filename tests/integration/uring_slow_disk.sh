#!/bin/bash
# A disk slower than the events: an ext4 image on a loop device whose
# direct writes a blkio cgroup throttles to 1 MB/s (cgroup v1 throttles the
# writes a process submits, not the page cache's writeback), the closest
# this machine has to a disk kept busy by a neighbour.  The built-in
# config (aio_file, through the page cache) keeps every event there;
# uring_file's direct writes hold the pooled buffers until the disk has
# them, so it loses events, and the summary says the outputs were too slow
# (not the rings) and what to try.  Whatever it recorded stays readable.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
BLKIO=/sys/fs/cgroup/blkio
[ -e "$BLKIO/blkio.throttle.write_bps_device" ] || skip_all "no cgroup v1 blkio throttling here"
cd "$T"
mkdir mnt
truncate -s 256M img && mkfs.ext4 -q -F img && mount -o loop img mnt || skip_all "cannot mount an ext4 image"
CG="$BLKIO/perfsink-test-$$"
cleanup_hook() { umount "$T/mnt"; rmdir "$CG"; }
dev=$(findmnt -no SOURCE "$T/mnt")
mkdir "$CG" && echo "$(cat "/sys/block/${dev#/dev/}/dev") 1048576" > "$CG/blkio.throttle.write_bps_device" ||
	skip_all "cannot throttle $dev"
plan 8
CALLS=300000
# throttled CMD...: CMD in the throttled cgroup.
throttled() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }
# perf_reads_with_loss FILE: perf report reads FILE and warns of the LOST records in it.
perf_reads_with_loss() {
	"$PERF" report -i "$1" --stdio >"$1.report" 2>"$1.report.err" &&
		grep -q 'lost [1-9][0-9]* chunks' "$1.report.err"
}

throttled "$PERFSINK" record -o mnt/default.data -e syscalls:sys_enter_getppid \
	-- "$WORKLOAD" getppid $CALLS >/dev/null 2>default.err
check "built-in config on the slow disk: exit 0 (got $?)" [ $? -eq 0 ] || show default.err
check "it wrote through the page cache (aio_file)" grep -q '^\[ sink default (aio_file): ' default.err ||
	show default.err
check "and lost nothing" grep -q '^\[ perfsink record: lost 0 samples \]' default.err || show default.err
check "every call is a sample" grep -q "($CALLS samples, " default.err || show default.err
check "perf reads it" perf_clean mnt/default.data || show mnt/default.data.report.err

if ! sink_built uring_file; then
	skip_n 3 "uring_file not built, or io_uring unavailable here"
	done_testing
fi
# Small rings and one buffer each, so the exit does not wait long for the throttled writes.
throttled "$PERFSINK" record --sink uring_file -o mnt/uring.data -m 16 --aio=1 -e syscalls:sys_enter_getppid \
	-- "$WORKLOAD" getppid $CALLS >/dev/null 2>uring.err
check "uring_file on the slow disk: exit 0 (got $?)" [ $? -eq 0 ] || show uring.err
check "it lost events, and the summary blames the slow output and names the way out" \
	grep -q 'LOST .*the rings filled up while the sinks held every pooled buffer (waited [1-9][0-9]* times for one): an output slower than the events; try more buffers (--aio=16), a file sink through the page cache (plugin = aio_file)' \
	uring.err || show uring.err
check "perf reads what it kept, and warns of the loss recorded in it" perf_reads_with_loss mnt/uring.data ||
	show mnt/uring.data.report.err
done_testing
