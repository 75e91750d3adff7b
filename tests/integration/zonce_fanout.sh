#!/bin/bash
# Compress once (sink ABI 1.9): zstd + zstd at one level, an http stream
# with compress = zstd at that level, a zstd at another level and aio_file,
# all in one run.  Stock perf reads every output with no warning and counts
# the same samples in each as in aio_file's; -v says one compression stage
# ran per distinct level, each over every byte the sinks were handed.
. "$TESTS_SRCDIR/lib/lib.sh"
set +u # http_lib.sh reads unset optional arguments
. "$TESTS_SRCDIR/lib/http_lib.sh"
need_root
command -v nginx >/dev/null || skip_all "nginx not installed"
cleanup_hook() { nginx_stop; }
plan 11

P=$(free_port)
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
cd "$T"
cat >z.ini <<INI
[record]
freq = 2000

[sink.plain]
plugin = aio_file
path = $T/plain.data

[sink.za]
plugin = zstd
path = $T/za.data
level = 2

[sink.zb]
plugin = zstd
path = $T/zb.data
level = 2
threads = 1

[sink.net]
plugin = http
url = http://127.0.0.1:$P/r
spool_dir = $T/spool
part_size = 64K
compress = zstd
compress_level = 2

[sink.zc]
plugin = zstd
path = $T/zc.data
level = 5
INI
# --aio=1: one pooled buffer per ring, so a stage that held raw buffers
# while done ones wait for the engine would stall the recording.
"$PERFSINK" record -v --config z.ini --aio=1 -g -- "$WORKLOAD" cpu 1500 >out 2>err
check "fan-out of three zstd sinks, http and aio_file exits 0" [ $? -eq 0 ] || show err
for f in za zb zc; do
	check "perf reads $f.data with nothing on stderr" perf_clean $f.data || show $f.data.report.err
done
parts_cat ng/root/r >net.pipe
# perf 6.1's report --stats skips a pipe's features, COMPRESSED's mmap_len
# among them, and cannot decompress (main too): the stream is counted by
# perf script, and read by perf report as a user would.
"$PERF" report -i - --stdio <net.pipe >net.report 2>net.err
check "perf reads the http stream with nothing on stderr" [ ! -s net.err ] || show net.err
want=$(perf_samples plain.data)
got=$(for f in za zb zc; do perf_samples $f.data; done
      "$PERF" script -i - -F tid -G <net.pipe 2>/dev/null | wc -l)
same_samples() { [ "$want" -gt 500 ] && [ "$(printf '%s\n' $got | sort -u)" = "$want" ]; }
check "each output has aio_file's $want samples" same_samples || diag "got: $got"
# One stage per distinct level, fed once: level 2 for za, zb and net.
grep 'compression stage:' err >stages
check "two compression stages for two levels" [ "$(wc -l <stages)" -eq 2 ] || show stages
check "level 2 is one stage for three sinks" grep -q 'level 2, 3 sinks' stages || show stages
check "level 5 is one stage for one sink" grep -q 'level 5, 1 sink,' stages || show stages
# Every byte handed to the sinks (aio_file's "in"), into each stage once.
ins=$(sed -n 's/.*: \([0-9]*\) bytes in .*/\1/p' stages | sort -u)
plain_in=$(stat -c %s plain.data)
one_input() { [ "$(echo "$ins" | wc -l)" -eq 1 ] && [ "${ins:-0}" -gt 0 ] && [ "$ins" -lt "$plain_in" ]; }
check "each stage took the same bytes, once" one_input || show stages
"$PERF" report -i za.data --header-only >hdr 2>&1
check "za's header: Zstd, level 2" grep -q '^# compressed : Zstd, level = 2, ratio = [1-9]' hdr ||
	show hdr
exit $((tap_fail > 0)) # http_lib.sh's check counts failures there
