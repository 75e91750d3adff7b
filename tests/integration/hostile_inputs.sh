#!/bin/sh
# What root reads where other users can write (issue 27, items 5 and 6),
# with an unprivileged attacker ("nobody") planting things first:
#   - --control fifo:CTL,ACK: a link at either name (to a secret, to a root
#     file), a regular file, another user's FIFO, a FIFO in the attacker's
#     directory: refused before recording (exit 2, one line), nothing read
#     through them or written into them; root's own FIFOs work, and an
#     unknown command is shown as a short quoted prefix, never whole;
#   - recover FILE, recover -o OUT FILE, archive FILE, check --config FILE,
#     record --config FILE: a FIFO planted at FILE is refused at once (the
#     open never waits for a writer), and so is a link at FILE.
# perf 6.1 follows links at --control's paths and writes "ack" into
# whatever they name (docs/RELIABILITY.md).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v setpriv >/dev/null || skip_all "needs setpriv to act as another user"
plan 20
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups -- "$@"; }
cd "$T" && chmod 0711 "$T"
mkdir pub sys own && chmod 1777 pub && chmod 0700 own # pub: a sticky /tmp
mkdir att && chown nobody att                           # the attacker's own directory
printf 'precious system file\n' >sys/victim && cp sys/victim victim.orig
printf 'ping\nsecret-token-4711\n' >sys/secret && chmod 0600 sys/secret
untouched() { cmp -s sys/victim victim.orig; }
# rec CTL,ACK: a short recording with that control channel; $rc, stderr in err.
rec() {
	timeout -k 5 60 "$PERFSINK" record --control "fifo:$1" -o "$T/c.data" -- "$WORKLOAD" cpu 200 \
		>/dev/null 2>err
	rc=$?
}

# 1. Links at both names: CTL to a root secret, ACK to a root file.
as_nobody ln -s "$T/sys/secret" pub/ctl
as_nobody ln -s "$T/sys/victim" pub/ack
rec "$T/pub/ctl,$T/pub/ack"
check "--control through planted links: exit 2 (got $rc)" [ $rc -eq 2 ] || show err
check "the refusal names the link" grep -q "refusing to open FIFO '$T/pub/ctl': it is a symbolic link" err ||
	show err
check "nothing written through the ACK link, the secret not echoed" \
	eval 'untouched && ! grep -q secret-token err' || { show err; diag "$(cat sys/victim)"; }
mkfifo own/ctl
rec "$T/own/ctl,$T/pub/ack"
check "a link at ACK alone: exit 2, named" \
	eval '[ $rc -eq 2 ] && grep -q "FIFO .$T/pub/ack.: it is a symbolic link" err' || show err

# 2. Not a FIFO, another user's FIFO, a FIFO in the attacker's directory.
cp sys/secret own/regular
rec "$T/own/regular"
check "a regular file as CTL: exit 2, 'not a FIFO'" \
	eval '[ $rc -eq 2 ] && grep -q "it is not a FIFO" err && ! grep -q secret-token err' || show err
as_nobody mkfifo pub/nobody_fifo
rec "$T/pub/nobody_fifo"
check "another user's FIFO: exit 2, its owner named" \
	eval '[ $rc -eq 2 ] && grep -q "it belongs to uid 65534" err' || show err
mkfifo att/f
rec "$T/att/f"
check "a FIFO in the attacker's directory: exit 2, the directory named" \
	eval '[ $rc -eq 2 ] && grep -q "directory .$T/att. belongs to uid 65534" err' || show err

# 3. Root's own FIFOs work; an unknown command is shown as a prefix only.
mkfifo own/ack
exec 7<>own/ack
exec 8<>own/ctl
"$PERFSINK" record --control "fifo:$T/own/ctl,$T/own/ack" -o "$T/c.data" -- "$WORKLOAD" cpu 60000 \
	>/dev/null 2>err &
ps_pid=$!
echo ping >&8
check "root's FIFOs: ping is acked" eval '[ "$(timeout 20 head -n 1 <&7)" = ack ]' || show err
echo "enableXsecret-token-4711-and-more-of-it" >&8
check "an unknown command: warned with a quoted prefix and its length" \
	wait_for 20 grep -q "unknown command 'enableXs'... (39 bytes)" err || show err
check "... never its whole text" eval '! grep -q secret-token err' || show err
echo stop >&8
wait $ps_pid
rc=$?
check "stop ends the recording (exit $rc: the workload got SIGTERM)" [ $rc -eq 143 ] || show err
exec 7<&- 8<&-

# 4. FIFOs planted where an input file was expected: refused at once.
"$PERFSINK" record -q -o ok.data -- "$WORKLOAD" cpu 50 2>/dev/null
as_nobody mkfifo pub/in.data pub/in.ini
# try ARGS...: the verb under a deadline (a hang ends as 124); $rc, stderr in err.
try() {
	timeout -k 5 30 "$PERFSINK" "$@" >out 2>err
	rc=$?
}
refused() { [ $rc -eq "$1" ] && grep -q "$2" err; }
try recover "$T/pub/in.data"
check "recover FIFO: exit 1 at once, not waiting (got $rc)" refused 1 "is not a regular file" || show err
try recover -o "$T/own/r.data" "$T/pub/in.data"
check "recover -o OUT FIFO: exit 1 at once (got $rc)" refused 1 "is not a regular file" || show err
try archive "$T/pub/in.data"
check "archive FIFO: exit 1 at once (got $rc)" refused 1 "is not a regular file" || show err
try check --config "$T/pub/in.ini" -- true
check "check --config FIFO: exit 2 at once (got $rc)" refused 2 "is not a regular file" || show err
try record --config "$T/pub/in.ini" -o "$T/own/x.data" -- true
check "record --config FIFO: exit 2 at once, nothing recorded (got $rc)" \
	eval 'refused 2 "is not a regular file" && [ ! -e own/x.data ]' || show err

# 5. Links planted where an input file was expected.
as_nobody ln -s "$T/sys/secret" pub/link.ini
as_nobody ln -s "$T/ok.data" pub/link.data
try check --config "$T/pub/link.ini" -- true
check "check --config LINK: exit 2, the link named, the file behind it not read (got $rc)" \
	eval 'refused 2 "is a symbolic link" && ! grep -q secret-token err' || show err
try recover -o "$T/own/r.data" "$T/pub/link.data"
check "recover LINK: exit 1, refused (got $rc)" refused 1 "is a symbolic link" || show err
try archive "$T/pub/link.data"
check "archive LINK: exit 1, refused (got $rc)" refused 1 "is a symbolic link" || show err
try recover -o "$T/own/r.data" ok.data && try archive ok.data
check "a regular file still works: recover -o and archive of it (got $rc)" [ $rc -eq 0 ] || show out err
done_testing
