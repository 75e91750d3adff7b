# TAP helpers for the integration tests.  Source it; then plan N, check...
set -u
: "${PERFSINK:?run through make check}" "${PERF:=/usr/bin/perf}"
WORKLOAD="$TESTS_BUILDDIR/integration/workload"
T=$(mktemp -d /tmp/perfsink-test.XXXXXX)
trap 'cleanup_hook 2>/dev/null; rm -rf "$T"' EXIT
cleanup_hook() { :; }
# perf record and perfsink record add the binaries they record to the
# build-id cache in $HOME/.debug: a test's recordings fill its own.
HOME=$T/home
export HOME
mkdir -p "$HOME"
_n=0
_failed=0

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
# skip WHY: one planned check that cannot run here (TAP "# SKIP").
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi; }
# check "..." fails CMD: passes when CMD fails ("!" is shell syntax, not a command).
fails() { ! "$@"; }
# show FILE...: the head of each file, as diagnostics when a check fails.
# Its loop variable is its own (sh has no locals): a caller's $f was once
# replaced by the file shown.
show() { for _show_f in "$@"; do diag "--- $_show_f:"; [ -f "$_show_f" ] && head -c 3000 "$_show_f" | sed 's/^/# /'; done; }
done_testing() { exit $((_failed > 0)); }

need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root for perf_event_open"; }

# perf_stderr_rest FILE: FILE.rest is perf's stderr in FILE without the one warning that
# is not about the file: like perf record, perfsink stops reading /proc maps
# of pre-existing tasks after 500 ms and flags the rest, and on a loaded
# machine (-a, sanitizers) that budget runs out.  Says so when it drops it.
perf_stderr_rest() {
	awk '/^Warning:$/ { held = $0 "\n"; in_w = 1; next }
	     in_w { held = held $0 "\n"
	            if (/--proc-map-timeout/) { in_w = 0; if (held !~ /map information files for pre-existing threads/) printf "%s", held; held = "" }
	            next }
	     { print }
	     END { if (in_w) printf "%s", held }' "$1" >"$1.rest"
	cmp -s "$1" "$1.rest" || diag "$1: perf says the proc map budget ran out (a loaded machine)"
}
# perf_clean FILE: perf report reads FILE with nothing on stderr (but the above).
perf_clean() {
	"$PERF" report -i "$1" --stdio >"$1.report" 2>"$1.report.err" || return 1
	perf_stderr_rest "$1.report.err"
	[ ! -s "$1.report.err.rest" ]
}
# Sample count of a perf.data as perf itself counts it.
# (perf report --stats counts them without resolving a symbol, a quarter of
# perf script's CPU; a file it refuses, such as one cut short, is counted
# by what perf script still shows of it.)
perf_samples() {
	_ps=$("$PERF" report --stats -i "$1" 2>/dev/null | awk '/ SAMPLE events:/ { print $3; exit }')
	if [ -n "$_ps" ]; then echo "$_ps"; else "$PERF" script -i "$1" -F tid 2>/dev/null | wc -l; fi
}
# Top N symbols by self overhead.
perf_top() { "$PERF" report -i "$1" --stdio --no-children --sort sym 2>/dev/null |
	awk '/^ +[0-9.]+%/ {print $NF}' | head -n "$2"; }
# wait_for SECONDS COMMAND...: poll until COMMAND succeeds, 1 after about
# SECONDS.  Tests wait for what they need to see, never for a fixed time.
wait_for() {
	_wf=$(($1 * 10))
	shift
	until "$@"; do
		[ "$_wf" -gt 0 ] || return 1
		_wf=$((_wf - 1))
		sleep 0.1
	done
}
# child_of PID: PID has a child; its pid is then in $w (wait_for child_of PID).
child_of() { w=$(pgrep -P "$1" | head -n 1); [ -n "$w" ]; }
# data_size FILE: data.size in a perf.data header (0 when not yet written).
data_size() { od -An -t u8 -j 48 -N 8 "$1" 2>/dev/null | tr -d ' '; }
# outputs_with_data PATTERN N: at least N files match PATTERN and hold records.
outputs_with_data() {
	_ow=0
	# shellcheck disable=SC2086
	for _f in $1; do
		[ -s "$_f" ] && [ "$(data_size "$_f")" != 0 ] && _ow=$((_ow + 1))
	done
	[ "$_ow" -ge "$2" ]
}
# cpu_ticks PID: user+system clock ticks PID has run for.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# data_grew FILE SIZE: data.size in FILE's header is past SIZE.
data_grew() { [ "$(data_size "$1")" -gt "$2" ]; }
# wait_recording PATTERN: until perfsink has written records to the first
# file matching PATTERN (data.size in its header is no longer 0), and then
# more (it grew again: the record loop is past its first pass), at most
# 20 s each.  Then the rings are being read.
wait_recording() {
	wait_for 20 outputs_with_data "$1" 1 || return 1
	# shellcheck disable=SC2086
	set -- $1
	wait_for 20 data_grew "$1" "$(data_size "$1")"
}
# Bash completion (etc/bash-completion/perfsink), as bash calls it: COMP_WORDS and COMP_CWORD set, the reply read.
complete_words() { # complete_words WORD...: the completions of the last word
	bash -c '
		PATH=$1:$PATH; shift
		source "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_perfsink
		printf "%s\n" "${COMPREPLY[@]}"' "$TOP_SRCDIR/etc/bash-completion/perfsink" \
		"$TOP_BUILDDIR/src" "$@"
}
