#!/bin/bash
# The fleet files: the systemd template unit passes `systemd-analyze verify`
# (and a broken copy does not), etc/fleet.ini passes `perfsink check`, and
# the bash completion completes verbs, options, event names and sink
# names (plugins, and the instances of the --config file).  (install_tree.sh checks that make install puts them in place.)
. "$TESTS_SRCDIR/lib/lib.sh"
plan 8
UNIT_IN=$TOP_SRCDIR/etc/perfsink@.service.in
# The unit as installed, but naming this build's binary and a config in $T.
mkdir -p "$T/perfsink" "$T/man/man1" "$T/man/man5" "$T/state"
sed -e "s|@bindir@|$TOP_BUILDDIR/src|g" -e "s|@sysconfdir@|$T|g" "$UNIT_IN" > "$T/perfsink@fleet.service"
# Its absolute paths (the package's stats and spool directories) in $T.
mkdir -p "$T/metrics" && mkdir -m 700 "$T/spool"
sed -e "s|/var/lib/perfsink/metrics|$T/metrics|; s|/var/spool/perfsink|$T/spool|" \
	"$TOP_SRCDIR/etc/fleet.ini" >"$T/perfsink/fleet.ini"
cp "$TOP_SRCDIR/man/perfsink.1" "$T/man/man1/" && cp "$TOP_SRCDIR/man/perfsink.ini.5" "$T/man/man5/"
# verify UNIT: no complaint at all (it exits 0 on unknown directives, only saying so).
verify() { MANPATH=$T/man systemd-analyze verify "$1" > "$1.log" 2>&1 && [ ! -s "$1.log" ]; }
if command -v systemd-analyze > /dev/null; then
	check "perfsink@.service: systemd-analyze verify has nothing to say" verify "$T/perfsink@fleet.service" ||
		show "$T/perfsink@fleet.service.log"
	mkdir "$T/broken"
	sed 's/^KillMode=mixed/KillMode=sometimes/' "$T/perfsink@fleet.service" > "$T/broken/perfsink@fleet.service"
	check "a broken copy is caught (the check can fail)" fails verify "$T/broken/perfsink@fleet.service"
else
	skip "systemd-analyze is not installed (package systemd); the unit is not verified"
	skip "systemd-analyze is not installed"
fi
check "the unit stops with SIGTERM and reloads with SIGUSR2, as perfsink(1) SIGNALS says" \
	eval "grep -q '^KillSignal=SIGTERM$' '$UNIT_IN' && grep -q '^ExecReload=/bin/kill -USR2 \$MAINPID$' '$UNIT_IN' &&
	      grep -q 'SIGUSR2' '$TOP_SRCDIR/man/perfsink.1'"
check "the unit keeps perf_event_open in its system call filter" \
	grep -q '^SystemCallFilter=.*perf_event_open' "$UNIT_IN"
# fleet.ini as the unit runs it: relative paths in its state directory.
chmod 700 "$T/state"
if [ "$(id -u)" = 0 ]; then
	(cd "$T/state" && "$PERFSINK" check --config "$T/perfsink/fleet.ini" > check.out 2> check.err)
	check "etc/fleet.ini passes perfsink check (in the unit's working directory)" test $? = 0 ||
		show "$T/state/check.err"
else
	skip "etc/fleet.ini records every CPU: perfsink check needs root to open its events"
fi

has() { local want=$1; shift; complete_words "$@" | grep -qx -- "$want"; }
check "completion: verbs (che -> check) and options (--summary -> --summary-json)" \
	eval "has check perfsink che && has --summary-json perfsink record --summary && has --stats-file perfsink check --stats"
check "completion: event names (-e cpu-c -> cpu-clock, a tracepoint)" \
	eval "has cpu-clock perfsink record -e cpu-c && has sched:sched_switch perfsink record -e sched:sched_sw"
check "completion: after --sink, plugins (ht -> http) and the config's instances (coll -> collector)" \
	eval "has http perfsink record --sink ht &&
	      has collector perfsink record --config '$T/perfsink/fleet.ini' --sink coll"
done_testing
