#!/bin/sh
# Every path root writes, with an unprivileged user ("nobody") planting
# links where root will look (issue 27: a link in the middle of a path,
# predictable temporary names, stale temporary files of killed runs):
#   - a directory link in the middle of -o, --summary-json, --stats-file,
#     recover -o, archive and --timestamp-filename paths is refused, its
#     target untouched; so is a directory of another user on the way (the
#     attack through the attacker's own directory, which
#     fs.protected_symlinks does not cover);
#   - --summary-json and --stats-file never write through a link planted at
#     a temporary name (the old one was PATH.tmp.PID), and refuse a
#     world-writable directory that is not sticky;
#   - temporary files a killed record or recover left are removed by the
#     next run, which says so; a live run's are not.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v setpriv >/dev/null || skip_all "needs setpriv to act as another user"
plan 23
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups -- "$@"; }
cd "$T" && chmod 0711 "$T"
mkdir pub sys && chmod 1777 pub # pub: a sticky /tmp; sys: a root directory like /etc
printf 'precious system file\n' >sys/victim && cp sys/victim victim.orig
mkdir att && chown nobody att # the attacker's own directory (0755)
# What /tmp/d -> /etc is on a real host: a directory link the attacker owns.
as_nobody ln -s "$T/sys" pub/d
as_nobody ln -s "$T/sys" att/d
untouched() { cmp -s sys/victim victim.orig && [ "$(ls sys)" = victim ]; }
rec() { "$PERFSINK" record "$@" -- "$WORKLOAD" cpu 100 >/dev/null 2>err; }

# 1. -o through a directory link in the middle.
rec -o "$T/pub/d/victim"
check "-o through a planted directory link: exit 2 (got $?)" [ $? -eq 2 ] || show err
check "the refusal names the link" grep -q "refusing to write '$T/pub/d/victim': '$T/pub/d' is a symbolic link" err ||
	show err
check "the link's target directory is untouched (no victim.old, no new file)" untouched || diag "$(ls -la sys)"
rec -o "$T/att/d/victim"
check "-o through the attacker's own directory: exit 2 (got $?)" [ $? -eq 2 ] || show err
check "refused, naming the directory's owner" grep -q "directory '$T/att' belongs to uid 65534" err || show err
check "untouched" untouched
# A relative -o is checked from / too: the working directory is on the way.
(cd att && "$PERFSINK" record -q -o rel.data -- "$WORKLOAD" cpu 100 >/dev/null 2>../err)
rc=$?
check "a relative -o in the attacker's directory: exit 2, named" \
	eval '[ $rc -eq 2 ] && grep -q "belongs to uid 65534" err' || show err

# The other outputs root writes: --summary-json, --stats-file, recover -o,
# archive (beside its input), --timestamp-filename.
rec -o ok.data --summary-json "$T/pub/d/victim"
rc=$?
check "--summary-json through the link: exit 2, named" \
	eval '[ $rc -eq 2 ] && grep -q "summary-json: refusing to write .*pub/d. is a symbolic link" err' || show err
rec -o ok.data --stats-file "$T/pub/d/victim"
rc=$?
check "--stats-file through the link: exit 2, named" \
	eval '[ $rc -eq 2 ] && grep -q "stats-file: refusing to write .*pub/d. is a symbolic link" err' || show err
check "untouched" untouched
rec -o ok.data
check "a good recording to repair and archive" [ $? -eq 0 ] || show err
"$PERFSINK" recover -o "$T/pub/d/victim" ok.data >out 2>err
rc=$?
check "recover -o through the link: exit 1, named" \
	eval '[ $rc -eq 1 ] && grep -q "pub/d. is a symbolic link" err' || show out err
cp ok.data sys/in.data
"$PERFSINK" archive "$T/pub/d/in.data" >out 2>err
rc=$?
check "archive of an input reached through the link: its archive is not written there" \
	eval '[ $rc -eq 1 ] && [ ! -e sys/in.data.symbols.tar.zst ] && grep -q "symbolic link" err' || show out err
rm -f sys/in.data
mkdir tsd
rec -o "$T/tsd/t.data" --timestamp-filename
rc=$?
check "--timestamp-filename still renames the finished output" \
	eval '[ $rc -eq 0 ] && ls tsd | grep -q "^t.data.[0-9]\{16\}$"' || { show err; diag "$(ls tsd)"; }

# 2. The side outputs' temporary names: nobody plants a link at the name
# the old code used (PATH.tmp.PID, PID known: exec keeps it).
for opt in summary-json stats-file; do
	sh -c 'setpriv --reuid nobody --regid nogroup --clear-groups -- ln -s "$1" "$2.tmp.$$" &&
		exec "$3" record -q -o "$4" --"$5" "$2" -- "$6" cpu 100' sh \
		"$T/sys/victim" "$T/pub/$opt.out" "$PERFSINK" "$T/ok2.data" "$opt" "$WORKLOAD" >/dev/null 2>err
	check "--$opt with a link at its old temporary name: exit 0 (got $?)" [ $? -eq 0 ] || show err
	check "--$opt: the link's target is untouched, the file written" \
		eval 'untouched && [ -f "pub/$opt.out" ] && [ ! -L "pub/$opt.out" ] && [ -s "pub/$opt.out" ]' ||
		diag "$(ls -la pub)"
done
mkdir ww && chmod 0777 ww
rec -o ok.data --stats-file "$T/ww/stats.prom"
rc=$?
check "--stats-file in a world-writable directory that is not sticky: exit 2, why" \
	eval '[ $rc -eq 2 ] && grep -q "ww. is writable by group or others and not sticky" err' || show err

# 15. Temporary files a killed run left: removed by the next, which says so.
mkdir k && cp ok.data k/r.data
cp ok.data k/.r.data.recover.AbC123 # recover before kit 1.3, killed
cp ok.data k/.r.data.0badf00d       # a killed run of the kit's naming
printf 'PERFILE2' >k/.r.data.1234abcd && exec 7<k/.r.data.1234abcd && flock 7 # a live one
"$PERFSINK" recover k/r.data >out 2>err
check "recover after a killed recover: exit 0" [ $? -eq 0 ] || show out err
check "it removed the killed runs' temporary files, naming them" \
	eval 'grep -q "removed 2 temporary files of an earlier run that was killed" err &&
	      [ ! -e k/.r.data.recover.AbC123 ] && [ ! -e k/.r.data.0badf00d ]' || { show err; diag "$(ls -la k)"; }
check "a live run's temporary file stays" [ -e k/.r.data.1234abcd ]
exec 7<&-
cp ok.data k/.p.data.20260101000000.000001.abcdef01 # a killed segment's
rec -o "$T/k/p.data"
rc=$?
check "record after a killed record: exit 0, says it removed the temporary file" \
	eval '[ $rc -eq 0 ] && grep -q "removed 1 temporary file of an earlier run" err &&
	      [ ! -e k/.p.data.20260101000000.000001.abcdef01 ]' || show err
done_testing
