#!/bin/bash
# perfsink check on a valid setup: exit 0, the resolved configuration as
# an INI file that perfsink reads back, with where each value came from,
# credentials not shown, nothing recorded or created; -q says nothing; the
# shipped example passes as it is; a target on the command line replaces
# the config's.  (Every bad input of core_bad_inputs.sh, http_record.sh
# and http_spool.sh is also run through check there.)
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 12
cd "$T"
# above FILE ORIGIN LINE: LINE is in FILE, right below the comment "# ORIGIN".
above() { grep -qxF -B1 -- "$3" "$1" && grep -xF -B1 -- "$3" "$1" | head -n 1 | grep -qxF -- "# $2"; }
# values FILE: its sections and key lines, comments left out.
values() { grep -v '^#' "$1" | grep -v '^$'; }
printf '[record]\nfreq = 777\n[sink.local]\nplugin = aio_file\npath = %s\n' "$T/never.data" > ok.ini
"$PERFSINK" check --config ok.ini -e cpu-clock -- "$WORKLOAD" cpu 100 > ok.out 2> ok.err
rc=$?
check "a valid config and command: exit 0, one line saying so" \
	eval "test $rc = 0 && grep -q '^perfsink check: valid: 1 event into 1 sink$' ok.err" || show ok.err
check "the resolved [record] and sink, each value with its origin on the line above" \
	eval "grep -q '^freq = 777$' ok.out && above ok.out ok.ini:3 '[sink.local]' &&
	      above ok.out ok.ini:5 'path = $T/never.data' && above ok.out default 'fsync = false'" ||
	show ok.out
check "nothing recorded, no output created" test ! -e never.data -a ! -e perf.data
"$PERFSINK" check --config ok.ini -o "$T/other.data" -a > o.out 2> o.err
check "-o wins over the config and says so" above o.out -o "path = $T/other.data" || show o.out o.err
if [ -f "$TOP_BUILDDIR/plugins/http/.libs/http.so" ]; then
	mkdir -m 700 spool
	printf '[sink.up]\nplugin = http\nurl = http://127.0.0.1:9/x\nspool_dir = %s\nheaders = Authorization: Bearer hunter2\n' \
		"$T/spool" > h.ini
	"$PERFSINK" check --config h.ini -a > h.out 2> h.err
	rc=$?
	check "an http sink: valid, a header (it may hold a credential) not shown" \
		eval "test $rc = 0 && grep -q '^# headers: set (h.ini:5), not shown$' h.out && ! grep -q hunter2 h.out h.err" ||
		show h.out h.err
	"$PERFSINK" check --config h.out > h2.out 2> h2.err
	check "and that listing reads back, the same but for the header not shown" \
		eval "test $? = 0 && diff <(values h.out) <(values h2.out | grep -vx 'headers = ') >&2" || show h2.err
else
	skip "the http plugin is not built (no libcurl)"
	skip "the http plugin is not built (no libcurl)"
fi
# The shipped example as an operator first runs it, from the source tree.
(cd "$TOP_SRCDIR" && "$PERFSINK" check --config etc/perfsink.ini) > ex.out 2> ex.err
rc=$?
check "etc/perfsink.ini passes perfsink check as shipped (its target is in [record])" \
	eval "test $rc = 0 && grep -q '^all-cpus = true$' ex.out" || show ex.err
(cd "$TOP_SRCDIR" && "$PERFSINK" check --config "$T/ex.out") > ex2.out 2> ex2.err
rc=$?
check "what check prints is an INI file perfsink reads back, to the same values" \
	eval "test $rc = 0 && diff <(values ex.out) <(values ex2.out) >&2" || show ex2.err
(cd "$TOP_SRCDIR" && "$PERFSINK" check -q --config etc/perfsink.ini) > q.out 2> q.err
rc=$?
check "check -q on success: exit 0, nothing printed" eval "test $rc = 0 && test ! -s q.out -a ! -s q.err" ||
	show q.out q.err
printf '[record]\nall-cpus = true\n[sink.local]\nplugin = aio_file\npath = %s\n' "$T/never.data" > a.ini
"$PERFSINK" check --config a.ini -p $$ > p.out 2> p.err
rc=$?
check "a target on the command line (-p) replaces the config's (all-cpus)" \
	eval "test $rc = 0 && grep -q '^pid = $$\$' p.out && ! grep -q '^all-cpus' p.out" || show p.out p.err
"$PERFSINK" check --config a.ini -- "$WORKLOAD" cpu 100 > c.out 2> c.err
rc=$?
check "so does a command" eval "test $rc = 0 && ! grep -q '^all-cpus' c.out" || show c.out c.err
"$PERFSINK" check --config ok.ini -- no-such-command-here > c.out 2> c.err
rc=$?
check "a command that is not in PATH: exit 2, named" \
	eval "test $rc = 2 && grep -q \"cannot run 'no-such-command-here': not found in PATH\" c.err"
done_testing
