#!/bin/bash
# perfsink check on a valid setup: exit 0, the resolved configuration with
# where each value came from, credentials not shown, nothing recorded or
# created.  (Every bad input of core_bad_inputs.sh, http_record.sh and
# http_spool.sh is also run through check there.)
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 6
cd "$T"
printf '[record]\nfreq = 777\n[sink.local]\nplugin = aio_file\npath = %s\n' "$T/never.data" > ok.ini
"$PERFSINK" check --config ok.ini -e cpu-clock -- "$WORKLOAD" cpu 100 > ok.out 2> ok.err
rc=$?
check "a valid config and command: exit 0, one line saying so" \
	eval "test $rc = 0 && grep -q '^perfsink check: valid: 1 event into 1 sink$' ok.err" || show ok.err
check "the resolved [record] and sink, each value with its origin" \
	eval "grep -q '^freq = 777$' ok.out && grep -q '^\[sink.local\]	# ok.ini:3$' ok.out &&
	      grep -q '^path = $T/never.data	# ok.ini:5$' ok.out && grep -q '^fsync = false	# default$' ok.out" ||
	show ok.out
check "nothing recorded, no output created" test ! -e never.data -a ! -e perf.data
"$PERFSINK" check --config ok.ini -o "$T/other.data" -a > o.out 2> o.err
check "-o wins over the config and says so" grep -q "^path = $T/other.data	# -o$" o.out || show o.out o.err
if [ -f "$TOP_BUILDDIR/plugins/http/.libs/http.so" ]; then
	mkdir -m 700 spool
	printf '[sink.up]\nplugin = http\nurl = http://127.0.0.1:9/x\nspool_dir = %s\nheaders = Authorization: Bearer hunter2\n' \
		"$T/spool" > h.ini
	"$PERFSINK" check --config h.ini -a > h.out 2> h.err
	rc=$?
	check "an http sink: valid, a header (it may hold a credential) not shown" \
		eval "test $rc = 0 && grep -q '^headers = (set, not shown)' h.out && ! grep -q hunter2 h.out h.err" ||
		show h.out h.err
else
	skip "the http plugin is not built (no libcurl)"
fi
"$PERFSINK" check --config ok.ini -- no-such-command-here > c.out 2> c.err
rc=$?
check "a command that is not in PATH: exit 2, named" \
	eval "test $rc = 2 && grep -q \"cannot run 'no-such-command-here': not found in PATH\" c.err"
done_testing
