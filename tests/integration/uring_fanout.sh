#!/bin/sh
# uring_file beside aio_file in one run: the same bytes, with O_DIRECT
# (the default where the file system takes it) and buffered; both ways the
# pooled buffers go out as fixed buffers (with O_DIRECT the middle of each
# buffer, its pending block being a copy); perf reads the file.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
sink_built uring_file || skip_all "uring_file not built, or io_uring unavailable here"
plan 9
cd "$T"
cat >fan.ini <<INI
[record]
freq = 999

[sink.aio]
plugin = aio_file
path = $T/aio.data

[sink.ud]
plugin = uring_file
path = $T/ud.data

[sink.ub]
plugin = uring_file
path = $T/ub.data
direct = false
INI
# A storm of small records fills many buffers: every kind of split (head,
# middle, tail) happens in one run.
"$PERFSINK" record -v --config fan.ini -a -e raw_syscalls:sys_enter -e cpu-clock -g \
	-- "$WORKLOAD" getppid 300000 >/dev/null 2>err
check "fan-out run exits 0" [ $? -eq 0 ] || show err
if dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null; then
	check "uring_file writes with O_DIRECT by default" grep -q "ud.data': O_DIRECT writes" err || show err
	set -- $(sed -n 's/.*ud: debug: \([0-9]*\) writes, \([0-9]*\) from fixed buffers.*/\1 \2/p' err | head -n 1)
	# At most a block and a middle per buffer: a third or more are middles.
	check "O_DIRECT: the middles went out as fixed buffers (${2:-?} of ${1:-?} writes)" \
		[ "${2:-0}" -gt 0 -a "${2:-0}" -ge $((${1:-0} / 3)) ] || show err
else
	skip "$T has no O_DIRECT"
	skip "$T has no O_DIRECT"
fi
fixed=$(sed -n 's/.*ub: debug: [0-9]* writes, \([0-9]*\) from fixed buffers.*/\1/p' err | head -n 1)
check "buffered: the pooled buffers went out as fixed buffers ($fixed writes)" [ "${fixed:-0}" -gt 0 ] || show err
check "direct = false: buffered" grep -q "ub.data': buffered writes (direct = false)" err || show err
check "uring_file O_DIRECT and aio_file wrote the same bytes" cmp aio.data ud.data
check "uring_file buffered and aio_file wrote the same bytes" cmp aio.data ub.data
# perf reads it with nothing on stderr but its note that the kernel lost
# events (a storm on a loaded machine overflows the rings; the same LOST
# records are in aio_file's identical file).
perf_reads_storm() {
	"$PERF" report -i "$1" --stdio >"$1.report" 2>"$1.report.err" || return 1
	perf_stderr_rest "$1.report.err"
	! grep -v -e '^Warning:$' -e '^$' -e 'Processed [0-9]* events and lost [0-9]* chunks!' \
		-e 'Check IO/CPU overload!' "$1.report.err.rest" | grep -q .
}
check "perf reads it" perf_reads_storm ud.data || show ud.data.report.err
# How many samples depends on the machine and its load; the same as aio_file's
# (the bytes are identical) and not none.
storm_kept() { local n; n=$(perf_samples ud.data); [ "$n" -gt 0 ] && [ "$n" = "$(perf_samples aio.data)" ]; }
check "and it holds the storm" storm_kept
done_testing
