# What the pprof sink's tests share (source after lib/http_lib.sh and
# lib/lib.sh): the
# workload recorded with the pprof sink beside aio_file (one fan-out run,
# so the file is the oracle of what was recorded) and the readers of the
# windows' profiles (go tool pprof, Debian's golang-go, as for perfsink
# pprof).

need_go() {
	command -v go >/dev/null 2>&1 || skip_all "go is not installed (Debian's golang-go): no pprof reader"
	export GOCACHE=$T/gocache
}

# record_fanout NAME [pprof keys...]: perfsink record of the workload (about
# 3.5 s of CPU, windows of 1 s) to $T/NAME.data (aio_file) and the pprof
# sink configured with the keys; exit status in $T/NAME.rc.  CALL_GRAPH
# (default -g) is how stacks are recorded.
record_fanout() {
	local n=$1; shift
	{
		printf '[sink.local]\nplugin = aio_file\npath = %s\n' "$T/$n.data"
		printf '[sink.pp]\nplugin = pprof\nwindow = 1s\n'
		printf '%s\n' "$@"
	} > "$T/$n.ini"
	(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 ${CALL_GRAPH:--g} --config "$n.ini" -- \
		"$WORKLOAD" cpu 3500 >"$T/$n.out" 2>"$T/$n.err")
	echo $? > "$T/$n.rc"
}

# pprof_samples PROFILE: its samples (the samples/count values added up),
# as go tool pprof -raw reads them; nothing when it cannot read it.
pprof_samples() {
	go tool pprof -raw "$1" 2>/dev/null | awk '
		/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
		s && /^ *[0-9]+ / { t += $1 } END { if (NR) print t + 0 }'
}

# all_read FILE...: there is one at least, and go tool pprof reads every one.
all_read() {
	local f
	[ $# -gt 0 ] || return 1
	for f in "$@"; do go tool pprof -raw "$f" >/dev/null 2>&1 || { echo "# unreadable: $f"; return 1; }; done
}

# sum_samples FILE...: the samples of all of them.
sum_samples() {
	local f t=0 n
	for f in "$@"; do n=$(pprof_samples "$f"); t=$((t + ${n:-0})); done
	echo "$t"
}

# same_count DATA FILE...: the windows hold every sample of the recording.
same_count() {
	local want got
	want=$(perf_samples "$1"); shift
	got=$(sum_samples "$@")
	echo "# recording: $want samples; windows: $got in $# profiles"
	[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]
}

# merged NAME: the windows under $T/ng/root/NAME (the WebDAV nginx's
# root) merged into $T/NAME.pb.gz (go tool pprof -proto adds profiles
# up); their count in $T/NAME.n.
merged() {
	local w
	mapfile -t w < <(find "$T/ng/root/$1" -type f -name '*.pb.gz' 2>/dev/null | sort)
	echo "${#w[@]}" > "$T/$1.n"
	[ "${#w[@]}" -gt 0 ] && go tool pprof -proto "${w[@]}" > "$T/$1.pb.gz" 2>/dev/null
}
