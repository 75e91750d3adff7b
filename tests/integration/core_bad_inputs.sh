#!/bin/sh
# Bad CLIs, configs and plugins: each gives exactly one error line on
# stderr, exit code 2, no crash, and nothing recorded.  `perfsink check`
# with the same arguments finds the same problem (exit 2, the same message).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
cd "$T"
W="$WORKLOAD exit 0"

ini() { f=$1; shift; printf '%s\n' "$@" >"$f"; }
ini unknown_section.ini '[record]' 'freq = 99' '[bogus]' 'x = 1'
ini unknown_key.ini '[record]' 'freq = 99' 'frequency = 100'
ini bad_value.ini '[record]' 'freq = lots'
ini no_plugin.ini '[sink.a]' 'path = x.data'
ini dup_instance.ini '[sink.a]' 'plugin = aio_file' '[sink.a]' 'plugin = aio_file'
ini unknown_plugin.ini '[sink.a]' 'plugin = no_such_sink'
ini sink_key.ini '[sink.a]' 'plugin = aio_file' 'colour = blue'
ini sink_value.ini '[sink.a]' 'plugin = aio_file' 'fsync = perhaps'
ini two_files.ini '[sink.a]' 'plugin = aio_file' 'path = a.data' '[sink.b]' 'plugin = aio_file' 'path = b.data'
cp "$TOP_BUILDDIR/plugins/aio_file/.libs/aio_file.so" ww.so && chmod 0666 ww.so
ini world_writable.ini '[sink.a]' "plugin = $T/ww.so"
cp "$TOP_BUILDDIR/plugins/aio_file/.libs/aio_file.so" nobody.so && chown 65534:65534 nobody.so
ini nobody_plugin.ini '[sink.a]' "plugin = $T/nobody.so"
# aio_file, which the built-in config loads, and uring_file, which `plugin = file` may.
mkdir wwdir && chmod 0777 wwdir && cp "$TOP_BUILDDIR/plugins/aio_file/.libs/aio_file.so" wwdir/ &&
	cp "$TOP_BUILDDIR/plugins/aio_file/.libs/aio_file.so" wwdir/uring_file.so
ini ww_plugin_dir.ini '[record]' "plugin-dir = $T/wwdir" '[sink.a]' 'plugin = aio_file'
ini same_path.ini '[sink.a]' 'plugin = aio_file' 'path = same.data' '# b' '[sink.b]' 'plugin = aio_file' 'path = ./same.data'
ini bad_path.ini '[sink.a]' 'plugin = aio_file' 'path = /nonexistent/dir/y.data'
ini h_ftp.ini '[sink.up]' 'plugin = http' 'url = ftp://x'
ini h_noscheme.ini '[sink.up]' 'plugin = http' 'url = 127.0.0.1/x'
ini h_token.ini '[sink.up]' 'plugin = http' 'url = http://127.0.0.1:9/x' 'bearer_token_file = /nonexistent/token'
ini h_spool.ini '[sink.up]' 'plugin = http' 'url = http://127.0.0.1:9/x' 'spool_dir = /dev/null/spool'
ini not_a_plugin.ini '[sink.a]' "plugin = $(ls /lib/x86_64-linux-gnu/libz.so.1 2>/dev/null || echo /bin/true)"

# "description|expected text on stderr|arguments" (fields split on |)
cases='unknown option|--bogus|record --bogus -- W
option without value|-F|record -F
-F not a number|abc|record -F abc -- W
unknown event|no-such-event|record -e no-such-event -- W
unknown tracepoint|nosys:notp|record -e nosys:notp -- W
hardware event without PMU|instructions.*no hardware PMU|record -e instructions -- W
bad event modifier|cpu-clock:z|record -e cpu-clock:z -- W
-m not a power of two|mmap-pages|record -m 3 -- W
--aio=0|aio|record --aio=0 -- W
--aio=33|aio|record --aio=33 -- W
-p of no process|999999|record -p 999999 --duration 1
-a with -p|-p|record -a -p 1 --duration 1
-C out of range|cpu|record -C 4095 --duration 1
bad call graph|call-graph|record --call-graph bogus -- W
nothing to record|nothing to record|record
-F above the kernel limit|perf_event_max_sample_rate|record -F 1000000 -- W
negative duration|duration|record --duration -5 -a
missing config file|/nonexistent.ini|record --config /nonexistent.ini -- W
unknown config section|unknown_section.ini:3|record --config unknown_section.ini -- W
unknown [record] key|unknown_key.ini:3|record --config unknown_key.ini -- W
bad [record] value|bad_value.ini:2|record --config bad_value.ini -- W
sink without plugin|no_plugin.ini:1|record --config no_plugin.ini -- W
duplicate sink instance|dup_instance.ini:3|record --config dup_instance.ini -- W
unknown plugin|unknown_plugin.ini:2|record --config unknown_plugin.ini -- W
unknown sink key|sink_key.ini:3|record --config sink_key.ini -- W
bad sink value|sink_value.ini:3|record --config sink_value.ini -- W
world-writable plugin|writable|record --config world_writable.ini -- W
plugin owned by another user|nobody.so: refusing plugin: file .*nobody.so is owned by uid 65534|record --config nobody_plugin.ini -- W
--plugin-dir world-writable|wwdir/[a-z_]*file.so: refusing plugin: directory .*/wwdir is world-writable|record --plugin-dir wwdir -- W
[record] plugin-dir world-writable|ww_plugin_dir.ini:4: .*directory .*/wwdir is world-writable|record --config ww_plugin_dir.ini -- W
library that is not a plugin|perfsink_sink_entry|record --config not_a_plugin.ini -- W
-o with two file sinks|-o|record --config two_files.ini -o x.data -- W
--sink of nothing known|nosuch|record --sink nosuch -- W
unwritable output path|/nonexistent/dir/x.data|record -o /nonexistent/dir/x.data -- W
unknown command|frobnicate|frobnicate
event with an unknown term|.sched:sched_switch/xyz/. at column 20: unknown term .xyz.; terms: config,|record -e sched:sched_switch/xyz/ -- W
unclosed group|.{cpu-clock. at column 11: .,. or .}. expected, found the end|record -e {cpu-clock -- W
tracepoint name with dots|.\.\.:\.\.. at column 1: an event expected, found .\..|record -e ..:.. -- W
two sinks writing one file|same_path.ini:5: \[sink.b\] writes the same file as \[sink.a\] (same_path.ini:1): /.*/same.data|record --config same_path.ini -- W
sink path from the config|bad_path.ini:3: sink .a., key .path.: .*/nonexistent/dir/y.data|record --config bad_path.ini -- W
sink path from -o|-o: sink .default., key .path.: .*/nonexistent/dir/x.data|record -o /nonexistent/dir/x.data -- W'

if [ -f "$TOP_BUILDDIR/plugins/zstd/.libs/zstd.so" ]; then
	ini z_path.ini '[sink.z]' 'plugin = zstd' '' 'path = /nonexistent/dir/z.data'
	cases="$cases
zstd path from the config|z_path.ini:4: sink .z., key .path.: .*/nonexistent/dir/z.data|record --config z_path.ini -- W"
fi
if [ -f "$TOP_BUILDDIR/plugins/http/.libs/http.so" ]; then
	cases="$cases
http url ftp://|h_ftp.ini:3: sink 'up', key 'url': url scheme \"ftp\"|record --config h_ftp.ini -- W
http url without a scheme|h_noscheme.ini:3: sink 'up', key 'url': |record --config h_noscheme.ini -- W
http bearer_token_file missing|h_token.ini:4: sink 'up', key 'bearer_token_file': .*/nonexistent/token|record --config h_token.ini -- W
http spool_dir unusable|h_spool.ini:4: sink 'up', key 'spool_dir': .*/dev/null/spool|record --config h_spool.ini -- W"
fi
plan $(($(printf '%s\n' "$cases" | wc -l) * 2 + $(printf '%s\n' "$cases" | grep -c '|record')))
printf '%s\n' "$cases" | while IFS='|' read -r desc want args; do
	# shellcheck disable=SC2086
	set -- $args
	cmd=""
	for a in "$@"; do [ "$a" = W ] && cmd="$cmd $W" || cmd="$cmd $a"; done
	# shellcheck disable=SC2086
	"$PERFSINK" $cmd >out 2>err
	rc=$?
	lines=$(wc -l <err)
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ]; then
		ok "$desc: exit 2, one line"
	else
		not_ok "$desc: exit 2, one line (got exit $rc, $lines lines)"
		show err
	fi
	if grep -q -- "$want" err && grep -q '^perfsink: ' err; then
		ok "$desc: message names '$want'"
	else
		not_ok "$desc: message names '$want'"
		show err
	fi
	[ "$1" = record ] || continue
	# shellcheck disable=SC2086
	"$PERFSINK" check ${cmd#*record} >out 2>err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- "$want" err && [ ! -s out ]; then
		ok "$desc: perfsink check finds it too"
	else
		not_ok "$desc: perfsink check finds it too (exit $rc)"
		show err out
	fi
done >results
cat results
! grep -q '^not ok' results
