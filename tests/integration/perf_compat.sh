#!/bin/bash
# docs/perf-compat.md, produced from what perf record and perfsink do with
# every option `perf record -h` lists (perf 6.1), on this machine.
#
# Each option is given to both recorders on the same workload.  perfsink
# either refuses it (exit 2; its message must give a reason, not "unknown
# option") or records; then the two files are compared by what the option
# changes against each recorder's own run without it:
#   attrs    perf evlist -v, one token per field (sample_type and
#            read_format one per bit), per event position
#   fields   which perf script -F fields the file can print
#   records  which side-band record types perf report -D shows (the ones
#            an option can add: SWITCH, NAMESPACES, READ, CGROUP, ...)
# The option is "same as perf record" when perfsink changes what perf
# changes (a token perf adds may already be on in perfsink, as CPU and TIME
# in samples are) and nothing else.  The header features of the two
# baseline files are listed from perf report --header-only.
#
# Usage: perf_compat.sh           TAP: regenerate into a temporary file; ok
#                                 when docs/perf-compat.md is the same
#        perf_compat.sh --write   regenerate docs/perf-compat.md
#        perf_compat.sh --stdout  the document on stdout (with
#                                 PERF_COMPAT_ONLY="opt ...": those rows only)
# (run through make check, or with PERFSINK, TOP_SRCDIR, TESTS_SRCDIR and TESTS_BUILDDIR
# set as make check sets them).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
DOC="$TOP_SRCDIR/docs/perf-compat.md"
WRITE=0
[ "${1:-}" = --write ] && WRITE=1
[ "${1:-}" = --stdout ] && WRITE=2

# ------------------------------------------------------------ the machine
# The reasons perfsink gives depend on what the machine has: the document
# names it, and a machine that differs skips the comparison.
machine_profile() {
	local core=no aux=no cg=no t d
	for t in /sys/bus/event_source/devices/*/type; do
		[ "$(cat "$t" 2>/dev/null)" = 4 ] && core=yes
	done
	for d in intel_pt intel_bts cs_etm arm_spe_0; do
		[ -e "/sys/bus/event_source/devices/$d" ] && aux=yes
	done
	awk '$3 == "cgroup2" || ($3 == "cgroup" && $4 ~ /perf_event/) { f = 1 } END { exit !f }' \
		/proc/self/mounts && cg=yes
	echo "perf $("$PERF" version | awk '{ split($3, v, "."); print v[1] "." v[2] }'), hardware PMU: $core, AUX PMU: $aux, perf_event cgroup: $cg"
}

# ------------------------------------------------------------ the options
# perf record -h -> "long<TAB>short<TAB>argument" (short "-" when none).
perf_options() {
	"$PERF" record -h 2>&1 | awk '
	/^ +(-[A-Za-z], )?--[a-z]/ {
		s = "-"
		if (match($0, /^ +-[A-Za-z],/)) s = substr($0, RSTART + RLENGTH - 2, 1)
		match($0, /--[a-z][a-z0-9-]*/)
		l = substr($0, RSTART + 2, RLENGTH - 2)
		rest = substr($0, RSTART + RLENGTH)
		a = "none"
		if (rest ~ /^\[=/) a = "optional"; else if (rest ~ /^ </) a = "required"
		print l "\t" s "\t" a
	}
	/^ +-g  / { print "-g\tg\tnone" }'
}

# Arguments that exercise an option (default: the option alone).  A value
# "perf ARGS | perfsink ARGS" gives each recorder its own spelling.
declare -A ARGS=(
	[-g]="-g" [count]="-c 10000" [cpu]="-C 0" [delay]="-D 10" [event]="-e task-clock"
	[freq]="-F 999" [branch-filter]="-j any" [clockid]="-k mono" [mmap-pages]="-m 64"
	[realtime]="-r 1" [uid]="-u root" [intr-regs]="-I" [compression-level]="-z"
	[cgroup]="-G /" [affinity]="--affinity cpu" [aio]="--aio" [output]=""
	[call-graph]="--call-graph dwarf" [clang-opt]="--clang-opt -O2" [clang-path]="--clang-path /bin/false"
	[filter]="-e sched:sched_switch --filter prev_pid!=0"
	[kernel-callchains]="-g --kernel-callchains" [user-callchains]="-g --user-callchains"
	[max-size]="--max-size 1M" [mmap-flush]="--mmap-flush 4096"
	[num-thread-synthesize]="--num-thread-synthesize 2" [proc-map-timeout]="--proc-map-timeout 1000"
	[switch-max-files]="--switch-output --switch-max-files 2"
	[switch-output-event]="--switch-output-event task-clock" [synth]="--synth all"
	[vmlinux]="--vmlinux /dev/null" [user-regs]="--user-regs"
	# A task that never blocks may never be switched out while it is recorded
	# (no SWITCH at all): a sleeping one always is.
	[switch-events]="--switch-events -- $WORKLOAD sleep 20"
	[pid]="-p BGPID -- sleep 0.3 | -p BGPID --duration 300ms"
	[tid]="-t BGPID -- sleep 0.3 | -t BGPID --duration 300ms"
	[control]="--control fifo:CTL,ACK"
)
# Options whose run cannot be compared with a plain recording, and why.
declare -A SPECIAL=(
	[output]="every comparison writes its files with -o"
	[dry-run]="both parse the options and exit 0 without recording"
	[help]="prints the usage"
)
WORKLOAD_ARGS=(cpu 30)

# tokens FILE: one line per attr field, "EVENT#:key: value".
attr_tokens() {
	"$PERF" evlist -v -i "$1" 2>/dev/null | awk '{
		n++
		line = $0
		sub(/^[^ ]*: /, "", line) # the event name: perf shows its modifiers, perfsink the -e text
		k = split(line, f, /, /)
		for (i = 1; i <= k; i++) {
			if (f[i] ~ /^(sample_type|read_format): /) {
				split(f[i], kv, /: /); m = split(kv[2], bits, /\|/)
				for (j = 1; j <= m; j++) print n ":" kv[1] ":" bits[j]
			} else if (f[i] ~ /^(\{ sample_period|sample_freq \})/) {
				print n ":period/freq" (f[i] ~ /: / ? ": " substr(f[i], index(f[i], ": ") + 2) : "")
			} else if (f[i] != "") print n ":" f[i]
		}
	}' | sort -u
}

FIELDS="cpu time period addr weight data_src phys_addr iregs uregs tod code_page_size data_page_size cgroup trace"
# field_tokens FILE: "field:NAME" for each of FIELDS that perf script -F
# prints from FILE.  All of them are asked at once: perf names the first one
# it refuses ("Cannot print 'addr' field", "Can't provide 'tod' time"),
# which is dropped before asking again.  A refusal that names no field asks
# the rest one by one.  (One call per field was a third of this test's CPU:
# a call that succeeds reads the whole file.)  A field this perf does not
# know at all (6.1 has no cgroup field) is never printed, and is left out
# once, up front: its "Invalid field requested" names no field.
known_fields() {
	local f
	for f in $FIELDS; do
		"$PERF" script -F "$f" -i /nonexistent 2>&1 | grep -q '^Invalid field requested' || echo "$f"
	done | paste -sd ' ' -
}
KNOWN_FIELDS=$(known_fields)
field_tokens() {
	local left=" $KNOWN_FIELDS " list f err re="(Cannot print|Can't provide) '([a-z_]+)'"
	while [ -n "${left// /}" ]; do
		list=${left# }; list=${list% }
		if "$PERF" script -F "${list// /,}" -i "$1" >/dev/null 2>"$1.fields.err"; then
			for f in $left; do echo "field:$f"; done
			return
		fi
		IFS= read -r -d '' err <"$1.fields.err"
		f=
		[[ $err =~ $re ]] && f=${BASH_REMATCH[2]}
		if [ -z "$f" ] || [[ $left != *" $f "* ]]; then
			for f in $left; do
				"$PERF" script -F "$f" -i "$1" >/dev/null 2>&1 && echo "field:$f"
			done
			return
		fi
		left=${left/ $f / }
	done
}

SIDEBAND='SWITCH|SWITCH_CPU_WIDE|NAMESPACES|READ|CGROUP|AUX|ITRACE_START|TEXT_POKE|STAT|STAT_ROUND|TIME_CONV'
record_tokens() {
	"$PERF" report -D -i "$1" 2>/dev/null | grep -oE "PERF_RECORD_($SIDEBAND)\b" |
		sed 's/^PERF_RECORD_/record:/' | sort -u
}

# tokens FILE [BASE]: every token of FILE; when its attrs are BASE's (a
# baseline, tokens in BASE.tok, attrs in BASE.attr), fields and records are
# BASE's too, without asking perf script again.
tokens() {
	attr_tokens "$1" >"$1.attr"
	if [ -n "${2:-}" ] && cmp -s "$1.attr" "$2.attr"; then
		cat "$2.tok"
		return
	fi
	{ cat "$1.attr"; field_tokens "$1"; record_tokens "$1"; } | sort -u
}

# newest FILE: FILE, or the newest FILE.* (--switch-output, --timestamp-filename).
newest() {
	# (not the recorder's log or this script's .attr, which share the prefix)
	if [ -s "$1" ]; then echo "$1"; else ls -t "$1".* 2>/dev/null | grep -vE '\.(log|attr|old)$' | head -n 1; fi
}

# The process -p and -t attach to: started for the row that names it and
# stopped after it (left running, its CPU slowed every other row and test).
# Its pid lives in a file: the rows run in a pipeline's subshell.
start_bg() {
	"$WORKLOAD" cpu 60000 >/dev/null 2>&1 &
	echo $! >"$T/bg.pid"
}
bg_pid() { cat "$T/bg.pid"; }
stop_bg() {
	[ -s "$T/bg.pid" ] || return 0
	kill "$(bg_pid)" 2>/dev/null
	: >"$T/bg.pid"
}
cleanup_hook() { stop_bg; }

# args_for WHO OPTION-ARGS: WHO's half of "perf | perfsink", placeholders filled.
args_for() {
	local a=$2
	if [[ $a == *" | "* ]]; then
		[ "$1" = perf ] && a=${a%% | *} || a=${a#* | }
	fi
	[[ $a != *BGPID* ]] || a=${a//BGPID/$(bg_pid)}
	a=${a//CTL/$T/ctl}
	a=${a//ACK/$T/ack}
	echo "$a"
}

# record WHO OUT ARGS...: one recording; status of the recorder.  Bounded:
# a recorder that hangs fails its row instead of the whole suite (timeout's
# 124/137).  perf 6.1 itself was seen deadlocked on a futex in one run of
# `perf record --affinity cpu` here: perf gets one more try.
record() {
	local who=$1 out=$2 cmd rc tries=2
	shift 2
	if [ "$who" = perf ]; then cmd=("$PERF" record -q); else cmd=("$PERFSINK" record -v); fi
	while :; do
		rm -rf "$out" "$out".*
		if [[ " $* " == *" -- "* || " $* " == *" --duration "* ]]; then
			timeout -k 5 120 "${cmd[@]}" -o "$out" "$@" </dev/null >"$out.log" 2>&1
		else
			timeout -k 5 120 "${cmd[@]}" -o "$out" "$@" -- "$WORKLOAD" "${WORKLOAD_ARGS[@]}" \
				</dev/null >"$out.log" 2>&1
		fi
		rc=$?
		if [ "$who" = perf ] && { [ $rc = 124 ] || [ $rc = 137 ]; } && [ $((--tries)) -gt 0 ]; then
			continue
		fi
		return $rc
	done
}

# delta BASE OPT: "+token" / "-token" lines, what OPT has that BASE has not and back.
delta() { comm -3 "$1" "$2" | sed 's/^\t/+/; /^[^+]/s/^/-/'; }

# The awk function attr_key(TOKEN): what a token is about, without event
# position and value ("sample_type:CPU", "ksymbol").
AWK_ATTR_KEY='
function attr_key(t,   k) {
	sub(/^[0-9]+:/, "", t)
	if (t ~ /^(sample_type|read_format):/) {
		k = t; sub(/:.*/, "", k)
		t = substr(t, length(k) + 2); sub(/: .*/, "", t)
		return k ":" t
	}
	sub(/: .*/, "", t)
	return t
}'

# ignored_keys: the attr keys on which the two plain recordings differ
# already (perfsink always samples CPU, perf names cpu-clock :ppp, ...): an
# option is not judged by them.
ignored_keys() {
	comm -3 <(sed 's/^1://' "$T/pb.attr" | sort -u) <(sed 's/^1://' "$T/sb.attr" | sort -u) |
		tr -d '\t' | awk "$AWK_ATTR_KEY"'{ print attr_key($0) }' | sort -u
}

# compare: "same" or what differs, from $T/{pb,po,sb,so}.tok, the deltas
# $T/pd and $T/sd and the ignored keys.  Each token of perf's delta must be
# in perfsink's, and the other way round; a token whose attr key is ignored
# is not judged (fields and records always are).  One awk: a shell loop
# with a grep per token was most of this test's own CPU.
compare() {
	awk "$AWK_ATTR_KEY"'
	FILENAME == ARGV[1] { ign[$0] = 1; next }
	FILENAME == ARGV[2] { so[$0] = 1; next }
	FILENAME == ARGV[3] { po[$0] = 1; next }
	{
		sign = substr($0, 1, 1); t = substr($0, 2)
		if (t !~ /^(field|record):/ && (attr_key(t) in ign)) next
		perfs = (FILENAME == ARGV[4])
		has = perfs ? (t in so) : (t in po)
		if (sign == "+" && !has) bad = bad "perfsink " (perfs ? "lacks " : "adds ") t "; "
		if (sign == "-" && has) bad = bad "perfsink " (perfs ? "keeps " : "drops ") t "; "
	}
	END { print (bad == "" ? "same" : bad) }' "$T/ignored" "$T/so.tok" "$T/po.tok" "$T/pd" "$T/sd"
}

# What perf's delta says, short: "+sample_type ADDR, +mmap_data: 1, +field addr".
describe() {
	sed -E 's/^([+-])1:/\1/; s/^([+-])([0-9]+):/\1[event \2] /; s/(sample_type|read_format):/\1 /;
		s/^([+-])field:/\1field /; s/^([+-])record:/\1record /' "$1" |
		grep -v '^-period/freq$' | paste -sd ';' - | sed 's/;/; /g'
}

row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }

# Reason perfsink gave in $1's log (exit 2), or "".
reason_of() {
	sed -n 's/.*is not supported: //p; s/^perfsink: error: record: //p' "$1" | head -n 1
}

option_row() {
	local long=$1 short=$2 name args prc src why res d
	name="--$long"
	[ "$short" != - ] && name="-$short, --$long"
	[ "$long" = -g ] && name="-g"
	if [ -n "${SPECIAL[$long]:-}" ]; then
		if [ "$long" = dry-run ]; then
			record perf "$T/p.data" --dry-run; prc=$?
			record perfsink "$T/s.data" --dry-run; src=$?
			if [ "$prc" = 0 ] && [ "$src" = 0 ] && [ ! -s "$T/s.data" ]; then
				row "$name" supported "${SPECIAL[$long]}"
			else
				row "$name" "DIFFERS" "perf exit $prc, perfsink exit $src"
			fi
		else
			row "$name" supported "${SPECIAL[$long]}"
		fi
		return
	fi
	args=${ARGS[$long]-"--$long"}
	[[ $args != *BGPID* ]] || start_bg
	# shellcheck disable=SC2046 # the arguments are words
	record perfsink "$T/s.data" $(args_for perfsink "$args"); src=$?
	# A refusal names its reason; exit 2 without one is a failure to set up
	# (the sanitizer run saw one, once): shown, and given one more try.
	if [ "$src" = 2 ] && [ -z "$(reason_of "$T/s.data.log")" ]; then
		diag "perfsink $args: exit 2 without a reason; once more. Its log:" >&2
		show "$T/s.data.log" >&2
		# shellcheck disable=SC2046
		record perfsink "$T/s.data" $(args_for perfsink "$args"); src=$?
	fi
	# shellcheck disable=SC2046
	record perf "$T/p.data" $(args_for perf "$args"); prc=$?
	why=$(reason_of "$T/s.data.log")
	if [ "$src" = 2 ]; then
		if grep -q "unknown option" "$T/s.data.log" || [ -z "$why" ]; then
			row "$name" "refused, NO REASON" "perfsink says: ${why:-$(grep -m1 . "$T/s.data.log")}"
		else
			row "$name" refused "$why$([ "$prc" = 0 ] || echo " (perf record fails here too)")"
		fi
		return
	fi
	if [ "$prc" != 0 ] && [ ! -s "$(newest "$T/p.data")" ]; then
		row "$name" "DIFFERS" "perfsink records (exit $src); perf record fails here: $(grep -v '^$' "$T/p.data.log" | head -n 1)"
		return
	fi
	tokens "$(newest "$T/p.data")" "$T/pb" >"$T/po.tok"
	tokens "$(newest "$T/s.data")" "$T/sb" >"$T/so.tok"
	delta "$T/pb.tok" "$T/po.tok" >"$T/pd"
	delta "$T/sb.tok" "$T/so.tok" >"$T/sd"
	res=$(compare)
	d=$(describe "$T/pd")
	local note
	note=$(sed -n 's/.*accepted, no effect: //p' "$T/s.data.log" | head -n 1)
	if [ "$res" = same ]; then
		row "$name" "${note:+accepted, }supported" "${note:+$note. }same as perf record${d:+: $d}"
	else
		row "$name" DIFFERS "${res%; }${d:+ (perf: $d)}"
	fi
}

features_section() {
	local f p s
	echo
	echo "## Header features"
	echo
	echo "What \`perf report --header-only\` shows of each feature perf 6.1 knows, for"
	echo "a plain recording of the workload by each recorder (missing: listed"
	echo "under \"missing features\")."
	echo
	echo "| Feature | perf record | perfsink |"
	echo "|---|---|---|"
	for f in TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID \
		TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY BRANCH_STACK PMU_MAPPINGS \
		GROUP_DESC AUXTRACE STAT CACHE SAMPLE_TIME MEM_TOPOLOGY CLOCKID DIR_FORMAT \
		BPF_PROG_INFO BPF_BTF COMPRESSED CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY PMU_CAPS; do
		p=written s=written
		grep -q "^# missing features:.* $f\b" "$T/pb.hdr" && p=-
		grep -q "^# missing features:.* $f\b" "$T/sb.hdr" && s=-
		row "$f" "$p" "$s"
	done
}

generate() {
	local long short
	echo "# perf record options in perfsink"
	echo
	echo "Generated by tests/perf_compat.sh (\`make check\` fails when this file"
	echo "differs from what it produces; \`tests/perf_compat.sh --write\` rewrites it)."
	echo "Do not edit by hand."
	echo
	echo "Machine: $(machine_profile)."
	echo
	echo "Every option \`perf record -h\` lists was given to perf record and to"
	echo "perfsink on the same workload (\`tests/workload ${WORKLOAD_ARGS[*]}\`)."
	echo "*supported*: perfsink changes the attrs (\`perf evlist -v\`), the \`perf"
	echo "script\` fields and the side-band records as perf record does (what perf"
	echo "changes is listed; a sample field perfsink always records, such as CPU,"
	echo "counts as there).  *accepted*: perfsink takes it and says at -v why it has"
	echo "no effect.  *refused*: perfsink exits 2 with the reason shown."
	echo "*DIFFERS* or *NO REASON*: not yet as it should be."
	echo
	echo "Not counted against an option (the plain recordings differ there already):"
	echo "$(paste -sd ' ' "$T/ignored" | sed 's/ /, /g')."
	echo "See the header features below for what the plain recordings write."
	echo
	echo "| Option | perfsink | What the test saw |"
	echo "|---|---|---|"
	while IFS=$'\t' read -r long short _; do
		# PERF_COMPAT_ONLY="all-cpus delay": those rows only (to debug one row).
		[[ -z ${PERF_COMPAT_ONLY:-} || " $PERF_COMPAT_ONLY " == *" $long "* ]] || continue
		option_row "$long" "$short"
		stop_bg
	done < <(perf_options)
}

mkfifo "$T/ctl" "$T/ack"
record perf "$T/pb.data" || { cat "$T/pb.data.log"; skip_all "perf record fails here"; }
record perfsink "$T/sb.data" || { cat "$T/sb.data.log"; skip_all "perfsink record fails here"; }
tokens "$T/pb.data" >"$T/pb.tok"
tokens "$T/sb.data" >"$T/sb.tok"
cp "$T/pb.data.attr" "$T/pb.attr"
cp "$T/sb.data.attr" "$T/sb.attr"
ignored_keys >"$T/ignored"
"$PERF" report --header-only -i "$T/pb.data" >"$T/pb.hdr" 2>&1
"$PERF" report --header-only -i "$T/sb.data" >"$T/sb.hdr" 2>&1

{
	generate | tee "$T/rows"
	echo
	echo "Totals: $(grep -cE '^\| [^|]+ \| (accepted, )?supported \|' "$T/rows") supported,"\
		"$(grep -cE '^\| [^|]+ \| refused \|' "$T/rows") refused with a reason,"\
		"$(grep -cE '^\| [^|]+ \| (DIFFERS|refused, NO REASON) \|' "$T/rows") not yet right."
	features_section
} >"$T/doc.md"

if [ "$WRITE" = 2 ]; then
	cat "$T/doc.md"
	exit 0
fi
if [ "$WRITE" = 1 ]; then
	cp "$T/doc.md" "$DOC"
	echo "wrote $DOC"
	exit 0
fi
plan 1
if [ ! -f "$DOC" ]; then
	not_ok "docs/perf-compat.md exists"
elif ! grep -qxF "Machine: $(machine_profile)." "$DOC"; then
	skip "docs/perf-compat.md was made on another kind of machine ($(sed -n 's/^Machine: //p' "$DOC"))"
else
	diff -u "$DOC" "$T/doc.md" >"$T/diff"
	check "docs/perf-compat.md is what perf_compat.sh produces" test ! -s "$T/diff" ||
		show "$T/diff"
fi
done_testing
