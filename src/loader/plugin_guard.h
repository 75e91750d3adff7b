/*
 * A plugin's own code runs before perfsink can check anything: its ELF
 * constructors (and those of the libraries it brings) inside dlopen, then
 * its entry function.  A crash there would end perfsink with no word
 * (exit 139), an _exit() or exit() with the plugin's status (exit 0, nothing
 * recorded).  These make such a plugin name itself instead:
 *
 *  - plugin_guard_probe: the same load first in a child process, which
 *    tells the parent through a pipe that it came back from dlopen and from
 *    the entry function.  A child killed by a signal, or gone without
 *    saying so, fails the load with one line, and perfsink never loads it.
 *  - plugin_guard_begin/end: around the real load, in perfsink's process.
 *    A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
 *    SIGSYS) writes one line naming the plugin (write(2) on stderr) and is
 *    then handled as it would have been (the previous action: the default,
 *    which kills, or a sanitizer's report); an exit() writes one line and
 *    ends perfsink with status 2 instead of the plugin's.
 *
 * Not caught (man perfsink-sink(3)): a constructor that never returns
 * (perfsink waits with it), one that _exit()s in perfsink's process but
 * not in the probe's, and side effects: the constructors run twice.
 * Main thread, before any other thread starts (fork).
 */
#ifndef PS_PLUGIN_GUARD_H
#define PS_PLUGIN_GUARD_H
#include <stddef.h>

/*
 * Load fd_path (a /proc/self/fd name of the file plugin_trust_open
 * checked; shown names it in messages) in a child and call its entry
 * function.  0 when the child came back from both (a dlopen error
 * included: the real load reports it), or when no child could be made (the
 * guard below still stands); -EINVAL with one line in err when the plugin
 * crashed or ended the process.
 */
int plugin_guard_probe(const char *fd_path, const char *shown, char *err, size_t errlen);
/* Before the real dlopen of shown, and after its entry function returned. */
void plugin_guard_begin(const char *shown);
void plugin_guard_end(void);

#endif
