#!/bin/bash
# The systemd unit works as shipped: etc/perfsink@.service.in and
# etc/fleet.ini, run the way systemd runs them (unit_run.sh: the unit's
# StateDirectory=, ReadWritePaths=, ProtectSystem=strict, WorkingDirectory=,
# CapabilityBoundingSet=, and its seccomp filters built by unit_seccomp from
# its own SystemCallFilter= / SystemCallErrorNumber= /
# RestrictAddressFamilies= / MemoryDenyWriteExecute= lines, the groups
# expanded by `systemd-analyze syscall-filter`; no systemd as PID 1 here):
#   - the fleet recording records; node_exporter's user (nobody) lists and
#     reads the stats file; reload (ExecReload=) rotates and says the config
#     is not re-read; stop (KillSignal=) ends it with status 0;
#   - stderr as the journal (JOURNAL_STREAM): every line has its priority,
#     <6> info, <4> warning, <3> error; elsewhere lines are plain;
#   - a bad config exits 2 and systemd 252's rule does not restart it;
#   - plugin = file records with uring_file under the unit's list, and where
#     io_uring is not allowed it falls back to aio_file in one line (EPERM)
#     instead of dying of SIGSYS;
#   - with the list alone (a call outside it kills, as without
#     SystemCallErrorNumber=), every sink records: EPERM hides no missing call.
. "$TESTS_SRCDIR/lib/http_lib.sh"
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
FILTER=$TESTS_BUILDDIR/integration/unit_seccomp
[ -x "$FILTER" ] || skip_all "unit_seccomp not built: configure found no libseccomp (libseccomp-dev)"
command -v systemd-analyze >/dev/null ||
	skip_all "systemd-analyze (package systemd) is needed to expand the unit's system call groups"
command -v nginx >/dev/null || skip_all "nginx (the collector of fleet.ini's http sink) is not installed"
plan 27
PROM="python3 $TESTS_SRCDIR/integration/prom_check.py"
# shellcheck disable=SC2034 # read by http_lib.sh's nginx_conf
NGINX_EXTRA='' NGINX_SERVER_EXTRA=''
cleanup_hook() { nginx_stop; }
# Readable by nobody below $T, as /var/lib is on a host.
chmod 755 "$T"

# The unit as installed, instance fleet: this build's binary, configs in $T/etc.
UNIT=$T/perfsink@fleet.service
sed -e "s|@bindir@|$TOP_BUILDDIR/src|g" -e "s|@sysconfdir@|$T/etc|g" -e 's/%i/fleet/g' \
	-e 's|%S|/var/lib|g' "$TOP_SRCDIR/etc/perfsink@.service.in" >"$UNIT"
# key NAME: the values of NAME= in [Service], one line each.
key() { sed -n "/^\[Service\]/,/^\[/s/^$1=//p" "$UNIT"; }
# words NAME: the values of NAME=, split into words.
words() { key "$1" | tr ' ' '\n' | sed '/^$/d'; }

# expand NAME...: system call names, each @group expanded (groups nest).
expand() {
	local n
	for n in "$@"; do
		case $n in
		@*) # shellcheck disable=SC2046 # one name a word
			expand $(systemd-analyze syscall-filter --no-pager "$n" | sed -n '2,$s/^ *\([^ #][^ ]*\).*/\1/p') ;;
		*) echo "$n" ;;
		esac
	done
}
# allow_list FILE: the unit's SystemCallFilter= words, expanded, with
# @default, which systemd adds to an allow list.
# shellcheck disable=SC2046 # one name a word
allow_list() { expand @default $(words SystemCallFilter) | sort -u >"$1"; }
allow_list "$T/allow"
grep -q '^~' "$T/allow" && echo "Bail out! SystemCallFilter= is a deny list here; this test reads allow lists"
ERRNO=$(key SystemCallErrorNumber)
FAMILIES=$(words RestrictAddressFamilies | paste -sd, -)
MDWE=$(key MemoryDenyWriteExecute)
# seccomp_args ALLOWFILE [kill]: unit_seccomp's arguments for the unit's filters.
seccomp_args() {
	echo "--allow $1"
	[ -n "$ERRNO" ] && [ "${2:-}" != kill ] && echo "--errno $ERRNO"
	[ -n "$FAMILIES" ] && echo "--families $FAMILIES"
	[ "$MDWE" = yes ] && echo "--mdwe"
}
# CAP_PERFMON CAP_BPF ... -> -all,+perfmon,+bpf,...
CAPS=-all$(words CapabilityBoundingSet | tr 'A-Z' 'a-z' | sed 's/^cap_/,+/' | tr -d '\n')
WORKDIR=$(key WorkingDirectory)
STATE=$(key StateDirectory)
RW="/var/lib/$STATE $(key ReadWritePaths)"
umask_of_unit() { local u; u=$(key UMask); echo "${u:-0022}"; }

# /var/lib and /var/spool of the sandbox: what systemd makes at start (the
# StateDirectory, parents 0755) and what the package makes (debian/perfsink.dirs,
# modes from debian/rules: metrics 0755, spool 0700).
fresh_var() {
	rm -rf "${T:?}/var" && mkdir -p "$T/var/lib/perfsink/metrics" "$T/var/spool" &&
		chmod 755 "$T/var" "$T/var/lib" "$T/var/lib/perfsink" "$T/var/lib/perfsink/metrics" "$T/var/spool" &&
		mkdir -m "$(key StateDirectoryMode)" "$T/var/lib/$STATE" &&
		mkdir -m 700 "$T/var/spool/perfsink"
}
# unit_exec ALLOWFILE [kill] -- CMD...: CMD as the unit runs it, stderr to
# $T/journal as systemd's journal stream (JOURNAL_STREAM names it), in the
# background when UNIT_BG is set.  systemd's environment: PATH, the stream,
# STATE_DIRECTORY, no HOME.  LSan stops the world with ptrace, which the
# unit forbids: leak checks are off under it.
unit_exec() {
	local allow=$1 mode=; shift
	[ "$1" = kill ] && { mode="kill"; shift; }
	shift
	: >"$T/journal"
	local js
	js=$(stat -c '%d:%i' "$T/journal")
	set -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${JOURNAL:+JOURNAL_STREAM=$js} STATE_DIRECTORY="/var/lib/$STATE" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		UR_ROOT="$T" UR_RW="$RW" UR_WORKDIR="$WORKDIR" UR_UMASK="$(umask_of_unit)" UR_CAPS="$CAPS" \
		UR_FILTER="$FILTER" UR_SECCOMP="$(seccomp_args "$allow" $mode | tr '\n' ' ')" \
		unshare -m --propagation private bash "$TESTS_SRCDIR/integration/unit_run.sh" "$@"
	if [ -n "${UNIT_BG:-}" ]; then
		"$@" </dev/null >"$T/stdout" 2>>"$T/journal" &
		MAINPID=$!
	else
		"$@" </dev/null >"$T/stdout" 2>>"$T/journal"
	fi
}
JOURNAL=1
# exec_line NAME: the command line of NAME= (ExecStart, ExecReload...), $MAINPID filled in.
exec_line() { key "$1" | sed "s/\$MAINPID/${MAINPID:-0}/g; s/^[-@+!:]*//"; }

# The sandbox does what it says: / read-only, a call outside the list
# (mount: @mount is not in @system-service) refused although the bounding
# set keeps CAP_SYS_ADMIN, and fatal without SystemCallErrorNumber=.
fresh_var
unit_exec "$T/allow" -- touch /usr/perfsink-test-probe
check "sandbox: ProtectSystem=strict, / is read-only" grep -q 'Read-only file system' "$T/journal" ||
	show "$T/journal"
unit_exec "$T/allow" -- mount -t tmpfs none "/var/lib/$STATE"
rc=$?
cp "$T/journal" "$T/journal.errno"
(unit_exec "$T/allow" kill -- mount -t tmpfs none "/var/lib/$STATE") 2>/dev/null
rc2=$?
check "sandbox: a call outside the list fails (exit $rc), or kills with SIGSYS without the errno (exit $rc2)" \
	eval "[ $rc != 0 ] && [ $rc2 = 159 ] && grep -q 'ermission denied' '$T/journal.errno'"

# The shipped fleet.ini, its collector on loopback, its outputs in the state directory.
# http_lib.sh's helpers predate set -u.
collector() { set +u; collector_start "$1"; set -u; }
collector "$T/nginx"
mkdir -p "$T/etc/perfsink"
fleet_ini() {
	sed -e "s|^url = .*|url = http://127.0.0.1:$P/perf|" "$TOP_SRCDIR/etc/fleet.ini" >"$T/etc/perfsink/fleet.ini"
}
fleet_ini
STATS=$(sed -n 's/^stats-file *= *//p' "$T/etc/perfsink/fleet.ini")
case $STATS in /*) HOST_STATS=$T$STATS ;; *) HOST_STATS=$T$WORKDIR/$STATS ;; esac
stats_has() { [ -s "$HOST_STATS" ] && grep -q "^$1 [1-9]" "$HOST_STATS"; }
# record_while ALLOWFILE [kill]: a fresh start of ExecStart=, stopped with
# KillSignal= once its stats file counts samples; returns its exit status.
record_while() {
	fresh_var
	# shellcheck disable=SC2046
	UNIT_BG=1 unit_exec "$@" -- $(exec_line ExecStart)
	wait_for 60 stats_has perfsink_samples_total
	kill -"$(key KillSignal | sed 's/^SIG//')" "$MAINPID"
	wait "$MAINPID"
}

# 1. The fleet recording as the unit runs it.
fresh_var
# shellcheck disable=SC2046
UNIT_BG=1 unit_exec "$T/allow" -- $(exec_line ExecStart)
check "the fleet recording writes its stats file while it records ($STATS)" \
	wait_for 60 stats_has perfsink_samples_total || show "$T/journal" "$T/nginx/error.log"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
check "node_exporter's user (nobody) lists the stats directory and reads the file" \
	eval "as_nobody ls '$(dirname "$HOST_STATS")' | grep -qx '$(basename "$HOST_STATS")' &&
	      as_nobody cat '$HOST_STATS' >'$T/nobody.prom'" ||
	{ ls -ld "$T/var/lib/perfsink" "$(dirname "$HOST_STATS")" "$HOST_STATS" 2>&1 | sed 's/^/# /'; }
check "what it read is valid Prometheus text" $PROM "$T/nobody.prom" || show "$T/nobody.prom"
(umask 077 && cd "$T" && "$PERFSINK" record -q -e cpu-clock --stats-file "$T/umask.prom" \
	--summary-json "$T/umask.json" -o "$T/umask.data" -- "$WORKLOAD" cpu 100)
modes="$(stat -c %a "$T/umask.prom" "$T/umask.json" | paste -sd ' ')"
check "the stats file and the summary JSON are 0644 under umask 077 too ($modes)" [ "$modes" = "644 644" ]
check "the state directory stays private ($(key StateDirectoryMode)): it holds the build-id cache" \
	fails as_nobody ls "$T/var/lib/$STATE" 2>/dev/null
# shellcheck disable=SC2046 # the unit's words
set -- $(exec_line ExecReload)
"$@"
check "reload (ExecReload=) rotates: a second output" \
	wait_for 30 outputs_with_data "$T/var/lib/$STATE/fleet.data.*" 2 || show "$T/journal"
check "and says the config is not re-read" \
	grep -q '^<6>perfsink: SIGUSR2: a new output now (the config is not re-read' "$T/journal" ||
	show "$T/journal"
kill -"$(key KillSignal | sed 's/^SIG//')" "$MAINPID"
wait "$MAINPID"
rc=$?
check "stop (KillSignal=) ends it with status 0 (got $rc)" [ $rc = 0 ] || show "$T/journal"
check "the collector got the stream" has_files "$T/nginx/root" 2 || show "$T/journal"
check "perf reads the local outputs" perf_clean "$(ls "$T/var/lib/$STATE"/fleet.data.* | head -n 1)"
check "the final stats file says the run ended" \
	$PROM "$HOST_STATS" perfsink_recording=0 || show "$HOST_STATS"

# 2. The journal: each line with its priority.
check "journal: every line starts with a priority" \
	[ "$(grep -cv '^<[3467]>' "$T/journal")" = 0 ] || show "$T/journal"
check "journal: info lines are <6> (the summary, the reload)" \
	grep -q '^<6>\[ perfsink record: Captured' "$T/journal" || show "$T/journal"
# The collector away, drain_timeout short: the spool warns at the end.
nginx_stop
sed -i 's/^drain_timeout = .*/drain_timeout = 1s/' "$T/etc/perfsink/fleet.ini"
record_while "$T/allow"
check "journal: warnings are <4> (the collector away: parts left in the spool)" \
	grep -q '^<4>perfsink: collector: warning: .* not sent; they wait in /var/spool/perfsink/collector' \
	"$T/journal" || show "$T/journal"
check "and the spool is the package's /var/spool/perfsink" has_files "$T/var/spool/perfsink/collector" 1

# 3. A bad config: exit 2, one error line, no restart.
fleet_ini
sed -i 's/^freq = 99$/freq = lots/' "$T/etc/perfsink/fleet.ini"
fresh_var
# would_restart PRE_STATUS MAIN_STATUS: systemd 252's service_shall_restart
# (src/core/service.c) for this unit: RestartPreventExitStatus= is tested
# against the main process's status only, and a failed ExecStartPre leaves
# that unset; then Restart=on-failure restarts any failure.
would_restart() {
	local pre=$1 main=$2
	[ "$pre" = 0 ] && [ "$main" = 0 ] && return 1
	[ "$pre" = 0 ] && words RestartPreventExitStatus | grep -qx "$main" && return 1
	[ "$(key Restart)" = on-failure ] || [ "$(key Restart)" = always ]
}
pre=0 main=
if [ -n "$(key ExecStartPre)" ]; then
	# shellcheck disable=SC2046
	unit_exec "$T/allow" -- $(exec_line ExecStartPre)
	pre=$?
	cp "$T/journal" "$T/journal.pre"
fi
if [ "$pre" = 0 ]; then
	# shellcheck disable=SC2046
	unit_exec "$T/allow" -- $(exec_line ExecStart)
	main=$?
fi
check "a bad config: the unit's start fails with status 2 (ExecStartPre: $pre, ExecStart: ${main:-not run})" \
	[ "${main:-$pre}" = 2 ]
check "one <3> error line naming FILE:LINE" \
	grep -q "^<3>perfsink: error: $T/etc/perfsink/fleet.ini:[0-9]*: " "$T/journal" || show "$T/journal"
check "systemd does not restart it (Restart=$(key Restart), RestartPreventExitStatus=$(key RestartPreventExitStatus))" \
	fails would_restart "$pre" "${main:-}"

# Plain lines where stderr is not the journal, even with JOURNAL_STREAM inherited.
# shellcheck disable=SC2046
JOURNAL='' unit_exec "$T/allow" -- $(exec_line ExecStart)
check "stderr not the journal: plain lines" \
	grep -q "^perfsink: error: $T/etc/perfsink/fleet.ini:[0-9]*: " "$T/journal" || show "$T/journal"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/allow") "$PERFSINK" check --config "$T/etc/perfsink/fleet.ini" 2>"$T/other"
check "JOURNAL_STREAM naming another stream: plain lines" \
	grep -q "^perfsink: error: $T/etc/perfsink/fleet.ini:[0-9]*: " "$T/other" || show "$T/other"

# 4. plugin = file: io_uring as the unit allows it, and where it does not.
fleet_ini
sed -i 's/^plugin = aio_file$/plugin = file/; /^\[sink.collector\]/,$d' "$T/etc/perfsink/fleet.ini"
if "$TESTS_BUILDDIR/integration/no_uring" --probe; then
	record_while "$T/allow"
	rc=$?
	check "plugin = file under the unit's list: uring_file records (exit $rc)" \
		eval "[ $rc = 0 ] && grep -q '^<6>\[ sink local (uring_file for plugin = file)' '$T/journal'" ||
		show "$T/journal"
else
	skip "io_uring unavailable on this machine"
fi
grep -v '^io_uring_' "$T/allow" >"$T/allow.nouring"
record_while "$T/allow.nouring"
rc=$?
check "io_uring not allowed: plugin = file still records (exit $rc; 159 is SIGSYS)" [ $rc = 0 ] ||
	show "$T/journal"
check "with aio_file, and one line says why" \
	grep -q '^<6>\[ sink local (aio_file for plugin = file; uring_file: io_uring unavailable: io_uring_setup: ' \
	"$T/journal" || show "$T/journal"

# 5. Every sink with nothing but the list: a missing call would kill it.
collector "$T/nginx2"
cat >"$T/etc/perfsink/fleet.ini" <<INI
[record]
all-cpus = true
freq = 99
call-graph = fp
stats-file = $STATS
summary-json = last-run.json
[sink.a]
plugin = aio_file
path = a.data
direct = true
[sink.u]
plugin = uring_file
path = u.data
[sink.z]
plugin = zstd
path = z.data
symbols = true
[sink.h]
plugin = http
url = http://127.0.0.1:$P/perf
symbols = all
[sink.p]
plugin = pipe
fd = 1
INI
[ -e "$TOP_BUILDDIR/plugins/uring_file/.libs/uring_file.so" ] && "$TESTS_BUILDDIR/integration/no_uring" --probe ||
	sed -i '/^\[sink.u\]/,/^path = u.data/d' "$T/etc/perfsink/fleet.ini"
JOURNAL='' record_while "$T/allow" kill
rc=$?
check "every sink, any call outside the unit's list killing: exit $rc (159 is SIGSYS)" [ $rc = 0 ] ||
	show "$T/journal"
check "and the pipe sink's stream is whole" eval "'$PERF' script -i - <'$T/stdout' >/dev/null 2>'$T/pipe.err'" ||
	show "$T/pipe.err"
done_testing
