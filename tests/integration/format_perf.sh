#!/bin/sh
# The real perf reads what the format helpers write: file mode, pipe mode,
# features and TRACING_DATA.  test_format_write builds the perf.data; every
# check runs $PERF on it, greps stdout for what perf must show and requires
# an empty stderr (no warning of any kind).
PERF=${PERF:-perf}
W=${TESTS_BUILDDIR:-.}/integration/test_format_write
TMP=$(mktemp -d "${TMPDIR:-/tmp}/format_perf.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# make VARIANT MODE: writes $TMP/VARIANT.MODE; 0, 77 (no tracefs) or failure.
make_data() {
	"$W" "$1" "$2" "$TMP/$1.$2" 2>"$TMP/write.err"
}

# expect DESC OUT ERR PATTERN...: every fixed-string PATTERN in OUT, ERR empty.
expect() {
	desc=$1 out=$2 err=$3
	shift 3
	for pat in "$@"; do
		if ! grep -qF -- "$pat" "$out"; then
			not_ok "$desc"
			echo "# missing: $pat"
			sed 's/^/#   /' "$out" | head -40
			return
		fi
	done
	if [ -s "$err" ]; then
		not_ok "$desc"
		echo "# perf wrote to stderr:"
		sed 's/^/#   /' "$err" | head -20
		return
	fi
	ok "$desc"
}

# run VARIANT MODE TOOL DESC PATTERN...: TOOL is report, script or header.
run() {
	v=$1 m=$2 tool=$3 desc="$1/$2: perf $3: $4"
	shift 4
	f=$TMP/$v.$m
	if [ ! -f "$f" ]; then
		make_data "$v" "$m"
		rc=$?
		if [ $rc = 77 ]; then
			skip "$desc" "no tracefs"
			return
		elif [ $rc != 0 ]; then
			not_ok "$desc"
			sed 's/^/# /' "$TMP/write.err"
			return
		fi
	fi
	case $m in
	pipe*) input=- ;;
	*) input=$f ;;
	esac
	case $tool in
	report) "$PERF" report -i "$input" --stdio <"$f" >"$TMP/out" 2>"$TMP/err" ;;
	script) "$PERF" script -i "$input" <"$f" >"$TMP/out" 2>"$TMP/err" ;;
	header) "$PERF" report --header-only -I -i "$input" <"$f" >"$TMP/out" 2>"$TMP/err" ;;
	esac
	expect "$desc" "$TMP/out" "$TMP/err" "$@"
}

echo "1..28"

alpha='[.] fmt_probe_alpha'
beta='[.] fmt_probe_beta'

run one file report "symbols and event name" \
	"of event 'cpu-clock'" "75.00%" "$alpha" "$beta" "test_format_write"
run one file script "samples" " cpu-clock: " "fmt_probe_alpha+0x4" "fmt_probe_beta+0x4" "fmt_writer"
run one file header "features" \
	"# perf version : perfsink " "# hostname : " "# os release : " "# arch : " \
	"# nrcpus online : " "# nrcpus avail : " "# cpudesc : " "# total memory : " \
	"# cmdline : " "test_format_write one file" \
	"# event : name = cpu-clock, , id = { 10000, 10001 }, type = 1, size = 128" \
	"# sibling threads : " "# CPU 0: Core ID" \
	"# time of first sample : 1.000000" "# time of last sample : 1.000003" \
	"# missing features: TRACING_DATA BUILD_ID"
run one pipe report "symbols and event name" \
	"of event 'cpu-clock'" "75.00%" "$alpha" "$beta"
run one pipe script "samples" " cpu-clock: " "fmt_probe_alpha+0x4" "fmt_probe_beta+0x4"

run two file report "two events" \
	"of event 'cpu-clock'" "of event 'task-clock'" "$alpha" "$beta"
run two file script "samples of both events" " cpu-clock: " " task-clock: " "fmt_probe_beta+0x4"
run two file header "EVENT_DESC" \
	"# event : name = cpu-clock, , id = { 10000, 10001 }" \
	"# event : name = task-clock, , id = { 20000, 20001 }" \
	"sample_type = IP|TID|TIME|CPU|PERIOD|IDENTIFIER"
run two pipe report "two events" \
	"of event 'cpu-clock'" "of event 'task-clock'" "$alpha" "$beta"
run two pipe script "samples of both events" " cpu-clock: " " task-clock: " "fmt_probe_alpha+0x4"

# 4500 ids per event: EVENT_DESC outgrows a pipe record; names come from EVENT_UPDATE.
run many pipe report "names without EVENT_DESC" \
	"of event 'cpu-clock'" "of event 'task-clock'" "$alpha" "$beta"
run many pipe script "names without EVENT_DESC" " cpu-clock: " " task-clock: " "fmt_probe_alpha+0x4"
run many file report "4500 ids per event" "of event 'cpu-clock'" "of event 'task-clock'" "$alpha"

switch='prev_comm=fmt_writer prev_pid='
switch2='prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120'
run tp file script "tracepoint fields decoded" \
	"sched:sched_switch: $switch" "$switch2" "syscalls:sys_enter_getppid:"
run tp file report "tracepoint report" \
	"of event 'sched:sched_switch'" "of event 'syscalls:sys_enter_getppid'" "$switch"
run tp file header "TRACING_DATA and EVENT_DESC" \
	"# event : name = sched:sched_switch, , id = { 10000, 10001 }, type = 2" \
	"# event : name = syscalls:sys_enter_getppid, , id = { 20000, 20001 }, type = 2" \
	"# missing features: BUILD_ID"
run tp pipe script "tracepoint fields decoded" \
	"sched:sched_switch: $switch" "$switch2" "syscalls:sys_enter_getppid:"
# In pipe mode perf picks its sort keys before it sees the events, so the
# report is by symbol, as for a stream from perf record itself.
run tp pipe report "tracepoint report" \
	"of event 'sched:sched_switch'" "of event 'syscalls:sys_enter_getppid'" "$alpha"
run tp1 file script "one tracepoint" "sched:sched_switch: $switch" "$switch2"
run tp1 pipe script "one tracepoint" "sched:sched_switch: $switch" "$switch2"

# What a crash leaves once data.size is patched: no features, still readable.
run one partial report "no features, data.size patched" "$alpha" "$beta"
run one partial header "zero feature bitmap" "# missing features: TRACING_DATA BUILD_ID HOSTNAME"

run one filez header "COMPRESSED feature" "# compressed : Zstd, level = 3, ratio = 7"
run one filez report "COMPRESSED feature and record" "$alpha" "$beta"
run tp pipez script "COMPRESSED pipe feature and record" "sched:sched_switch: $switch"
run tp pipez header "HEADER_FEATURE records" \
	"# perf version : perfsink " "# cmdline : " "# nrcpus online : " "# CPU 0: Core ID" \
	"# event : name = sched:sched_switch, , id = { 10000, 10001 }, type = 2"

# TRACING_DATA byte for byte against the one perf record itself writes.
desc="TRACING_DATA identical to perf record's for sched:sched_switch"
if [ ! -d /sys/kernel/tracing/events/sched ] && [ ! -d /sys/kernel/debug/tracing/events/sched ]; then
	skip "$desc" "no tracefs"
elif ! "$PERF" record -q -N -B -o "$TMP/perf_tp.data" -e sched:sched_switch -- true \
		>"$TMP/rec.out" 2>&1; then
	skip "$desc" "perf record cannot open sched:sched_switch here"
elif "${TESTS_BUILDDIR:-.}/integration/test_format_tdcmp" "$TMP/perf_tp.data" sched:sched_switch \
		>"$TMP/out" 2>"$TMP/err"; then
	ok "$desc"
else
	not_ok "$desc"
	sed 's/^/# /' "$TMP/err"
fi

# Same header length with and without the end: the final header overwrote the
# provisional one exactly, so data starts where both said.
hdr_ok=1
for v in one two tp; do
	f=$TMP/$v.file
	[ -f "$f" ] || continue
	off=$(od -An -t u8 -j 40 -N 8 "$f" | tr -d ' ')
	size=$(od -An -t u8 -j 48 -N 8 "$f" | tr -d ' ')
	magic=$(od -An -c -N 8 "$f" | tr -d ' ')
	total=$(wc -c <"$f")
	if [ "$magic" != PERFILE2 ] || [ "$size" -le 0 ] || [ $((off + size)) -ge "$total" ]; then
		hdr_ok=0
		echo "# $v.file: magic=$magic data.offset=$off data.size=$size file=$total"
	fi
done
if [ $hdr_ok = 1 ]; then ok "file headers: magic, data.size set, features after data"; else not_ok "file headers"; fi

exit 0
