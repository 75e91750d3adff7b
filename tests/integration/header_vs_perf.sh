#!/bin/bash
# The header perf record 6.1 writes and the one perfsink writes for the same
# workload, compared line by line as `perf report --header-only -I` shows
# them, in file mode and in pipe mode (perfsink's pipe stream: the http
# sink's parts, collected by nginx); the feature sets compared by id; BPF
# programs: KSYMBOL/BPF_EVENT synthesized for a program loaded before the
# recording, and kernel samples inside a program named bpf_prog_<tag>_<name>.
# Writes the header-features table of docs/perf-compat-header.md and checks
# that the committed file is what this run produced (REGEN_DOCS=1 rewrites it).
#
# Normalised before comparing, because they legitimately differ:
#   captured on           the time of each recording
#   data offset/size,     perfsink starts data at 4096 (O_DIRECT alignment),
#   feat offset           sizes follow the sample counts
#   perf version          VERSION names the writer ("perfsink 0.1.0")
#   cmdline               each recorder's own command line
#   event                 the attrs are the events' and options' business
#                         (core_vs_perf.sh and the option tests); only the
#                         ksymbol and bpf_event bits are checked here; ids
#                         are kernel-assigned
#   node meminfo free     free memory changes between the two recordings
#   time of first/last    sample times and the duration between them
#   sample, duration
#   bpf_prog_info and     other processes load and unload BPF programs
#   btf info lines of     between the two recordings; the test's own
#   other programs        program's lines are kept and must match
. "$TESTS_SRCDIR/lib/http_lib.sh" # nginx_*, parts_cat; lib.sh's TAP helpers win
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 10
cd "$T"
BPF_PROG=$TESTS_BUILDDIR/integration/bpf_prog
FEATS="python3 $TESTS_SRCDIR/integration/header_features.py"
export HOME=$T # perf's build-id cache stays in the test directory

# A BPF program loaded before both recordings, held until the end; with
# BTF, so perf names it by its BTF function and writes BPF_BTF.
mkfifo hold.in
"$BPF_PROG" ps_hdr_hold hold ps_hdr_hold_btf_function <hold.in >hold.out 2>hold.err &
HOLD=$!
exec 9>hold.in # held open: the program stays loaded until the end
NGINX_PID=
cleanup_hook() { nginx_stop; kill "$HOLD"; wait "$HOLD"; }
wait_for 10 test -s hold.out
bpf_ok=$(kill -0 "$HOLD" 2>/dev/null && test -s hold.out && echo 1)
[ -n "$bpf_ok" ] || { diag "no BPF program could be loaded:"; show hold.err; }
hold_btf=$(awk '{ print $3 }' hold.out 2>/dev/null)

normalise() { # normalise HEADER_TEXT
	sed -e '/^# captured on/d' -e '/^# data offset/d' -e '/^# data size/d' \
		-e '/^# feat offset/d' -e '/^# perf version/d' -e '/^# cmdline/d' \
		-e '/^# event :/d' -e 's/\(meminfo *: total = [0-9]* kB\), free = [0-9]* kB/\1/' \
		-e '/^# time of first sample/d' -e '/^# time of last sample/d' \
		-e '/^# sample duration/d' -e '/^# bpf_prog_info/{/_ps_hdr_hold_btf_function /!d}' \
		-e "/^# btf info of id /{/ id ${hold_btf:-x}\$/!d}" "$1"
}
header() { "$PERF" report --header-only -I -i "$1" 2>/dev/null; }

# ---- file mode
"$PERF" record -q -o perf.data -- "$WORKLOAD" cpu 200 >/dev/null 2>perf.err
"$PERFSINK" record -q -o sink.data -- "$WORKLOAD" cpu 200 >/dev/null 2>sink.err
header perf.data >perf.hdr
header sink.data >sink.hdr
normalise perf.hdr >perf.norm
normalise sink.hdr >sink.norm
check "file mode: perf report --header-only -I shows the same lines (normalised)" \
	diff perf.norm sink.norm || { diag "diff perf perfsink:"; diff perf.norm sink.norm | head -n 30 | sed 's/^/# /'; }
$FEATS perf.data >perf.feats
$FEATS sink.data >sink.feats
check "file mode: the same features (ids)" diff perf.feats sink.feats ||
	diag "perf: $(tr '\n' ' ' <perf.feats)" "perfsink: $(tr '\n' ' ' <sink.feats)"
bits() { grep '^# event :' "$1" | grep -o 'ksymbol = 1, bpf_event = 1' | head -n 1; }
check "the tracking event has ksymbol and bpf_event, as perf's" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' - "$(bits perf.hdr)" "$(bits sink.hdr)"

if [ -n "$bpf_ok" ]; then
	check "BPF_PROG_INFO and BPF_BTF name the program loaded before the recording by its BTF function, as perf's" \
		sh -c 'grep -q "_ps_hdr_hold_btf_function addr" sink.hdr && grep -qx "# btf info of id $1" sink.hdr &&
			[ "$(grep _ps_hdr_hold perf.hdr)" = "$(grep _ps_hdr_hold sink.hdr)" ]' - "$hold_btf" ||
		{ grep -E "bpf_prog_info|btf info" perf.hdr sink.hdr | sed 's/^/# /'; }
	ksym() { "$PERF" script --show-bpf-events -i "$1" 2>/dev/null | grep -A1 '_ps_hdr_hold_btf_function$' | sed 's/.*PERF_RECORD_/PERF_RECORD_/'; }
	ksym perf.data >perf.ksym
	ksym sink.data >sink.ksym
	check "KSYMBOL and BPF_EVENT synthesized for it are perf's" \
		sh -c 'grep -q KSYMBOL sink.ksym && grep -q BPF_EVENT sink.ksym && diff perf.ksym sink.ksym' ||
		show perf.ksym sink.ksym
	"$PERFSINK" record -q -e cpu-clock:k -o bpfrun.data -- "$BPF_PROG" ps_hdr_run run 1000 >/dev/null 2>bpfrun.err
	"$PERF" report -i bpfrun.data --stdio --sort sym 2>/dev/null | grep -v '^#' | grep '%' | head -n 3 >bpfrun.top
	check "kernel samples inside a BPF program resolve to bpf_prog_<tag>_ps_hdr_run" \
		grep -q '\] bpf_prog_[0-9a-f]\{16\}_ps_hdr_run$' bpfrun.top || show bpfrun.top bpfrun.err
	# The drain sees the BPF_EVENT within a pass (100 ms), the program lives 1 s.
	header bpfrun.data >bpfrun.hdr
	check "BPF_PROG_INFO has the program loaded during the recording (from its BPF_EVENT)" \
		grep -q '_ps_hdr_run addr' bpfrun.hdr || grep bpf_prog_info bpfrun.hdr | sed 's/^/# /'
else
	for _ in 1 2 3 4; do skip "no BPF program could be loaded (bpf(2) refused)"; done
fi

# ---- pipe mode: perf's stdout and perfsink's http stream
if command -v nginx >/dev/null; then
	P=$(free_port)
	NGINX_EXTRA= NGINX_SERVER_EXTRA= NGINX_PID=
	nginx_conf "$T/ng" "$P" ""
	nginx_start "$T/ng" || diag "nginx did not start"
	printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/h\nspool_dir = %s\n' "$P" "$T/spool" >net.ini
	"$PERF" record -q -o - -- "$WORKLOAD" cpu 200 >perf.pipe 2>perfp.err
	"$PERFSINK" record -q --config net.ini -- "$WORKLOAD" cpu 200 >/dev/null 2>sinkp.err
	parts_cat "$T/ng/root/h" >sink.pipe
	"$PERF" report --header-only -I -i - <perf.pipe >perfp.hdr 2>/dev/null
	"$PERF" report --header-only -I -i - <sink.pipe >sinkp.hdr 2>/dev/null
	normalise perfp.hdr >perfp.norm
	normalise sinkp.hdr >sinkp.norm
	check "pipe mode: perf report --header-only -I shows the same lines (normalised)" \
		sh -c 'grep -q "^# hostname" sinkp.norm && diff perfp.norm sinkp.norm' ||
		{ diff perfp.norm sinkp.norm | head -n 30 | sed 's/^/# /'; show sinkp.err; }
	$FEATS perf.pipe >perfp.feats
	$FEATS sink.pipe >sinkp.feats
	check "pipe mode: the same HEADER_FEATURE records, in the same order" diff perfp.feats sinkp.feats ||
		diag "perf: $(tr '\n' ' ' <perfp.feats)" "perfsink: $(tr '\n' ' ' <sinkp.feats)"
else
	skip "pipe mode: nginx not installed"
	skip "pipe mode: nginx not installed"
	: >perfp.feats
	: >sinkp.feats
fi

# ---- docs/perf-compat-header.md, from what this run saw
names=(- TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID TOTAL_MEM
	CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY BRANCH_STACK PMU_MAPPINGS GROUP_DESC AUXTRACE
	STAT CACHE SAMPLE_TIME MEM_TOPOLOGY CLOCKID DIR_FORMAT BPF_PROG_INFO BPF_BTF COMPRESSED
	CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY PMU_CAPS)
yn() { grep -qx "$1" "$2" && echo yes || echo no; }
{
	echo "# Header features: perf record 6.1 and perfsink"
	echo
	echo "Produced by \`tests/integration/header_vs_perf.sh\` (do not edit: run it with REGEN_DOCS=1)."
	echo "A plain recording (\`record -- workload\`) by each, on a VM without a hardware"
	echo "PMU; the file's feature bitmap and the pipe stream's HEADER_FEATURE records."
	echo "\"Same lines\": \`perf report --header-only -I\` prints the same lines for both,"
	echo "after the normalisations the test lists (times, sizes, versions, command lines)."
	echo
	echo "| bit | feature | perf file | perfsink file | perf pipe | perfsink pipe |"
	echo "|---|---|---|---|---|---|"
	for f in $(seq 1 31); do
		echo "| $f | ${names[$f]} | $(yn "$f" perf.feats) | $(yn "$f" sink.feats) | $(yn "$f" perfp.feats) | $(yn "$f" sinkp.feats) |"
	done
	echo
	echo "Written only with options (not in the table's recording): TRACING_DATA (tracepoints),"
	echo "COMPRESSED (-z), CLOCKID and CLOCK_DATA (-k), GROUP_DESC (event groups)."
	echo "CPU_PMU_CAPS is written where a \`cpu\` PMU exists, HYBRID_TOPOLOGY on hybrid CPUs only"
	echo "(perfsink: not written; this VM has neither)."
} >perf-compat-header.md
DOC=$TOP_SRCDIR/docs/perf-compat-header.md
[ "${REGEN_DOCS:-}" = 1 ] && cp perf-compat-header.md "$DOC"
check "docs/perf-compat-header.md is what this run produced" cmp -s perf-compat-header.md "$DOC" ||
	{ diag "differs (REGEN_DOCS=1 rewrites it):"; diff "$DOC" perf-compat-header.md | head -n 20 | sed 's/^/# /'; }
done_testing
