#!/bin/sh
# Output files of every file sink (lib/sinks.sh) as root among hostile
# users: no symlink followed, unsafe places refused with a reason, an
# existing output kept as .old, and nothing changed or left behind when the
# run fails before recording.  "nobody" plays the other user.
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
command -v setpriv >/dev/null || skip_all "needs setpriv to act as another user"
mkdir "$T/probe"
mount -t tmpfs -o size=16k tmpfs "$T/probe" 2>/dev/null || skip_all "cannot mount a tmpfs"
umount "$T/probe"
CHECKS=40 # per sink
plan $((CHECKS * $(sinks | wc -l)))
chmod 0711 "$T" # nobody may reach each sink's pub/ below, nothing else
# Each sink in its own directory D with its own two tiny disks.
cleanup_hook() {
	for _m in "$T"/*/tiny "$T"/*/tiny2; do mountpoint -q "$_m" && umount "$_m"; done
}
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups -- "$@"; }
# only_in DIR NAME...: DIR holds exactly these names (no temporary file).
only_in() {
	_d=$1
	shift
	[ "$(ls -A "$_d" | sort)" = "$(for _x in "$@"; do echo "$_x"; done | sort)" ]
}
# fill DIR: no byte left on the file system of DIR.
fill() { dd if=/dev/zero of="$1/fill" bs=1k 2>/dev/null; true; }
# rec PATH [ARGS...]: record a short run into PATH (-o) with SINK, stderr in err.
rec() {
	_p=$1
	shift
	"$PERFSINK" record --config s.ini -o "$_p" "$@" -- "$WORKLOAD" cpu 100 >/dev/null 2>err
}

# output_safety: the 38 checks for SINK, in a fresh directory D.
output_safety() {
	D=$T/$SINK
	mkdir "$D" "$D/tiny" "$D/tiny2" && chmod 0711 "$D" && cd "$D" || return
	mount -t tmpfs -o size=16k tmpfs tiny
	mount -t tmpfs -o size=64k tmpfs tiny2
	mkdir pub && chmod 1777 pub
	printf 'precious system file\n' >victim && cp victim victim.orig
	printf '[record]\nfreq = 1000\n\n[sink.s]\nplugin = %s\n' "$SINK" >s.ini

	# A link planted by nobody in a sticky directory, through -o and through the config.
	as_nobody ln -s "$D/victim" pub/o.data
	rec "$D/pub/o.data"
	check "$SINK: -o at a planted symlink: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: the refusal names the path and the reason" \
		grep -q "refusing to write '$D/pub/o.data': it is a symbolic link" err || show err
	check "$SINK: the link's target is untouched" cmp -s victim victim.orig
	check "$SINK: the link is still a link, nothing else created" \
		eval '[ -L pub/o.data ] && only_in pub o.data' || diag "$(ls -la pub)"
	as_nobody ln -s "$D/victim" pub/c.data
	printf '[sink.c]\nplugin = %s\npath = %s/pub/c.data\n' "$SINK" "$D" >c.ini
	"$PERFSINK" record --config c.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err
	check "$SINK: config path at a planted symlink: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: refused with the reason" grep -q "'$D/pub/c.data': it is a symbolic link" err || show err
	check "$SINK: the target is untouched" cmp -s victim victim.orig

	# Rotated names are predictable: links for the first segment's name at
	# every second of the next two minutes.
	now=$(date +%s)
	for i in $(seq 0 120); do
		as_nobody ln -s "$D/victim" "pub/r.data.$(date -d "@$((now + i))" +%Y%m%d%H%M%S).000000"
	done
	rec "$D/pub/r.data" --switch-output=signal
	check "$SINK: a planted symlink at a segment name: the run goes on, exit 0 (got $?)" [ $? -eq 0 ] ||
		show err
	check "$SINK: it says the name was taken and which name it wrote" \
		grep -q "pub/r.data.[0-9]*.000000' is taken by another file: this segment is '.*pub/r.data.[0-9]*.000000.1'" err ||
		show err
	check "$SINK: and counts it at the end" grep -q "1 segment name was taken by other files" err || show err
	check "$SINK: the target is untouched" cmp -s victim victim.orig
	seg=$(find pub -name 'r.data.*.000000.1' -type f)
	check "$SINK: the segment is written beside the link, and perf reads it" \
		eval '[ -n "$seg" ] && [ ! -L "$seg" ] && perf_clean "$seg"' || diag "$(ls -la pub)"
	rm -f pub/*
	# Pruning old segments deletes only this run's own segments (perf's
	# rule): nobody's file and link named like older segments stay, and so
	# does our own earlier run's segment.
	as_nobody sh -c "printf 'theirs\n' >pub/p.data.20000101000000.000000"
	as_nobody ln -s "$D/victim" pub/p.data.20000101000000.000001
	printf 'an earlier run\n' >pub/p.data.20000101000000.000002
	rec "$D/pub/p.data" --switch-output=signal --switch-max-files 1
	check "$SINK: a rotating run with --switch-max-files 1: exit 0 (got $?)" [ $? -eq 0 ] || show err
	check "$SINK: it pruned neither nobody's file nor link" \
		eval '[ -f pub/p.data.20000101000000.000000 ] && [ -L pub/p.data.20000101000000.000001 ]' ||
		diag "$(ls -la pub)"
	check "$SINK: nor an earlier run's segment" [ -f pub/p.data.20000101000000.000002 ] ||
		diag "$(ls -la pub)"
	rm -f pub/*

	# A directory anyone may write and that is not sticky.
	mkdir ww && chmod 0777 ww
	rec "$D/ww/o.data"
	check "$SINK: world-writable non-sticky directory: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: the refusal says why" \
		grep -q "refusing to write '$D/ww/o.data': directory '$D/ww' is writable by group or others and not sticky" err ||
		show err
	check "$SINK: nothing created there" only_in ww

	# Another user's file at the path.
	as_nobody sh -c "printf 'theirs\n' >pub/f.data"
	cp pub/f.data f.orig
	rec "$D/pub/f.data"
	check "$SINK: another user's file: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: refused, naming the owner" \
		grep -q "refusing to write '$D/pub/f.data': it belongs to uid 65534, not to uid 0" err || show err
	check "$SINK: their file is untouched, no .old" eval 'cmp -s pub/f.data f.orig && only_in pub f.data'
	rm -f pub/f.data

	# Our own output in the sticky directory: kept as .old, as perf record does.
	rec "$D/pub/mine.data"
	check "$SINK: a new output in a sticky directory: exit 0 (got $?)" [ $? -eq 0 ] || show err
	cp pub/mine.data first.copy
	rec "$D/pub/mine.data"
	check "$SINK: again over our own output: exit 0 (got $?)" [ $? -eq 0 ] || show err
	check "$SINK: the first output is now mine.data.old, byte for byte" cmp -s pub/mine.data.old first.copy
	check "$SINK: the new output is a new recording" fails cmp -s pub/mine.data first.copy
	check "$SINK: perf report reads the new output" perf_clean pub/mine.data || show pub/mine.data.report.err
	check "$SINK: private (0600)" [ "$(stat -c %a pub/mine.data)" = 600 ]
	rm -f pub/mine.data.report*
	check "$SINK: no temporary file left" only_in pub mine.data mine.data.old

	# An existing output survives a run that fails before recording.
	mkdir keep && cp first.copy keep/k.data
	cat >two.ini <<-INI
	[sink.a]
	plugin = $SINK
	path = $D/keep/k.data

	[sink.b]
	plugin = aio_file
	path = $D/no/such/dir/b.data
	INI
	"$PERFSINK" record --config two.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err
	check "$SINK: a second sink that cannot open: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: the existing output is untouched, nothing else there" \
		eval 'cmp -s keep/k.data first.copy && only_in keep k.data' || diag "$(ls -la keep)"
	fill tiny
	sed -i "s|$D/no/such/dir/b.data|$D/tiny/b.data|" two.ini
	"$PERFSINK" record --config two.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err
	check "$SINK: a second sink whose start fails (full disk): exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: it says why" grep -q "tiny/b.data.*No space left on device" err || show err
	check "$SINK: the first sink's existing output is back, byte for byte, no .old" \
		eval 'cmp -s keep/k.data first.copy && only_in keep k.data' || diag "$(ls -la keep)"
	check "$SINK: nothing left on the full disk" only_in tiny fill
	# The sink's own disk is too small to begin: the existing output stays.
	head -c 8000 first.copy >tiny2/o.data && cp tiny2/o.data o.orig
	fill tiny2
	rec "$D/tiny2/o.data"
	check "$SINK: its own disk full at start: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: the existing output is untouched, nothing else there" \
		eval 'cmp -s tiny2/o.data o.orig && only_in tiny2 o.data fill' || diag "$(ls -la tiny2)"

	# More sinks than the descriptor limit allows: exit 2 and no file left.
	mkdir fdl
	for i in $(seq 1 60); do
		printf '[sink.s%d]\nplugin = %s\npath = %s/fdl/o%d.data\n\n' "$i" "$SINK" "$D" "$i"
	done >many.ini
	(ulimit -n 40 && "$PERFSINK" record --config many.ini -- "$WORKLOAD" cpu 100 >/dev/null 2>err)
	check "$SINK: 60 sinks under ulimit -n 40: exit 2 (got $?)" [ $? -eq 2 ] || show err
	check "$SINK: the error says why" grep -q "Too many open files" err || show err
	check "$SINK: no output file left behind ($(ls -A fdl | wc -l))" only_in fdl
	check "$SINK: the victim was never touched" cmp -s victim victim.orig
	umount tiny tiny2
}

for SINK in $(sinks); do
	if sink_built "$SINK"; then
		output_safety
	else
		skip_n $CHECKS "$SINK: the sink is not built here"
	fi
done
done_testing
