#!/bin/sh
# A trusted plugin whose own code misbehaves while it loads (issue 27, item
# 17): perfsink names the plugin and how, in one line, and never exits 0.
#   - in a constructor or in perfsink_sink_entry(): a crash (SIGSEGV,
#     SIGABRT) or an _exit()/exit() is caught by loading the plugin in a
#     child first: exit 2, "the plugin crashed while loading (SIGSEGV ...)"
#     or "ended the process while loading (exit status 0 ...)";
#   - a crash only in perfsink's own process (the child loaded it fine):
#     the signal handler around dlopen names the plugin before perfsink
#     dies of the signal; an exit() there ends perfsink with status 2.
# The test plugin (plugin_ctor.c) does what PLUGIN_CTOR says, and with
# PLUGIN_CTOR_PID only in the process of that pid (exec keeps the shell's).
. "$TESTS_SRCDIR/lib/lib.sh"
plan 15
SO="$TESTS_BUILDDIR/integration/.libs/plugin_ctor.so"
cd "$T"
printf '[sink.c]\nplugin = %s\n' "$SO" >ctor.ini
# run MODE [PID]: perfsink check with the plugin; $rc, stderr in err.
run() {
	PLUGIN_CTOR=$1 sh -c '[ -n "$1" ] && export PLUGIN_CTOR_PID=$$; exec "$2" check --config ctor.ini -- true' \
		sh "${2:-}" "$PERFSINK" >out 2>err
	rc=$?
}
named() { grep -q "$SO: the plugin $1" err && [ "$(grep -c . err)" -ge 1 ]; }

run ""
check "the plugin loads when it behaves (exit $rc)" [ $rc -eq 0 ] || show err
for mode in segv abort entry-segv; do
	run $mode
	sig=SIGSEGV; [ $mode = abort ] && sig=SIGABRT
	check "$mode while loading: exit 2 (got $rc)" [ $rc -eq 2 ] || show err
	check "$mode: one line naming the plugin and $sig" \
		eval 'named "crashed while loading ($sig " && [ "$(wc -l <err)" -eq 1 ]' || show err
done
for mode in _exit exit; do
	run $mode
	check "$mode(0) while loading: exit 2 (got $rc)" [ $rc -eq 2 ] || show err
	check "$mode(0): one line naming the plugin" \
		eval 'named "ended the process while loading (exit status 0 " && [ "$(wc -l <err)" -eq 1 ]' ||
		show err
done
# Only in perfsink's own process: the child that loads it first sees nothing.
run segv own
check "a crash in perfsink's own dlopen: not exit 0 (got $rc)" [ $rc -ne 0 ] || show err
check "... the line before it dies names the plugin and SIGSEGV" named "crashed while loading (SIGSEGV " ||
	show err
run exit own
check "exit(0) in perfsink's own dlopen: exit 2 (got $rc)" [ $rc -eq 2 ] || show err
check "... one line naming the plugin" named "called exit() while loading" || show err
done_testing
